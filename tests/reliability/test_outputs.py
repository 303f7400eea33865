"""emx's own outputs are never lost silently (docs/reliability.md): every write and close
of --stats, --stats-text, --profile and --trace is checked (a full disk is status 74 with
a message, not status 0 and an empty file), and the program's files are closed before
they are written (a program holding its files open took the descriptors they need)."""
import json
import os
import resource
import shutil
import subprocess
import tempfile
import unittest

from test_reliability import EMX, Case, emx, program

OUTPUT = 74


class Outputs(Case):
    def test_full_disk_for_each_output_is_an_error(self):
        for option in ("--stats", "--stats-text", "--profile", "--trace"):
            with self.subTest(option=option):
                r = emx("run", "-q", "--pes", "2", option, "/dev/full", "hello")
                self.assertEqual(r.returncode, OUTPUT, r.stderr)
                self.assertIn(f"emx: {option} /dev/full: cannot write it: No space left on device",
                              r.stderr)
                self.assertEqual(r.stdout.count("Hello from PE"), 2)  # the run itself went on

    def test_full_console_is_an_error(self):
        with open("/dev/full", "w") as full:
            r = subprocess.run([EMX, "run", "-q", "--pes", "1", "hello"], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(r.returncode, OUTPUT, r.stderr)
        self.assertIn("the program's console output could not be written", r.stderr)

    def test_other_outputs_written_when_one_fails(self):
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "s.json")
            r = emx("run", "-q", "--pes", "1", "--profile", "/dev/full", "--stats", stats, "hello")
            self.assertEqual(r.returncode, OUTPUT, r.stderr)
            with open(stats) as f:
                self.assertEqual(json.load(f)["outcome"], "exited")

    def test_program_holding_many_files_still_gets_its_outputs(self):
        # With 256 descriptors the program may hold 256 - 64; emx closes them before its
        # outputs. Before: the program took them all and the run ended "cannot write the
        # statistics file", status 64, the profile lost too.
        tmp = tempfile.mkdtemp()
        try:
            files = os.path.join(tmp, "files")
            os.mkdir(files)
            with open(os.path.join(files, "f"), "w") as f:
                f.write("x\n")
            stats, profile = os.path.join(tmp, "s.json"), os.path.join(tmp, "p.txt")

            def limit():
                resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

            r = subprocess.run([EMX, "run", "-q", "--pes", "1", "--files", files, "--stats", stats,
                                "--profile", profile, program("rel_host_paths"), "hold", "f"],
                               capture_output=True, text=True, timeout=120, preexec_fn=limit)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "0 hold: 192 open, errno 24\n")
            with open(stats) as f:
                self.assertEqual(json.load(f)["outcome"], "exited")
            self.assertGreater(os.path.getsize(profile), 100)
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
