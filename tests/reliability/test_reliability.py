"""Regression tests of the reliability issues (docs/reliability.md): host crashes, wrong
causes and times, messages that must say what and where, silent surprises, limits of a
long run, the stack guard. Each test failed before its fix."""
import json
import os
import re
import struct
import subprocess
import tempfile
import unittest

EMX = os.environ["EMX"]
ELFS = os.environ["EMX_TEST_ELFS"]
CLI_ELFS = os.environ["EMX_CLI_ELFS"]
SOURCE = os.environ["EMX_SOURCE"]
PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(ELFS)), "..", "programs")

USAGE, FAULT, DEADLOCK, TIME_LIMIT, HOST_TIME_LIMIT = 64, 70, 71, 72, 73


def elf(name):
    return os.path.join(ELFS, name + ".elf")


def cli_elf(name):
    return os.path.join(CLI_ELFS, name + ".elf")


def program(name):
    return os.path.normpath(os.path.join(PROGRAMS, name + ".elf"))


def emx(*args, timeout=120):
    return subprocess.run([EMX, *args], capture_output=True, text=True, timeout=timeout)


def run_stats(*args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        r = emx("run", "-q", "--stats", path, *args)
        stats = None
        if os.path.exists(path):
            with open(path) as f:
                stats = json.load(f)
    return r, stats


def temp_file(data, suffix=""):
    f = tempfile.NamedTemporaryFile("wb" if isinstance(data, bytes) else "w", suffix=suffix,
                                    delete=False)
    f.write(data)
    f.close()
    return f.name


class Case(unittest.TestCase):
    def assertUsage(self, r, *phrases):
        """A clean error of emx itself: its status, the phrases, no traceback or signal."""
        self.assertEqual(r.returncode, USAGE, r.stderr[-2000:])
        for p in phrases:
            self.assertIn(p, r.stderr)
        self.assertLess(len(r.stderr), 2000, "an error message is short")


class HostCrashes(Case):
    """Inputs that crashed the simulator itself."""

    DEEP = 100000

    def test_deeply_nested_config_file(self):
        path = temp_file('{"name": "x", "unknown": ' + "[" * self.DEEP + "]" * self.DEEP + "}",
                         ".json")
        try:
            r = emx("run", "--config", path, cli_elf("tiny"))
        finally:
            os.unlink(path)
        self.assertUsage(r, path, "nests deeper than 64 levels")

    def test_deeply_nested_set_value(self):
        deep = 60000  # one argument holds at most 128 KiB
        r = emx("run", "--set", "name=" + "[" * deep + "]" * deep, cli_elf("tiny"))
        self.assertUsage(r, "--set name=", "nests deeper than 64 levels")

    def test_deeply_nested_extends_base(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "base.json"), "w") as f:
                f.write('{"x": ' + '{"a": ' * self.DEEP + "1" + "}" * self.DEEP + "}")
            with open(os.path.join(d, "top.json"), "w") as f:
                f.write('{"extends": "base.json", "x": {"a": {"a": 2}}}')
            r = emx("run", "--config", os.path.join(d, "top.json"), cli_elf("tiny"))
        self.assertUsage(r, "base.json: nests deeper than 64 levels")

    def run_patched_tiny(self, patch, *phrases):
        """Runs tiny.elf with its string table header patched: a clean program error."""
        with open(cli_elf("tiny"), "rb") as f:
            data = bytearray(f.read())
        shoff, = struct.unpack_from("<I", data, 32)
        shnum, = struct.unpack_from("<H", data, 48)
        headers = [shoff + 40 * k for k in range(shnum)]
        symtab = next(h for h in headers if struct.unpack_from("<I", data, h + 4)[0] == 2)
        link, = struct.unpack_from("<I", data, symtab + 24)
        patch(data, headers[link])
        path = temp_file(bytes(data), ".elf")
        try:
            r = emx("run", path)
        finally:
            os.unlink(path)
        self.assertUsage(r, "bad program: " + path, *phrases)

    def test_string_table_outside_the_file(self):
        self.run_patched_tiny(lambda d, strtab: struct.pack_into("<I", d, strtab + 16, 0x7fffff00),
                              "string table", "outside the file")

    def test_symbol_name_not_ended_in_its_string_table(self):
        def cut(d, strtab):
            # The table ends in the middle of its last name (no NUL before its end).
            size, = struct.unpack_from("<I", d, strtab + 20)
            struct.pack_into("<I", d, strtab + 20, size - 2)
        self.run_patched_tiny(cut, "its name", "runs past its string table")

    def test_long_program_argument_in_small_memory(self):
        r = emx("run", "--set", "pe.memory_bytes=65536", "--set", "pe.reserved_bytes=0",
                cli_elf("tiny"), "x" * 70000)
        self.assertUsage(r)
        self.assertRegex(r.stderr, r"the program arguments \(700\d\d bytes with argv\) do not fit")


