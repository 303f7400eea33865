"""A run cut by the cycle limit (sim.max_cycles) stops at the limit and says so, whatever
the quantum and the number of PEs, with PEs running C loops, idle, or streaming; and it
never stalls in SystemC with its W571 warning (issue 27, items 2 and 7). Each test failed
before its fix: the cut was reported as a deadlock at an earlier, quantum-dependent
clock, and a run with idle PEs under --max-time flooded its output with W571."""
import json
import os
import re
import subprocess
import tempfile
import unittest

EMX = os.environ["EMX"]
PROGRAM = os.path.join(os.environ["EMX_PROGRAM_DIR"], "rel_limit_loops.elf")
TIME_LIMIT = 72


def run(mode, pes, quantum, limit, *extra):
    """(completed process, statistics) of one run of limit_loops MODE."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        r = subprocess.run([EMX, "run", "--pes", str(pes), "--max-cycles", str(limit),
                            "--set", f"sim.quantum_cycles={quantum}", "--stats", path, *extra,
                            PROGRAM, mode], capture_output=True, text=True, timeout=120)
        with open(path) as f:
            stats = json.load(f)
    return r, stats


def figures(stats):
    """The simulated figures of a run (host work left out: host times, and the
    synchronisations with SystemC time, which the quantum sets)."""
    pes = {k: {n: v for n, v in pe.items() if n != "syncs"}
           for k, pe in stats["stats"]["pe"].items()}
    return {"cycles": stats["cycles"], "instructions": stats["instructions"],
            "outcome": stats["outcome"], "pe": pes, "network": stats["stats"]["network"]}


class CycleLimit(unittest.TestCase):
    def check_cut(self, r, stats, limit):
        self.assertEqual(r.returncode, TIME_LIMIT, r.stderr[-2000:])
        self.assertIn(f"emx: cycle limit: sim.max_cycles = {limit} reached before the "
                      "program exited", r.stderr)
        self.assertNotIn("deadlock", r.stderr)
        self.assertNotIn("W571", r.stdout + r.stderr)
        self.assertEqual(stats["cycles"], limit)
        self.assertRegex(r.stderr, rf"simulated time .* \({limit} cycles\)")

    def test_stops_at_the_limit_at_every_quantum(self):
        # Limits that are no multiple of any quantum tried, on 1, 4 and 80 PEs: the same
        # figures at every quantum (PEs running a C loop or idle).
        for mode in ("compute", "idle"):
            for pes in (1, 4, 80):
                for limit in (11, 12345):
                    seen = {}
                    for quantum in (1, 7, 1000, 100000):
                        with self.subTest(mode=mode, pes=pes, limit=limit, quantum=quantum):
                            r, s = run(mode, pes, quantum, limit)
                            self.check_cut(r, s, limit)
                            seen[quantum] = figures(s)
                    self.assertTrue(all(f == seen[1] for f in seen.values()),
                                    f"{mode} on {pes} PEs at {limit}: figures differ by quantum")

    def test_streaming_pes_stop_at_the_limit(self):
        for quantum in (1, 1000, 100000):
            with self.subTest(quantum=quantum):
                r, s = run("stream", 16, quantum, 20011)
                self.check_cut(r, s, 20011)

    def test_idle_pes_at_the_limit_under_a_host_time_limit(self):
        # The slices of a --max-time run: before the fix the run stopped advancing near
        # the limit and wrote W571 warnings (hundreds of MB) until the host time ran out.
        for mode, pes in (("idle", 2), ("idle", 80), ("compute", 80), ("stream", 8)):
            for limit in (99999, 100000):
                with self.subTest(mode=mode, pes=pes, limit=limit):
                    r, s = run(mode, pes, 1000, limit, "--max-time", "60s")
                    self.check_cut(r, s, limit)
                    self.assertLess(len(r.stdout), 1000, r.stdout[:500])
                    self.assertEqual(s["outcome"], "time_limit")

    def test_a_host_time_limit_changes_no_figure(self):
        # Under --max-time the network driver runs ahead only to the end of each slice
        # (parked PEs, run from the driver, would otherwise never return to the kernel,
        # whose slices end so that the host's clock is looked at): the figures are those
        # of the run without it, cut by the cycle limit or not. Before the fix, PEs
        # computing alone ran from the driver through every slice and the run never
        # looked at the host's clock.
        for mode, pes, limit in (("compute", 80, 1000003), ("stream", 16, 1000003),
                                 ("idle", 4, 700001)):
            with self.subTest(mode=mode, pes=pes):
                _, plain = run(mode, pes, 1000, limit)
                r, timed = run(mode, pes, 1000, limit, "--max-time", "60s")
                self.check_cut(r, timed, limit)
                self.assertEqual(figures(timed), figures(plain))
        ring = os.path.join(os.environ["EMX_PROGRAM_DIR"], "bench_mpi_ring.elf")
        for mode in ("0", "1"):  # MPI_Sendrecv, receives posted ahead
            with self.subTest(ring=mode):
                seen = []
                for extra in ([], ["--max-time", "60s"]):
                    with tempfile.TemporaryDirectory() as d:
                        path = os.path.join(d, "s.json")
                        r = subprocess.run([EMX, "run", "-q", "--pes", "80", "--stats", path,
                                            *extra, ring, "20", "8", mode],
                                           capture_output=True, text=True, timeout=120)
                        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
                        with open(path) as f:
                            seen.append((r.stdout, figures(json.load(f))))
                self.assertEqual(seen[0], seen[1])

    def test_host_time_limit_before_the_cycle_limit(self):
        r, s = run("compute", 2, 1000, 10**12, "--max-time", "1s")
        self.assertEqual(r.returncode, 73, r.stderr[-2000:])
        self.assertEqual(s["outcome"], "host_time_limit")
        self.assertLess(s["cycles"], 10**12)
        self.assertNotIn("cycle limit", r.stderr)


if __name__ == "__main__":
    unittest.main()
