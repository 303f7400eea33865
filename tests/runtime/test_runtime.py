"""The EM-C-like layer of the runtime (runtime/include/emx/emc.h): its test programs
(programs/runtime_tests, rt_*) and teaching examples (programs/examples, ex_*) run on the
simulator, on the machine variants and PE counts that matter, against known results."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emxrun import results, run_stats  # noqa: E402

VARIANTS = ["emx80-16mhz", "emx-thread-write", "em4"]


class Runs(unittest.TestCase):
    def run_program(self, program, *args, pes=1, config=None, sets=(), exit_code=0):
        """Runs PROGRAM; returns (stdout, results dict). The exit status must match."""
        opts = ["--pes", str(pes)]
        if config:
            opts += ["--config", config]
        for s in sets:
            opts += ["--set", s]
        r, s = run_stats(*opts, program, *map(str, args), timeout=600)
        self.assertEqual(r.returncode, exit_code,
                         f"{program} {args} {opts}\n{r.stdout}{r.stderr}")
        return r.stdout, results(s) if s else {}


class Suspension(Runs):
    def test_live_values_survive_and_the_cost(self):
        out, res = self.run_program("rt_suspend")
        self.assertIn("live values kept across 200 suspensions: yes; other computation: yes", out)
        # EM-C's figure: 4 live variables cost 8 clocks (a store and a load each).
        self.assertAlmostEqual(res["yield_cycles_4_live"] - res["yield_cycles_0_live"], 8, delta=0.5)
        self.assertLess(res["suspend_resume_cycles_0_live"], 30)
        # The collectives' lean suspension in a frame: the same 8 clocks for 4 live values,
        # and without the context and early-reply handling of emx_yield's.
        self.assertAlmostEqual(res["lean_suspend_resume_cycles_4_live"]
                               - res["lean_suspend_resume_cycles_0_live"], 8, delta=0.5)
        self.assertLess(res["lean_suspend_resume_cycles_0_live"],
                        res["suspend_resume_cycles_0_live"] - 8)

    def test_yield_takes_turns(self):
        out, _ = self.run_program("rt_yield")
        self.assertEqual(out, "ABCABCABCABCABCABC\nstacks: 3 made, 2 free\n")

    def test_printf_and_malloc_in_threads(self):
        out, _ = self.run_program("rt_libc")
        self.assertEqual(out.splitlines(), [
            "worker 1: 1.500000e+00, after a yield; depth 21",
            "worker 2: 3.000000e+00, after a yield; depth 22",
            "worker 3: 4.500000e+00, after a yield; depth 23",
            "worker 4: 6.000000e+00, after a yield; depth 24",
            "handler: 1001 101 143.000",
            "handler: 2001 102 285.857",
            "handler: 3001 103 428.714",
            "handler: 4001 104 571.571",
            "all done",
            "stacks: 5 made, 4 free",
        ])


class RemoteAccess(Runs):
    def test_every_variant(self):
        figures = {}
        for config in VARIANTS:
            with self.subTest(config=config):
                out, res = self.run_program("rt_remote", pes=8, config=config)
                self.assertIn("remote access on 8 PEs: ok", out)
                figures[config] = res
        # Block writes: the link's 2 clocks a word on EM-X; handler threads on EM-X'
        # (one receiver) and address updates plus handler threads on EM-4 are slower.
        self.assertLess(figures["emx80-16mhz"]["put_cycles_per_word"], 2.3)
        self.assertGreater(figures["emx-thread-write"]["put_cycles_per_word"], 4)
        self.assertGreater(figures["em4"]["put_cycles_per_word"], 4)
        self.assertLess(figures["emx80-16mhz"]["read_cycles"],
                        figures["emx-thread-write"]["read_cycles"])
        self.assertLess(figures["emx-thread-write"]["read_cycles"], figures["em4"]["read_cycles"])

    def test_two_pes(self):
        out, _ = self.run_program("rt_remote", pes=2)
        self.assertIn("remote access on 2 PEs: ok", out)


class BlockReads(Runs):
    CHECKS = ["sizes 1..70 and large, every word offset", "every PE reads PE 0 at once",
              "served while a thread runs on the target",
              "a block sent from PE 0 to PE 2 at PE 1's request",
              "blocks moved between other PEs, completion at the requester"]

    def test_checks_and_rate(self):
        for pes in (3, 16):
            with self.subTest(pes=pes):
                out, res = self.run_program("rt_block_read", pes=pes)
                for check in self.CHECKS:
                    self.assertIn(f"{check}: ok\n", out)
                self.assertNotIn("FAILED", out)
                # The link's rate: one two-word packet per 2 clocks, plus one round trip.
                self.assertGreaterEqual(res["block_read_cycles_per_word"], 2.0)
                self.assertLess(res["block_read_cycles_per_word"], 2.1)

    def test_memory_port_conflicts_count_every_word(self):
        # With memory_unit.exu_stall_clocks = 1 the 4096 words read from PE 0 while its
        # thread runs delay that thread by a clock each.
        _, free = self.run_program("rt_block_read", pes=3)
        out, stalled = self.run_program("rt_block_read", pes=3,
                                        sets=["pe.memory_unit.exu_stall_clocks=1"])
        self.assertIn("served while a thread runs on the target: ok\n", out)
        self.assertGreaterEqual(stalled["overlap_thread_cycles"] - free["overlap_thread_cycles"],
                                4096)

    def test_without_direct_remote_access_the_program_knows(self):
        out, _ = self.run_program("rt_block_read", pes=3, config="emx-thread-write")
        self.assertEqual(out, "block reads need the memory unit's direct remote access\n")


class IStructures(Runs):
    CHECKS = ["local read after write", "local read before remote write", "local try, empty",
              "local try, full", "local try, consumed", "remote read", "remote try, empty",
              "remote try, full", "float element"]

    def test_every_variant(self):
        for config in VARIANTS:
            with self.subTest(config=config):
                out, _ = self.run_program("rt_istruct", pes=3, config=config)
                for check in self.CHECKS:
                    self.assertIn(f"PE 0: {check}: ok\n", out)
                self.assertIn("PE 1: data complete when the flag is set: ok\n", out)
                self.assertIn("PE 0: 40 waiters woken in write order: ok\n", out)
                self.assertIn("PE 0: stacks made for the waiters: 40, free now: 40\n", out)
                self.assertNotIn("FAILED", out)


class QStructures(Runs):
    def test_many_readers_and_writers(self):
        for pes in (1, 2, 5, 16, 80):
            with self.subTest(pes=pes):
                out, _ = self.run_program("rt_queue", pes=pes)
                self.assertEqual(out, f"Q-structure, {pes} PEs x 50 values: ok\n")

    def test_variants(self):
        for config in VARIANTS[1:]:
            with self.subTest(config=config):
                out, _ = self.run_program("rt_queue", 20, pes=4, config=config)
                self.assertEqual(out, "Q-structure, 4 PEs x 20 values: ok\n")


class Collectives(Runs):
    def check(self, pes, *args):
        out, res = self.run_program("rt_collective", *args, pes=pes)
        self.assertEqual(out, f"collectives on {pes} PEs: ok\n")
        self.assertEqual(res["errors"], 0)
        return res

    def test_small_machines(self):
        for pes in (1, 2, 3, 5, 7):
            with self.subTest(pes=pes):
                self.check(pes)

    def test_80(self):
        res = self.check(80)
        self.assertLess(res["barrier_cycles"], 2000)

    def test_1024(self):
        self.check(1024, 2, 20)

    def test_variants(self):
        for config in VARIANTS[1:]:
            with self.subTest(config=config):
                out, _ = self.run_program("rt_collective", 2, 300, pes=5, config=config)
                self.assertEqual(out, "collectives on 5 PEs: ok\n")


class Invocation(Runs):
    def test_frames_of_several_sizes(self):
        for words, args in ((8, 6), (32, 12), (64, 12)):
            with self.subTest(frame_words=words):
                out, _ = self.run_program("rt_invoke", pes=5,
                                          sets=[f"pe.threads.frame_words={words}"])
                self.assertIn(f"frames of {words} words: {args} arguments per invocation\n", out)
                self.assertNotIn("FAILED", out)
                self.assertEqual(out.count(": ok\n"), 6)

    def test_variants(self):
        for config in VARIANTS[1:]:
            with self.subTest(config=config):
                out, _ = self.run_program("rt_invoke", pes=3, config=config)
                self.assertEqual(out.count(": ok\n"), 6, out)


class Pieces(Runs):
    def test_every_variant(self):
        for config in VARIANTS:
            with self.subTest(config=config):
                out, _ = self.run_program("rt_misc", pes=2, config=config)
                self.assertEqual(out.count(": ok\n"), 12, out)
                self.assertNotIn("FAILED", out)


class Delay(Runs):
    """emx_delay: the PE's timer (CSR emx.timer_arm) resumes the computation exactly the
    given clocks after arming it; the PE runs other threads or idles meanwhile."""

    def test_idles_exactly_the_given_clocks(self):
        r, s = run_stats("--pes", "1", "rt_delay", timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "delay exact for 6 of 6 lengths; worker ran 20 yields "
                         "during a delay of 10000\n")
        res = results(s)
        overhead = res["delay_overhead_cycles"]
        self.assertGreater(overhead, 10)  # the suspension and resumption
        self.assertLess(overhead, 40)
        # The worker's yields ended before the timer fired: still exact.
        self.assertEqual(res["delay_10000_with_worker_cycles"], 10000 + overhead)
        # Below the suspension's own path the call cannot be shorter: one floor for all.
        self.assertEqual(res["delay_0_cycles"], res["delay_1_cycles"])
        self.assertEqual(res["delay_0_cycles"], res["delay_5_cycles"])
        pe = s["stats"]["pe"]["0"]
        self.assertEqual(pe["timers"], 12)
        # Not a busy loop: 1 082 980 clocks of delay, the execution unit busy for a few
        # thousand (the program's own work and the worker's yields).
        self.assertLess(pe["busy_cycles"], 10000)
        self.assertGreater(pe["idle_cycles"], 1082980 - 1000)

    def test_timer_on_every_variant(self):
        for config in VARIANTS:
            with self.subTest(config=config):
                out, res = self.run_program("rt_delay", config=config)
                self.assertIn("delay exact for 6 of 6 lengths", out)


class Examples(Runs):
    def test_hello_in_pe_order(self):
        for pes in (1, 5, 80):
            with self.subTest(pes=pes):
                out, _ = self.run_program("ex_hello", pes=pes)
                want = "".join(f"Hello from PE {p} of {pes}\n" for p in range(pes))
                want += f"The PE numbers add up to {pes * (pes - 1) // 2}\n"
                self.assertEqual(out, want)

    def test_fib(self):
        for pes in (1, 8, 80):
            with self.subTest(pes=pes):
                out, res = self.run_program("ex_fib", 20, 8, pes=pes)
                self.assertIn("fib(20) = 6765 (cutoff 8): correct\n", out)
                self.assertEqual(res["fib"], 6765)
                self.assertEqual(res["fib_threads"], self.fib_threads(20, 8))

    @staticmethod
    def fib_threads(n, cutoff):
        """Threads of fib(n): one each, plus the children's above the cutoff."""
        if n < cutoff:
            return 1
        return 1 + Examples.fib_threads(n - 1, cutoff) + Examples.fib_threads(n - 2, cutoff)

    def test_pipeline(self):
        for pes in (2, 6, 80):
            with self.subTest(pes=pes):
                out, res = self.run_program("ex_pipeline", 40, pes=pes)
                self.assertIn(f"40 items through {pes} stages: sum", out)
                self.assertIn("correct", out)

    def test_matvec(self):
        for how in ("read", "broadcast"):
            with self.subTest(how=how):
                out, res = self.run_program("ex_matvec", 64, how, pes=8)
                self.assertIn("N = 64 on 8 PEs", out)
                self.assertIn("correct", out)
                self.assertEqual(res["matvec_checksum"], 561)


