#!/usr/bin/env python3
"""Simulated MIPS of one PE on a compute-bound program (timing model on).

    bench/mips.py [--reps N] [--runs K]

Runs build/programs/bench_compute.elf K times through `emx run --pes 1 --stats` and
prints instructions, host CPU seconds (wall beside) and simulated MIPS per CPU second per
run and the median. A benchmark, not a test: the figure depends on the host.
"""
import argparse
import os
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402  (the one place that runs the simulator)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200, help="repetitions inside the program")
    ap.add_argument("--runs", type=int, default=3, help="runs of the simulator")
    a = ap.parse_args()
    sim.ensure_built()
    mips = []
    for k in range(a.runs):
        s = sim.run("bench_compute", (a.reps,), pes=1).check()
        m = s.instructions / s.host_cpu_seconds / 1e6
        mips.append(m)
        print(f"run {k + 1}: {s.instructions} instructions, {s.cycles} cycles, "
              f"{s.host_cpu_seconds:.3f} s host CPU ({s.host_seconds:.3f} s wall), "
              f"{m:.1f} simulated MIPS")
    print(f"median: {statistics.median(mips):.1f} simulated MIPS per CPU second "
          f"(one PE, timing model on)")


if __name__ == "__main__":
    sys.exit(main())
