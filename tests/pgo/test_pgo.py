"""EMX_PGO (cmake/Pgo.cmake): the build trained a profile that covers the simulator's hot
code, and the profile-optimised emx gives the same figures as the instrumented emx the
profile came from (a different compilation of the same sources): the profile changes how
the host runs the simulator, never what it simulates."""
import json
import os
import subprocess
import tempfile
import unittest

EMX = os.environ["EMX"]
BUILD = os.path.dirname(os.path.dirname(os.path.abspath(EMX)))
PGO = os.path.join(BUILD, "pgo")
GEN = os.path.join(PGO, "gen", "sim", "emx")
PROGRAMS = os.path.join(BUILD, "programs")


def strip_host(d):
    """Stats less what depends on the host (times, the program's path)."""
    if isinstance(d, dict):
        return {k: strip_host(v) for k, v in d.items() if not k.startswith("host") and k != "program"}
    if isinstance(d, list):
        return [strip_host(v) for v in d]
    return d


class Profile(unittest.TestCase):
    def test_training_made_a_profile_of_the_hot_code(self):
        with open(os.path.join(PGO, "status")) as f:
            status = f.read().strip()
        self.assertTrue(status.startswith("trained:"), status)
        names = os.listdir(os.path.join(PGO, "data"))
        # One profile per object, named by its path in the build (/ as #).
        for obj in ("network#CMakeFiles#emx_network.dir#fabric.cpp.gcda",
                    "sim#CMakeFiles#emx_iss.dir#iss#execute.cpp.gcda",
                    "sim#CMakeFiles#emx_sim.dir#pe#pe.cpp.gcda",
                    "sim#CMakeFiles#emx_sim.dir#machine#machine.cpp.gcda"):
            self.assertIn(obj, names)


class SameFigures(unittest.TestCase):
    def run_both(self, *args, trace=False):
        with tempfile.TemporaryDirectory() as tmp:
            out = []
            for binary in (EMX, GEN):
                stats = os.path.join(tmp, "s.json")
                # The instrumented emx writes its counts under GCOV_PREFIX, not into the
                # build's profile.
                env = dict(os.environ, GCOV_PREFIX=os.path.join(tmp, "gcov"))
                r = subprocess.run([binary, "run", "-q", "--stats", stats]
                                   + (["--trace-text"] if trace else []) + list(args),
                                   capture_output=True, text=True, env=env, timeout=300)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(stats) as f:
                    out.append((r.stdout, r.stderr if trace else "", strip_host(json.load(f))))
            self.assertGreater(out[0][2]["instructions"], 0)
            self.assertEqual(out[0], out[1])

    def p(self, name):
        return os.path.join(PROGRAMS, name + ".elf")

    def test_stream_on_80_pes(self):
        self.run_both("--pes", "80", self.p("bench_stream"), "4", "256")

    def test_radix_sort(self):
        self.run_both("--config", "emx80-20mhz", "--pes", "16", self.p("radix_fine"), "8192", "16", "1")

    def test_mpi_ring_both_libraries(self):
        self.run_both("--pes", "16", self.p("bench_mpi_ring"), "50", "8", "1")
        self.run_both("--pes", "16", self.p("bench_mpi_ring"), "50", "8", "0", "-mpi-option=all")

    def test_interpreted_iss_and_a_trace(self):
        self.run_both("--pes", "2", "--set", "sim.iss.translate=false", self.p("bench_compute"), "2", "3")
        self.run_both("--pes", "4", self.p("hello"), trace=True)


if __name__ == "__main__":
    unittest.main()
