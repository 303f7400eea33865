"""Host memory of the simulated local memories (issue 25, item 4): committed only as the
program touches it (MPI's tables per PE of the machine included), and a clear error
naming the PE count and memory size when the host cannot reserve it (it was
`emx: std::bad_alloc`)."""
import os
import resource
import subprocess
import unittest

EMX = os.environ["EMX"]
HELLO = os.path.join(os.environ["EMX_PROGRAM_DIR"], "hello.elf")
RING = os.path.join(os.environ["EMX_PROGRAM_DIR"], "bench_mpi_ring.elf")
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

    # A sanitizer's shadow memory counts in the peak too.
    @unittest.skipIf("ASAN_OPTIONS" in os.environ, "the sanitizer's shadow memory counts")
    def test_mpi_commits_per_peer_tables_only_where_used(self):
        # A 1024-rank ring: MPI_Init's tables of one entry per PE of the machine on
        # every PE (calloc'd: never-used heap is not cleared) and the two-word request
        # frames (128 bytes per PE, only with -mpi-option=rreq-pairs) commit no host
        # pages where a rank never talks to a peer. About 130 MiB here; 290 MiB before.
        child = subprocess.Popen([EMX, "run", "-q", "--pes", "1024", RING, "2", "8", "1"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, child.stderr.read())
        self.assertIn(b"1024 ranks x 2 x 2 messages", child.stdout.read())
        self.assertLess(usage.ru_maxrss * 1024, 192 << 20)

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
