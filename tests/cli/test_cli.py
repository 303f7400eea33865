"""The emx command: options, config errors, program-file errors, outcomes, statistics."""
import json
import os
import subprocess
import tempfile
import unittest

EMX = os.environ["EMX"]
ELFS = os.environ["EMX_TEST_ELFS"]
SOURCE = os.environ["EMX_SOURCE"]


def elf(name):
    return os.path.join(ELFS, name + ".elf")


def emx(*args, timeout=120):
    return subprocess.run([EMX, *args], capture_output=True, text=True, timeout=timeout)


class Usage(unittest.TestCase):
    def test_help(self):
        r = emx("--help")
        self.assertEqual(r.returncode, 0)
        for word in ("run PROGRAM", "config --doc", "isa --markdown", "Exit status"):
            self.assertIn(word, r.stdout)
        r = emx("run", "--help")
        self.assertEqual(r.returncode, 0)
        for word in ("--config", "--set", "--stats", "--pes", "PROGRAM"):
            self.assertIn(word, r.stdout)

    def test_unknown_command_and_option(self):
        r = emx("frobnicate")
        self.assertEqual(r.returncode, 64)
        self.assertIn("unknown command 'frobnicate'", r.stderr)
        r = emx("run", "--bogus", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("unknown option --bogus", r.stderr)

    def test_missing_program(self):
        r = emx("run")
        self.assertEqual(r.returncode, 64)
        self.assertIn("no program given", r.stderr)
        r = emx("run", "no-such-program")
        self.assertEqual(r.returncode, 64)
        self.assertIn("no program 'no-such-program'", r.stderr)

    def test_pes_option_range(self):
        r = emx("run", "--pes", "0", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("--pes takes a number of PEs from 1 to 1024", r.stderr)


class Config(unittest.TestCase):
    def test_unknown_key_names_path_and_allowed_keys(self):
        r = emx("run", "--set", "pe.timing.mull=3", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("config key 'pe.timing.mull': unknown key; allowed here: alu,", r.stderr)

    def test_wrong_type(self):
        r = emx("run", "--set", "pe.timing.mul=fast", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("config key 'pe.timing.mul': must be an integer", r.stderr)

    def test_out_of_range(self):
        r = emx("run", "--set", "pes=2000", elf("tiny"))
        self.assertIn("config key 'pes': must be in [1, 1024] (got 2000)", r.stderr)
        r = emx("run", "--set", "pe.memory_bytes=70000", elf("tiny"))
        self.assertIn("'pe.memory_bytes': must be a multiple of 4096", r.stderr)

    def test_bad_choice(self):
        r = emx("run", "--set", "host.start=some", elf("tiny"))
        self.assertIn("config key 'host.start': must be one of: all, pe0", r.stderr)

    def test_datelines_need_a_ring_or_torus(self):
        r = emx("run", "--set", "network.buffer_classes=datelines", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("config key 'network.buffer_classes': \"datelines\" applies only to the "
                      "ring and torus2d topologies, not to network.topology = \"circular_omega\"",
                      r.stderr)

    def test_bad_json_file_and_missing_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"pes": 4,}')
        r = emx("run", "--config", f.name, elf("tiny"))
        os.unlink(f.name)
        self.assertEqual(r.returncode, 64)
        self.assertIn("not valid JSON", r.stderr)
        r = emx("run", "--config", "/nonexistent/x.json", elf("tiny"))
        self.assertIn("no config file '/nonexistent/x.json'", r.stderr)

    def test_extends_and_named_configs(self):
        r = emx("config", "--show", "--config", "em4")
        self.assertEqual(r.returncode, 0, r.stderr)
        c = json.loads(r.stdout)
        self.assertEqual(c["clock_mhz"], 12.5)
        self.assertEqual(c["pe"]["timing"]["memory_penalty"], 1)
        self.assertEqual(c["pes"], 80)  # from the config it extends
        c = json.loads(emx("config", "--show", "--config", "emx80-20mhz").stdout)
        self.assertEqual(c["clock_mhz"], 20.0)

    def test_config_doc_lists_every_key(self):
        r = emx("config", "--doc")
        self.assertEqual(r.returncode, 0)
        for key in ("`pes`", "`clock_mhz`", "`pe.timing.memory_penalty`", "`sim.quantum_cycles`"):
            self.assertIn(key, r.stdout)

    def test_committed_config_doc_is_current(self):
        with open(os.path.join(SOURCE, "docs", "config.md")) as f:
            self.assertEqual(f.read(), emx("config", "--doc").stdout,
                             "docs/config.md is stale: regenerate with `emx config --doc`")

    def test_committed_isa_doc_is_current(self):
        with open(os.path.join(SOURCE, "docs", "isa.md")) as f:
            self.assertEqual(f.read(), emx("isa", "--markdown").stdout,
                             "docs/isa.md is stale: regenerate with `emx isa --markdown`")


class ProgramFile(unittest.TestCase):
    def check(self, name, *phrases):
        r = emx("run", "--pes", "1", elf(name))
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertIn("emx: bad program: " + elf(name), r.stderr)
        for p in phrases:
            self.assertIn(p, r.stderr)

    def test_not_an_elf(self):
        with tempfile.NamedTemporaryFile("wb", delete=False) as f:
            f.write(b"#!/bin/sh\necho hi\n")
        r = emx("run", f.name)
        os.unlink(f.name)
        self.assertEqual(r.returncode, 64)
        self.assertIn("not an ELF file", r.stderr)

    def test_truncated(self):
        with open(elf("tiny"), "rb") as f:
            head = f.read(40)
        with tempfile.NamedTemporaryFile("wb", delete=False) as f:
            f.write(head)
        r = emx("run", f.name)
        os.unlink(f.name)
        self.assertIn("truncated ELF file", r.stderr)

    def test_64_bit(self):
        self.check("bad_rv64", "a 64-bit ELF", "-march=rv32imf -mabi=ilp32f")

    def test_wrong_float_abi(self):
        self.check("bad_softfloat", "float ABI is soft-float (ilp32)", "-mabi=ilp32f")

    def test_compressed(self):
        self.check("bad_compressed", "compressed (C) instructions")

    def test_writable_code(self):
        self.check("bad_rwx", "both writable and executable")

    def test_segment_outside_memory(self):
        self.check("bad_high", "lies outside local memory [0x1000, 0x400000)")

    def test_entry_outside_code(self):
        self.check("bad_entry", "entry point 0x40 is not an aligned address inside the code segment")

    def test_object_file(self):
        self.check("bad_object", "not an executable")


class Outcomes(unittest.TestCase):
    def test_runs_and_summarises(self):
        r = emx("run", "--pes", "1", elf("tiny"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "ok\n")
        for word in ("simulated time", "cycles", "instructions", "host time", "simulated MIPS"):
            self.assertIn(word, r.stderr)
        r = emx("run", "-q", "--pes", "1", elf("tiny"))
        self.assertEqual(r.stderr, "")

    def test_every_pe_runs_the_program(self):
        r = emx("run", "-q", "--pes", "5", elf("tiny"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "ok\n" * 5)
        r = emx("run", "-q", "--pes", "5", "--set", "host.start=pe0", elf("tiny"))
        self.assertEqual(r.stdout, "ok\n")

    def test_time_limit(self):
        r = emx("run", "--pes", "1", "--set", "sim.max_cycles=5000", elf("spin"))
        self.assertEqual(r.returncode, 72)
        self.assertIn("cycle limit: sim.max_cycles = 5000", r.stderr)

    def test_nothing_left_to_run_is_a_deadlock(self):
        r = emx("run", "--pes", "2", elf("stop"))
        self.assertEqual(r.returncode, 71)
        self.assertIn("emx: deadlock at", r.stderr)
        self.assertIn("no PE has a thread to run and the network is empty", r.stderr)
        self.assertIn("PE 0: idle, no thread ready", r.stderr)
        self.assertIn("PE 1: idle, no thread ready", r.stderr)

    def test_statistics_json(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            r = emx("run", "-q", "--pes", "2", "--stats", path, elf("tiny"))
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                s = json.load(f)
        for key in ("simulated_time_ns", "cycles", "instructions", "host_seconds",
                    "host_cpu_seconds", "results", "config"):
            self.assertIn(key, s)
        self.assertGreaterEqual(s["host_cpu_seconds"], 0)
        self.assertEqual(s["outcome"], "exited")
        self.assertEqual(s["config"]["pes"], 2)
        self.assertEqual(s["instructions"], 2 * 12)  # 12 instructions in tiny.S
        self.assertEqual(s["simulated_time_ns"], s["cycles"] * 62.5)
        self.assertEqual(s["stats"]["pe"]["1"]["packets_sent"], 2)

    def test_program_load_time_through_the_host(self):
        def cycles(*extra):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "s.json")
                r = emx("run", "-q", "--pes", "2", "--stats", path, *extra, elf("tiny"))
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(path) as f:
                    return json.load(f)["cycles"]
        base = cycles()
        # 48 bytes of code to each of 2 PEs at 1 MB/s and 16 MHz: 96 us = 1536 clocks.
        loaded = cycles("--set", "host.charge_load_time=true", "--set", "host.bandwidth_mb_s=1")
        self.assertEqual(loaded - base, 1536)

    def test_identical_statistics_on_two_runs(self):
        def run():
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "s.json")
                emx("run", "-q", "--pes", "3", "--stats", path, elf("tiny"))
                with open(path) as f:
                    s = json.load(f)
            del s["host_seconds"], s["host_cpu_seconds"]
            return s
        self.assertEqual(run(), run())


class Profile(unittest.TestCase):
    """emx run --profile: counts per function and instruction, summed over the PEs chosen."""

    def profile(self, *extra):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            r = emx("run", "-q", "--pes", "3", "--profile", path, *extra, elf("tiny"))
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                return json.load(f)

    def test_json_counts_every_instruction_of_every_pe(self):
        p = self.profile()
        self.assertEqual(p["pes"], 3)
        self.assertEqual(p["instructions"], 3 * 12)  # as the statistics count them
        self.assertEqual(p["functions"], [{"name": "_start", "instructions": 36, "clocks": 36,
                                           "calls": 3}])
        self.assertEqual(p["hot"][0], {"pc": 0x1000, "where": "_start", "count": 3, "clocks": 3,
                                       "disasm": "csrrs t1, emx.peid, zero"})
        self.assertIn("end", [h["disasm"] for h in p["hot"]])

    def test_profile_pes_chooses_the_pes(self):
        p = self.profile("--profile-pes", "1-2")
        self.assertEqual((p["pes"], p["instructions"]), (2, 24))

    def test_profile_top_lists_every_instruction(self):
        few = self.profile("--profile-top", "2")["hot"]
        every = self.profile("--profile-top", "0")["hot"]
        self.assertEqual(len(few), 2)
        self.assertEqual(len(every), 12)  # tiny's instructions, each ran
        self.assertEqual(sum(h["count"] for h in every), 36)

    def test_text_report_on_stderr(self):
        r = emx("run", "-q", "--pes", "2", "--profile", "-", elf("tiny"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "ok\n" * 2)
        self.assertIn("emx profile: 2 PEs, 24 instructions", r.stderr)
        self.assertRegex(r.stderr, r"\n +24 +100.00 +24 +1.00 +2 +12.0  _start\n")
        self.assertIn("send.host a1, t0", r.stderr)

    def test_clocks_follow_the_timing_config(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            emx("run", "-q", "--pes", "1", "--set", "sim.max_cycles=3000", "--set",
                "pe.timing.jump=3", "--profile", path, elf("spin"))
            with open(path) as f:
                p = json.load(f)
        (j,) = p["hot"]
        self.assertEqual(j["disasm"], "jal zero, 0x1000")
        self.assertEqual(j["clocks"], 3 * j["count"])
        self.assertEqual(j["count"], 1000)
        self.assertEqual(p["functions"][0]["calls"], 1000)  # the loop re-enters _start

    def test_bad_options(self):
        r = emx("run", "--pes", "2", "--profile-pes", "0", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("--profile-pes chooses the PEs that --profile sums over", r.stderr)
        r = emx("run", "--pes", "2", "--profile", "-", "--profile-pes", "5", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("--profile-pes 5: expected PE numbers and ranges below 2", r.stderr)
        r = emx("run", "--pes", "2", "--profile-top", "0", elf("tiny"))
        self.assertEqual(r.returncode, 64)
        self.assertIn("--profile-top chooses how many instructions --profile lists", r.stderr)


if __name__ == "__main__":
    unittest.main()