if __name__ == "__main__":
    unittest.main()


class HostFiles(Runs):
    """Files through the host (emx run --files DIR): round trips with stdio and
    open/read/write, confinement to DIR (with errno in the program and a note in the
    run's report), no access without --files, the host link's rate in simulated time."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "files")
        self.outside = os.path.join(self.tmp.name, "outside")
        os.mkdir(self.root)
        os.mkdir(self.outside)
        with open(os.path.join(self.root, "in.txt"), "w") as f:
            f.write("alpha\nbeta\ngamma\n")
        os.symlink(self.outside, os.path.join(self.root, "escape"))
        with open(os.path.join(self.outside, "secret"), "w") as f:
            f.write("no\n")
        os.symlink(os.path.join(self.outside, "secret"), os.path.join(self.root, "escape_file"))
        os.symlink(".", os.path.join(self.root, "inside_link"))

    def tearDown(self):
        self.tmp.cleanup()

    def files(self, *args, sets=()):
        opts = ["--pes", "1", "--files", self.root]
        for s in sets:
            opts += ["--set", s]
        return run_stats(*opts, "rt_files", *map(str, args))

    def test_round_trip(self):
        r, _ = self.files("roundtrip")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "line 1: alpha\nline 2: beta\nline 3: gamma\nroundtrip: ok\n")
        with open(os.path.join(self.root, "out.txt")) as f:
            self.assertEqual(f.read(), "row 0: 0\nrow 1: 1\nrow 2: 4\nlast\nappended\n")
        with open(os.path.join(self.root, "made.txt")) as f:
            self.assertEqual(f.read(), "made\n")
        self.assertFalse(os.path.exists(os.path.join(self.root, "out.bin")))

    def test_confinement(self):
        r, _ = self.files("confine")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "../outside.txt: refused errno 13", "/etc/passwd: refused errno 13",
            "sub/../../x: refused errno 13", "escape/x.txt: refused errno 13",
            "escape_file: refused errno 13", "inside_link/in.txt: opened errno 0",
            ": refused errno 13", "create escape/new.txt: refused errno 13",
            "remove ../x: -1 errno 13"])
        self.assertEqual(os.listdir(self.outside), ["secret"])
        notes = [l for l in r.stderr.splitlines() if l.startswith("emx: file access")]
        self.assertEqual(len(notes), 8, r.stderr)
        self.assertIn('PE 0: open("../outside.txt") refused: \'..\' in the path', notes[0])
        self.assertIn("a symbolic link to an absolute path", notes[3])

    def test_without_files_directory(self):
        r, _ = run_stats("--pes", "1", "rt_files", "nofiles")
        self.assertEqual(r.stdout, "without --files: refused errno 13\nfopen: Permission denied\n")
        self.assertIn("no files directory (emx run --files DIR)", r.stderr)

    def test_host_link_rate(self):
        # 16000 bytes at 1.5 and 3 MB/s on a 16 MHz PE: 16000 * 16 / rate clocks, plus the
        # request (20 bytes) and the software around it.
        times = {}
        for rate in (1.5, 3.0):
            r, s = self.files("rate", 16000, sets=[f"host.bandwidth_mb_s={rate}"])
            self.assertEqual(r.stdout, "rate: ok\n", r.stderr)
            res = results(s)
            for what in ("write_cycles", "read_cycles"):
                self.assertAlmostEqual(res[what], 16020 * 16 / rate, delta=400)
            times[rate] = res["read_cycles"]
        self.assertAlmostEqual(times[1.5] / times[3.0], 2.0, delta=0.01)


class CLibrary(Runs):
    def test_what_ordinary_programs_include(self):
        out, res = self.run_program("rt_cstdlib", pes=1)
        self.assertEqual(out.splitlines(), [
            "qsort: sorted, bsearch: 42 no 500",
            "strtol: -31 rest Z, strtoll 9223372036854775807, strtoull 18446744073709551615, "
            "overflow 2147483647 errno ERANGE",
            "strtod: 3.25 -0.001 16 1.5 12.125 inf",
            "abs: 5 70000 div -3 -1",
            "strerror: No such file or directory / Permission denied",
            "pages: 4096 bytes, 1024 of them (the PE's memory)",
            "clock: advances, time: 0",
            "assert: passed"])
        # clock() is simulated microseconds: clocks / 16 on the 16 MHz default machine.
        self.assertGreater(res["clock_us"], 0)
