#!/usr/bin/env python3
"""Simulated MIPS of one PE on a compute-bound program (timing model on).

    bench/mips.py [--reps N] [--runs K] [--parts 1|2|3] [--against EMX] [--interpreter]

Runs build/programs/bench_compute.elf K times through `emx run --pes 1 --stats` and
prints instructions, host CPU seconds (wall beside) and simulated MIPS per CPU second per
run and the median. --parts picks the integer half (1), the float half (2) or both (3,
the default) of compute.c. --against runs another emx binary (e.g. a copy of an older
build) alternately with this one, checks that both give the same simulated figures, and
prints both medians and their ratio. --interpreter also runs this build with block
translation off (sim.iss.translate=false: the interpreter alone). A benchmark, not a test: the figure depends on the
host (docs/performance.md, "The ISS on compute.c").
"""
import argparse
import os
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402  (the one place that runs the simulator)


def one_run(binary, reps, parts, sets):
    """One run with `binary` (None: the build's) and --set `sets`; returns the Result."""
    saved = os.environ.get("EMX")
    if binary:
        os.environ["EMX"] = binary
    try:
        # The ELF by path: another binary resolves a bare name in its own build.
        return sim.run(sim.program_path("bench_compute"), (reps, parts), pes=1, set=sets).check()
    finally:
        if binary:
            if saved is None:
                del os.environ["EMX"]
            else:
                os.environ["EMX"] = saved


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200, help="repetitions inside the program")
    ap.add_argument("--runs", type=int, default=3, help="runs of the simulator (each binary)")
    ap.add_argument("--parts", type=int, default=3, choices=(1, 2, 3),
                    help="1: integer half, 2: float half, 3: both")
    ap.add_argument("--against", metavar="EMX", help="another emx binary, run alternately")
    ap.add_argument("--interpreter", action="store_true",
                    help="also this build with block translation off, alternately")
    a = ap.parse_args()
    sim.ensure_built()
    binaries = [("this", None, None)] + ([("against", a.against, None)] if a.against else []) + \
        ([("interpreter", None, {"sim.iss.translate": False})] if a.interpreter else [])
    mips = {name: [] for name, _, _ in binaries}
    figures = {}
    for k in range(a.runs):
        for name, binary, sets in binaries:
            s = one_run(binary, a.reps, a.parts, sets)
            m = s.instructions / s.host_cpu_seconds / 1e6
            mips[name].append(m)
            figures.setdefault((s.instructions, s.cycles, s.stdout), []).append(name)
            print(f"run {k + 1} ({name}): {s.instructions} instructions, {s.cycles} cycles, "
                  f"{s.host_cpu_seconds:.3f} s host CPU ({s.host_seconds:.3f} s wall), "
                  f"{m:.1f} simulated MIPS")
    for name, _, _ in binaries:
        print(f"median ({name}): {statistics.median(mips[name]):.1f} simulated MIPS per CPU "
              f"second (one PE, timing model on, parts {a.parts})")
    for other in ("against", "interpreter"):
        if other in mips:
            ratio = statistics.median(mips["this"]) / statistics.median(mips[other])
            print(f"this / {other}: {ratio:.2f}x")
    if len(figures) != 1:
        print("the runs gave different simulated figures", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
