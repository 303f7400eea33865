"""Determinism across quanta (issue 27, item 9): every program of the build, run at
quanta 1, 7, 1000 and 2^20, gives the same figures: outcome, end clock, results, output,
network statistics and every PE's counters (docs/simulator.md, "Determinism"). Runs are
cut by a cycle limit to keep the test short (a cut run is as deterministic as a whole
one). The one documented exception: a PE still running when the run ends (after its own
exit, or while another PE faults): the run's figures are identical, but that PE's own
counters hold what it executed up to its next synchronisation, which may lie past the
end (at most a quantum and a segment; the bound is checked)."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

EMX = os.environ["EMX"]
PROGRAMS = os.environ["EMX_PROGRAM_DIR"]
# (sim.quantum_cycles, sim.quantum_max_cycles): the first in lock step (no adaptive
# growth), the others with it.
QUANTA = ((1, 1), (7, 65536), (1000, 65536), (1 << 20, 1 << 20))
PES = 4
LIMIT = 2_000_000
# Arguments that keep a program short or make it do its work on 4 PEs (the others run
# with none). Programs a limit cuts are compared just as well.
ARGS = {
    "bench_compute": ["2"], "bench_mpi_ring": ["20", "8", "1"], "bench_stream": ["4", "256"],
    "micro_block_read": ["1024"], "micro_remote_write": ["1024"],
    "machine_checks": ["backpressure"], "machine_traffic": ["random", "50"],
    "mpi_throughput": ["mpi", "64", "1024"],
    "radix_coarse": ["4096", "256", "1"], "radix_fine": ["4096", "256", "1"],
    "radix_seq": ["4096", "256", "1"],
}
# The slack of a PE's counters past the end of a run, beyond a quantum: a segment (255
# instructions) and one thread's dispatch.
SLACK = 255 * 64 + 64


def figures(stats):
    pes = {k: {n: v for n, v in pe.items() if n != "syncs"}  # syncs: host work
           for k, pe in stats["stats"]["pe"].items()}
    return {"outcome": stats["outcome"], "exit_code": stats["exit_code"],
            "cycles": stats["cycles"], "instructions": stats["instructions"],
            "results": stats["results"], "network": stats["stats"]["network"], "pe": pes}


def run(elf, quantum, args, pes=PES, limit=LIMIT, sets=()):
    q, q_max = quantum
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        r = subprocess.run([EMX, "run", "-q", "--pes", str(pes), "--max-cycles", str(limit),
                            "--set", f"sim.quantum_cycles={q}",
                            "--set", f"sim.quantum_max_cycles={q_max}", "--files", d,
                            *(a for kv in sets for a in ("--set", kv)),
                            "--stats", path, elf, *args],
                           capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        with open(path) as f:
            stats = json.load(f)
    return r, stats


# ASan's notice about SystemC's stack switches (scripts/test --sanitize) is not emx's
# report: it comes where a fault unwinds, which depends on the PE's host context.
ASAN_NOTICE = ("==", "False positive error reports may follow", "For details see")


def report_line(stderr):
    """The first line of emx's own report on stderr."""
    lines = [l for l in stderr.split("\n") if not l.startswith(ASAN_NOTICE)]
    return lines[0] if lines else ""


class Quanta(unittest.TestCase):
    def test_every_program_gives_the_same_figures_at_every_quantum(self):
        elfs = sorted(glob.glob(os.path.join(PROGRAMS, "*.elf")))
        self.assertGreater(len(elfs), 50)
        for elf in elfs:
            name = os.path.basename(elf)[:-4]
            args = ARGS.get(name, [])
            with self.subTest(program=name):
                runs = {q: run(elf, q, args) for q in QUANTA}
                r1, s1 = runs[QUANTA[0]]
                f1 = figures(s1)
                end = s1["cycles"]
                for q in QUANTA[1:]:
                    r, s = runs[q]
                    f = figures(s)
                    self.assertEqual(r.returncode, r1.returncode, f"quantum {q}")
                    self.assertEqual(r.stdout, r1.stdout, f"output at quantum {q}")
                    self.assertEqual(report_line(r.stderr), report_line(r1.stderr),
                                     f"report at quantum {q}")
                    # A PE still running at the end (after its own exit, or while
                    # another PE faulted) has counters up to its last synchronisation.
                    past = {k for k in f1["pe"] if max(f["pe"][k]["cycles"],
                                                       f1["pe"][k]["cycles"]) > end}
                    for k in past:
                        self.assertLessEqual(f["pe"][k]["cycles"], end + max(q) + SLACK,
                                             f"PE {k} past the end at quantum {q}")
                        del f["pe"][k], f1["pe"][k]
                    if past:  # the sum over PEs, theirs included
                        del f["instructions"], f1["instructions"]
                    self.assertEqual(f, f1, f"figures at quantum {q}")
                    f1 = figures(s1)

    def test_pes_computing_and_streaming_at_several_pe_counts(self):
        # The same per-PE work at 16, 80 and 1024 PEs: identical figures at every quantum
        # for one PE count, and the same instructions per computing PE at every count.
        compute = os.path.join(PROGRAMS, "bench_compute.elf")
        stream = os.path.join(PROGRAMS, "bench_stream.elf")
        for pes, quanta in ((16, QUANTA), (80, QUANTA[1:]), (1024, ((64, 64), (1000, 65536)))):
            with self.subTest(pes=pes):
                per_pe = None
                for elf, args, limit in ((compute, ["1"], 40000), (stream, ["2", "64"], LIMIT)):
                    runs = [run(elf, q, args, pes, limit)[1] for q in quanta]
                    for s in runs[1:]:
                        self.assertEqual(figures(s), figures(runs[0]), f"{elf} on {pes} PEs")
                    if elf == compute:
                        counts = {pe["instructions"] for pe in runs[0]["stats"]["pe"].values()}
                        self.assertEqual(len(counts), 1, counts)
                        per_pe = counts.pop()
                        self.assertEqual(per_pe, self.__class__.compute_per_pe.setdefault(
                            "n", per_pe), f"instructions per PE on {pes} PEs")
                    else:
                        self.assertEqual(runs[0]["outcome"], "exited")

    compute_per_pe = {}

    def test_every_topology_gives_the_same_figures_at_every_quantum(self):
        # 80 PEs streaming at once end together and send their results to the host in
        # the same clock: which takes the host's port first must not be the order the
        # host ran the PEs in (the crossbar took it from there once).
        stream = os.path.join(PROGRAMS, "bench_stream.elf")
        for topology in ("crossbar", "single_switch", "ring", "torus2d"):
            with self.subTest(topology=topology):
                runs = [run(stream, q, ["3", "512"], 80, LIMIT,
                            [f"network.topology={topology}"])[1] for q in QUANTA[1:]]
                self.assertEqual(runs[0]["outcome"], "exited")
                for s in runs[1:]:
                    self.assertEqual(figures(s), figures(runs[0]), topology)


if __name__ == "__main__":
    unittest.main()
