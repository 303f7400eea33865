"""Host memory of the simulated local memories (issue 25, item 4): committed only as the
program touches it, and a clear error naming the PE count and memory size when the host
cannot reserve it (it was `emx: std::bad_alloc`)."""
import os
import resource
import subprocess
import unittest

EMX = os.environ["EMX"]
HELLO = os.path.join(os.environ["EMX_PROGRAM_DIR"], "hello.elf")
BIG = ["--pes", "1024", "--set", "pe.memory_bytes=16777216"]


class HostMemory(unittest.TestCase):
    def test_a_big_machine_that_touches_little_uses_little(self):
        # 1024 PEs x 16 MiB (20 GiB with the tag bits) reserved; hello touches a few
        # pages of each.
        child = subprocess.Popen([EMX, "run", "-q", *BIG, HELLO], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, child.stderr.read())
        self.assertLess(usage.ru_maxrss * 1024, 512 << 20)

    # An ASan build (scripts/test --sanitize exports ASAN_OPTIONS) reserves terabytes of
    # shadow memory at start: under an address-space limit it dies before emx runs.
    @unittest.skipIf("ASAN_OPTIONS" in os.environ,
                     "the sanitizer's shadow memory cannot start under an address-space limit")
    def test_the_host_refuses_the_address_space(self):
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        r = subprocess.run([EMX, "run", "-q", *BIG, HELLO], capture_output=True, text=True,
                           preexec_fn=limit, timeout=120)
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertIn("the host cannot reserve the local memory of 1024 PEs x 16384 KiB",
                      r.stderr)
        self.assertIn("ulimit -v", r.stderr)
        self.assertNotIn("bad_alloc", r.stderr)


if __name__ == "__main__":
    unittest.main()
