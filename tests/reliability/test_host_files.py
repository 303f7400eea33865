"""Confinement of the program's files to `emx run --files DIR` (docs/reliability.md):
paths walked beneath DIR one component at a time, links followed only inside it, no
FIFO or device opened, correct notes. Each test of an escape read, made or removed a
file outside DIR before the walk replaced realpath."""
import os
import shutil
import tempfile
import unittest

from fuzz_host_paths import chain
from test_reliability import Case, emx, program

HOST_PATHS = program("rel_host_paths")
NAME = "d" * 250  # a long directory name: 17 of them make a path beyond PATH_MAX


def run_ops(root, *ops, extra=()):
    """host_paths with (op, path) pairs under --files root; its output lines and notes."""
    words = [w for op in ops for w in op]
    r = emx("run", "-q", "--pes", "1", "--max-time", "60s", *extra, "--files", root,
            HOST_PATHS, *words, timeout=120)
    notes = [l for l in r.stderr.splitlines() if l.startswith("emx: file access")]
    return r, r.stdout.splitlines(), notes


class Confinement(Case):
    def setUp(self):
        self.tmp = os.path.realpath(tempfile.mkdtemp())  # --files / follows no absolute link
        self.root = os.path.join(self.tmp, "files")
        self.outside = os.path.join(self.tmp, "outside")
        os.mkdir(self.root)
        os.mkdir(self.outside)
        with open(os.path.join(self.outside, "secret"), "w") as f:
            f.write("outside\n")
        with open(os.path.join(self.root, "in.txt"), "w") as f:
            f.write("inside\n")

    def tearDown(self):
        if hasattr(self, "outside_deep"):
            os.close(self.outside_deep)  # a descriptor: its path is beyond PATH_MAX
        shutil.rmtree(self.tmp)

    def deep_tree(self):
        """Inside: root/s1 -> 10 long names, there s2 -> 10 more (resolved, the path is
        beyond PATH_MAX). Outside: outside/o and 10 long names, there s -> 10 more, holding
        deep_secret. From the deepest inside, up -> ../ x 23 (out of root) then
        outside/o/... /s: what the link leads to is also beyond PATH_MAX, so realpath
        failed on every prefix but a short one inside, and the check passed the path to
        the kernel, which followed the links out."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        out_fd = os.open(self.outside, os.O_RDONLY | os.O_DIRECTORY)
        fds = [root_fd, out_fd]
        try:
            os.mkdir("a", dir_fd=root_fd)
            fds.append(os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=root_fd))
            mid = chain(fds[-1], [NAME] * 10)
            fds.append(mid)
            os.symlink("a/" + "/".join([NAME] * 10), "s1", dir_fd=root_fd)
            os.mkdir("b", dir_fd=mid)
            fds.append(os.open("b", os.O_RDONLY | os.O_DIRECTORY, dir_fd=mid))
            deep = chain(fds[-1], [NAME] * 10)
            fds.append(deep)
            os.symlink("b/" + "/".join([NAME] * 10), "s2", dir_fd=mid)
            os.mkdir("o", dir_fd=out_fd)
            fds.append(os.open("o", os.O_RDONLY | os.O_DIRECTORY, dir_fd=out_fd))
            omid = chain(fds[-1], [NAME] * 10)
            fds.append(omid)
            odeep = chain(omid, [NAME] * 10)
            fds.append(odeep)
            os.symlink("/".join([NAME] * 10), "s", dir_fd=omid)
            with open(os.open("deep_secret", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=odeep), "w") as f:
                f.write("deep outside\n")
            # From the deepest directory inside: 22 levels up is root, 23 the temporary one.
            os.symlink("../" * 23 + "outside/o/" + "/".join([NAME] * 10) + "/s", "up", dir_fd=deep)
            os.symlink("../" * 22 + "in.txt", "home", dir_fd=deep)
            with open(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=deep), "w") as f:
                f.write("deep\n")
            self.outside_deep = fds.pop()  # odeep, kept open for assertOutsideUntouched
        finally:
            for fd in fds:
                os.close(fd)

    def assertOutsideUntouched(self):
        self.assertEqual(sorted(os.listdir(self.outside)), ["o", "secret"] if hasattr(self, "outside_deep") else ["secret"])
        with open(os.path.join(self.outside, "secret")) as f:
            self.assertEqual(f.read(), "outside\n")
        if hasattr(self, "outside_deep"):
            self.assertEqual(os.listdir(self.outside_deep), ["deep_secret"])
            with open(os.open("deep_secret", os.O_RDONLY, dir_fd=self.outside_deep)) as f:
                self.assertEqual(f.read(), "deep outside\n")

    def test_links_climbing_out_of_a_tree_beyond_path_max(self):
        self.deep_tree()
        r, out, notes = run_ops(self.root, ("read", "s1/s2/up/deep_secret"),
                                ("write", "s1/s2/up/made"), ("remove", "s1/s2/up/deep_secret"),
                                ("read", "s1/s2/deep.txt"), ("read", "s1/s2/home"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(out, ["0 read: errno 13", "1 write: errno 13", "2 remove: errno 13",
                               "3 read: ok deep", "4 read: ok inside"])
        self.assertOutsideUntouched()
        self.assertEqual(len(notes), 3, r.stderr)
        for n in notes:
            self.assertIn("a symbolic link leading out of the --files directory", n)

    def test_files_directory_itself_beyond_path_max(self):
        # --files names a directory whose absolute path is beyond PATH_MAX (through a link).
        self.deep_tree()
        root = os.path.join(self.root, "s1", "s2")
        r, out, notes = run_ops(root, ("read", "deep.txt"), ("read", "up/deep_secret"),
                                ("write", "new.txt"))
        self.assertEqual(out, ["0 read: ok deep", "1 read: errno 13", "2 write: ok"], r.stderr)
        self.assertOutsideUntouched()

    def test_links_inside_are_followed_and_out_refused_with_a_note(self):
        os.mkdir(os.path.join(self.root, "sub"))
        os.symlink("../in.txt", os.path.join(self.root, "sub", "to_in"))
        os.symlink("sub/to_in", os.path.join(self.root, "chain"))
        os.symlink(os.path.join(self.outside, "secret"), os.path.join(self.root, "absolute"))
        os.symlink("../outside/secret", os.path.join(self.root, "relative_out"))
        os.symlink("loop", os.path.join(self.root, "loop"))
        os.symlink("../outside/new", os.path.join(self.root, "dangling_out"))
        os.symlink("sub/made", os.path.join(self.root, "dangling_in"))
        r, out, notes = run_ops(
            self.root, ("read", "sub/to_in"), ("read", "chain"), ("read", "absolute"),
            ("read", "relative_out"), ("read", "loop"), ("write", "dangling_out"),
            ("write", "dangling_in"), ("excl", "dangling_in"), ("remove", "chain"),
            ("read", "sub/made"))
        self.assertEqual(out, [
            "0 read: ok inside", "1 read: ok inside", "2 read: errno 13", "3 read: errno 13",
            "4 read: errno 13", "5 write: errno 13", "6 write: ok", "7 excl: errno 17",
            "8 remove: ok", "9 read: ok written"], r.stderr)
        self.assertOutsideUntouched()
        self.assertTrue(os.path.exists(os.path.join(self.root, "sub", "to_in")))  # link removed, not its file
        self.assertFalse(os.path.lexists(os.path.join(self.root, "chain")))
        self.assertIn("a symbolic link to an absolute path", notes[0])
        self.assertIn("leading out of the --files directory", notes[1])
        self.assertIn("more than 40 symbolic links", notes[2])
        self.assertIn("leading out of the --files directory", notes[3])
        self.assertEqual(len(notes), 4, r.stderr)

    def test_fifo_is_refused_without_blocking(self):
        os.mkfifo(os.path.join(self.root, "fifo"))
        os.symlink("fifo", os.path.join(self.root, "to_fifo"))
        r, out, notes = run_ops(self.root, ("read", "fifo"), ("write", "fifo"),
                                ("read", "to_fifo"), ("read", "in.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(out, ["0 read: errno 13", "1 write: errno 13", "2 read: errno 13",
                               "3 read: ok inside"])
        self.assertEqual(len(notes), 3)
        self.assertIn("a FIFO: only regular files and directories are served", notes[0])

    def test_device_is_refused(self):
        os.symlink("/dev/zero", os.path.join(self.root, "abs_zero"))
        r, out, notes = run_ops("/dev", ("read", "zero"), ("write", "null"),
                                ("read", "urandom"))
        self.assertEqual(out, ["0 read: errno 13", "1 write: errno 13", "2 read: errno 13"])
        self.assertIn("a character device: only regular files and directories", notes[0])

    def test_files_root_slash(self):
        r, out, notes = run_ops("/", ("read", self.root.lstrip("/") + "/in.txt"),
                                ("read", self.root + "/in.txt"))
        self.assertEqual(out, ["0 read: ok inside", "1 read: errno 13"], r.stderr)
        self.assertEqual(len(notes), 1)
        self.assertIn("an absolute path (paths are relative to the --files directory '/': "
                      "write '" + self.root.lstrip("/")[:40], notes[0])

    def test_path_longer_than_path_max_is_not_cut(self):
        # A path of 4099 characters used to be cut at 4096 and the cut path opened.
        os.mkdir(os.path.join(self.root, "a"))
        with open(os.path.join(self.root, "a", "f"), "w") as f:
            f.write("cut\n")
        r, out, _ = run_ops(self.root, ("read", "a" + "/" * 4094 + "fake"),
                            ("read", "a" + "/" * 4093 + "f"))
        self.assertEqual(out, ["0 read: errno 36", "1 read: ok cut"], r.stderr)

    def test_links_up_and_down_inside(self):
        # ".." in a link goes back to the directory the walk came from (checked by identity).
        os.makedirs(os.path.join(self.root, "p", "q"))
        os.symlink("../../in.txt", os.path.join(self.root, "p", "q", "back"))
        os.symlink("q/../q/back", os.path.join(self.root, "p", "zigzag"))
        os.symlink(".", os.path.join(self.root, "here"))
        r, out, _ = run_ops(self.root, ("read", "p/q/back"), ("read", "p/zigzag"),
                            ("read", "here/here/in.txt"), ("remove", "here"))
        self.assertEqual(out, ["0 read: ok inside", "1 read: ok inside", "2 read: ok inside",
                               "3 remove: ok"], r.stderr)

if __name__ == "__main__":
    unittest.main()