class CauseAndTime(Case):
    """A run must stop for the right reason, at the right clock."""

    def test_huge_max_cycles_is_no_deadlock(self):
        r = emx("run", "--pes", "1", "--set", "sim.max_cycles=18446744073709551615",
                cli_elf("tiny"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "ok\n")

    def test_huge_max_cycles_still_limits(self):
        r = emx("run", "--pes", "1", "--set", "sim.max_cycles=400000000000000",
                "--max-cycles", "5000", cli_elf("spin"))
        self.assertEqual(r.returncode, TIME_LIMIT, r.stderr)

    def test_deadlock_under_a_cycle_limit_is_a_deadlock(self):
        plain = emx("run", "--pes", "2", cli_elf("stop"))
        limited = emx("run", "--pes", "2", "--set", "sim.max_cycles=100000000", cli_elf("stop"))
        self.assertEqual(plain.returncode, DEADLOCK, plain.stderr)
        self.assertEqual(limited.returncode, DEADLOCK, limited.stderr)
        when = re.compile(r"emx: deadlock at .*")
        self.assertEqual(when.search(limited.stderr).group(0), when.search(plain.stderr).group(0))

    def failure(self, name, pes, quantum):
        r = emx("run", "--pes", str(pes), "--set", f"sim.quantum_cycles={quantum}", elf(name))
        self.assertEqual(r.returncode, FAULT, r.stderr)
        line = re.search(r"emx: error on PE \d+ at [0-9.]+ us \(cycle (\d+)\).*", r.stderr)
        self.assertIsNotNone(line, r.stderr)
        end = int(re.search(r"simulated time .* \((\d+) cycles\)", r.stderr).group(1))
        self.assertEqual(int(line.group(1)), end, "the run ends at the failure's clock")
        return line.group(0)

    def test_bad_host_packet_time_does_not_depend_on_the_quantum(self):
        reports = {q: self.failure("late_host", 1, q) for q in (1, 1000, 777)}
        self.assertEqual(len(set(reports.values())), 1, reports)
        self.assertIn("unknown host command 7", reports[1])

    def test_memory_unit_error_time_is_the_arrival_clock(self):
        for name in ("remote_bad", "remote_bad_idle"):  # PE 1 running ahead, or idle
            reports = {q: self.failure(name, 2, q) for q in (1, 1000, 777)}
            self.assertEqual(len(set(reports.values())), 1, reports)
            self.assertIn("error on PE 1", reports[1])


class Messages(Case):
    """Errors name what is wrong and where."""

    def test_directory_as_config_or_program(self):
        with tempfile.TemporaryDirectory() as d:
            r = emx("run", "--config", d, cli_elf("tiny"))
            self.assertUsage(r, d, "is a directory")
            r = emx("run", d)
            self.assertUsage(r, d, "is a directory")

    def test_number_out_of_range_names_file_and_key(self):
        path = temp_file('{"clock_mhz": 1e400}', ".json")
        try:
            r = emx("run", "--config", path, cli_elf("tiny"))
        finally:
            os.unlink(path)
        self.assertUsage(r, path, "1e400")
        r = emx("run", "--set", "clock_mhz=1e400", cli_elf("tiny"))
        self.assertUsage(r, "--set clock_mhz=1e400", "1e400")

    def test_bad_numbers_on_the_command_line(self):
        self.assertUsage(emx("config", "--show", "--pes", "abc"),
                         "--pes takes a number of PEs from 1 to 1024 (got 'abc')")
        self.assertUsage(emx("isa", "--disasm", "zz"), "--disasm", "'zz'", "hexadecimal")
        self.assertUsage(emx("isa", "--disasm", "1ffffffff"), "'1ffffffff'", "32 bits")
        self.assertUsage(emx("isa", "--disasm", "13", "xyz"), "'xyz'")

    def test_bss_into_the_reserved_top(self):
        r = emx("run", elf("bss_top"))
        self.assertUsage(r, "bad program: " + elf("bss_top"), "0x3d2000", "pe.reserved_bytes")
        self.assertNotIn("program arguments", r.stderr)

    def test_bad_choice_value_is_not_echoed_whole(self):
        r = emx("run", "--set", "network.topology=" + "q" * 60000, cli_elf("tiny"))
        self.assertUsage(r, "config key 'network.topology': must be one of: circular_omega",
                         "(60000 characters)")

    def test_memory_unit_error_names_the_sending_instruction(self):
        r = emx("run", "--pes", "2", elf("remote_bad"))
        self.assertEqual(r.returncode, FAULT, r.stderr)
        self.assertIn("sent by PE 0 at pc 0x", r.stderr)
        self.assertIn("in bad_send", r.stderr)
        self.assertIn("send.syswr zero, t0", r.stderr)

    def test_tag_write_into_the_guard(self):
        r = emx("run", elf("wtag_guard"))
        self.assertEqual(r.returncode, FAULT, r.stderr)
        self.assertIn("tag write outside local memory", r.stderr)
        self.assertIn("null-pointer guard", r.stderr)

    def test_wild_handler_table(self):
        r = emx("run", elf("wild_handlers"))
        self.assertEqual(r.returncode, FAULT, r.stderr)
        self.assertIn("handler table entry 0 at 0xfffff000 lies outside local memory", r.stderr)
        self.assertNotIn("no handler table", r.stderr)

    def test_output_paths_checked_before_the_run(self):
        for option in ("--stats", "--trace", "--profile"):
            with self.subTest(option=option):
                r = emx("run", option, "/nonexistent/dir/out.json", "--set",
                        "sim.max_cycles=2000000", cli_elf("spin"))
                self.assertUsage(r, "/nonexistent/dir/out.json")
                self.assertNotIn("time limit", r.stderr, "checked before the run")


class Surprises(Case):
    """Figures that came out silently wrong."""

    def test_nan_and_infinity_results_in_the_statistics(self):
        r, s = run_stats("--pes", "1", program("rel_results_special"))
        self.assertEqual(r.returncode, 0, r.stderr)
        values = {x["name"]: x["value"] for x in s["results"]}
        self.assertEqual(values["nan"], "nan")
        self.assertEqual(values["inf"], "inf")
        self.assertEqual(values["minus_inf"], "-inf")
        self.assertEqual(values["half"], 0.5)

    def test_long_result_name_is_an_error(self):
        r, s = run_stats("--pes", "1", program("rel_results_special"), "long")
        self.assertEqual(r.returncode, FAULT, r.stderr)
        self.assertIn("bad host packet: result name longer than 255 characters ('nnnn", r.stderr)
        self.assertEqual(s["outcome"], "error")
        self.assertNotIn("n" * 10, "".join(x["name"] for x in s["results"]))

    def test_exit_codes_apart_from_the_simulators(self):
        for code, status in ((0, 0), (1, 1), (2, 2), (63, 63), (70, 63), (256, 63), (-1, 63)):
            with self.subTest(code=code):
                r = emx("run", "--pes", "2", program("rel_exit_with"), str(code))
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertIn(f"exit code       {code}", r.stderr)
                r, s = run_stats("--pes", "2", program("rel_exit_with"), str(code))
                self.assertEqual((s["outcome"], s["exit_code"]), ("exited", code))

    def test_sim_seed_is_gone(self):
        r = emx("run", "--set", "sim.seed=3", cli_elf("tiny"))
        self.assertUsage(r, "config key 'sim.seed': unknown key")


class Limits(Case):
    """What a long run needs: a default limit, --max-cycles, --max-time."""

    def test_default_cycle_limit_in_the_summary(self):
        r = emx("run", "--pes", "1", cli_elf("tiny"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"limits +10000000000 cycles \(sim.max_cycles\)")

    def test_max_cycles_option(self):
        r = emx("run", "--pes", "1", "--max-cycles", "5000", cli_elf("spin"))
        self.assertEqual(r.returncode, TIME_LIMIT, r.stderr)
        self.assertIn("cycle limit: sim.max_cycles = 5000 reached before the program exited",
                      r.stderr)
        self.assertRegex(r.stderr, r"limits +5000 cycles \(sim.max_cycles\)")
        self.assertIn("(5000 cycles)", r.stderr)

    def test_max_time_option(self):
        r = emx("run", "--pes", "1", "--max-cycles", "0", "--max-time", "1s", cli_elf("spin"),
                timeout=60)
        self.assertEqual(r.returncode, HOST_TIME_LIMIT, r.stderr)
        self.assertIn("host time limit: --max-time 1s reached", r.stderr)
        self.assertRegex(r.stderr, r"limits +no cycle limit, 1s host time")
        r = emx("run", "--max-time", "soon", cli_elf("tiny"))
        self.assertUsage(r, "--max-time takes", "'soon'")

    def test_no_limit(self):
        r = emx("run", "--pes", "1", "--max-cycles", "0", cli_elf("tiny"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"limits +none")


class StackGuard(Case):
    def test_deep_recursion_on_a_thread_stack_faults_at_once(self):
        r = emx("run", "--pes", "1", program("rel_stack_overflow"), "100000")
        self.assertEqual(r.returncode, FAULT, r.stderr)
        self.assertIn("stack overflow", r.stderr)
        self.assertIn("in recurse", r.stderr)

    def test_shallow_recursion_runs(self):
        r = emx("run", "--pes", "1", program("rel_stack_overflow"), "100")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "depth 100: %d\n" % sum(n + 3 for n in range(1, 101)))


class Corpus(Case):
    """The reproducers the fuzzers found, kept as inputs (tests/reliability/corpus)."""

    def test_corpus_inputs_give_clean_errors(self):
        d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
        for name in sorted(os.listdir(d)):
            if name.endswith(".md"):
                continue
            path = os.path.join(d, name)
            with self.subTest(input=name):
                if name.endswith(".json"):
                    r = emx("run", "--config", path, cli_elf("tiny"))
                elif name.endswith(".set"):
                    with open(path) as f:
                        r = emx("run", "--set", f.read(), cli_elf("tiny"))
                else:
                    r = emx("run", "--set", "sim.max_cycles=100000", path)
                self.assertIn(r.returncode, (0, 1, USAGE, FAULT, DEADLOCK, TIME_LIMIT), r.stderr)
                if r.returncode == USAGE:
                    self.assertTrue(r.stderr.startswith("emx: "), r.stderr[:300])


if __name__ == "__main__":
    unittest.main()
