#!/usr/bin/env python3
"""Whole-machine simulation speed.

    bench/machine.py [--pes 80] [--mixes 40x256,40x512,20x1024,20x2048] [--runs 3]

1. Every PE computes and streams remote writes (build/programs/bench_stream.elf: ROUNDS
   rounds of a radix-counting compute phase and a block of WORDS remote writes to
   another PE), for each mix ROUNDSxWORDS: aggregate simulated instructions per host
   second and network packet-hops per host second (a packet-hop is one link crossed).
   More words per round shift the work from the execution units to the network.
2. The host memory of a 1024-PE machine whose program touches little memory (hello).
3. With --flat ROUNDSxWORDS (issue 25 item 1, streaming PEs): the same per-PE stream on
   80 and on 1024 PEs, host CPU nanoseconds per (simulated instruction + packet-hop),
   each PE count's runs alternating, and the ratio 1024 / 80 (the goal: at most 1.2).
   `bench/machine.py --flat 10x512 --runs 3 --mixes ""` prints only that.
Rates are per host CPU second (the process's CPU time), with wall seconds beside.
EMX=path/to/emx runs another build (e.g. the one before a change, for a side-by-side).
A benchmark, not a test: the figures depend on the host (medians of --runs runs).
"""
import argparse
import os
import statistics
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402  (the one place that runs the simulator)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=80)
    ap.add_argument("--mixes", default="40x256,40x512,20x1024,20x2048",
                    help="comma-separated ROUNDSxWORDS")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--flat", metavar="ROUNDSxWORDS", default="",
                    help="also: cost per (instruction + hop) on 80 and 1024 PEs, and the ratio")
    ap.add_argument("--no-memory", action="store_true", help="skip the 1024-PE hello")
    a = ap.parse_args()
    sim.ensure_built()
    mixes = [m for m in a.mixes.split(",") if m]
    if mixes:
        print(f"{a.pes} PEs computing and streaming; medians of {a.runs} runs")
        print(f"{'rounds x words':>15} {'instructions':>13} {'packet-hops':>12} {'cycles':>9} "
              f"{'CPU s':>7} {'wall s':>7} {'M instr/s':>10} {'M hops/s':>9}")
    for mix in mixes:
        rounds, words = mix.split("x")
        mips, hops, host, wall = [], [], [], []
        for _ in range(a.runs):
            s = sim.run("bench_stream", (rounds, words), pes=a.pes).check()
            h = s.host_cpu_seconds
            net = s.network
            host.append(h)
            wall.append(s.host_seconds)
            mips.append(s.instructions / h / 1e6)
            hops.append(net["hops_sum"] / h / 1e6)
        print(f"{mix:>15} {s.instructions:>13} {net['hops_sum']:>12} {s.cycles:>9} "
              f"{statistics.median(host):>7.3f} {statistics.median(wall):>7.3f} "
              f"{statistics.median(mips):>10.1f} "
              f"{statistics.median(hops):>9.2f}")
    if a.flat:
        flat(a.flat, a.runs)
    if a.no_memory:
        return 0
    # The peak memory of that one child (os.wait4 gives its own usage, not the maximum
    # over all children so far).
    child = subprocess.Popen(sim.command("hello", pes=1024), stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit("the 1024-PE hello run failed")
    print(f"1024 PEs running hello: peak host memory {usage.ru_maxrss / 1024:.0f} MiB")


def flat(mix, runs):
    """Host CPU ns per (instruction + packet-hop), the same per-PE stream on 80 and 1024
    PEs, runs alternating between the two; medians."""
    rounds, words = mix.split("x")
    counts = (80, 1024)
    ns = {n: [] for n in counts}
    cpu = {n: [] for n in counts}
    last = {}
    for _ in range(runs):
        for n in counts:
            s = sim.run("bench_stream", (rounds, words), pes=n).check()
            work = s.instructions + s.network["hops_sum"]
            ns[n].append(s.host_cpu_seconds * 1e9 / work)
            cpu[n].append(s.host_cpu_seconds)
            last[n] = s
    print(f"\nthe same stream ({mix}) per PE on 80 and 1024 PEs; medians of {runs} alternating runs")
    print(f"{'PEs':>5} {'instructions':>13} {'packet-hops':>12} {'hops/instr':>10} "
          f"{'CPU s':>7} {'ns/(instr+hop)':>15}")
    for n in counts:
        s = last[n]
        print(f"{n:>5} {s.instructions:>13} {s.network['hops_sum']:>12} "
              f"{s.network['hops_sum'] / s.instructions:>10.3f} {statistics.median(cpu[n]):>7.3f} "
              f"{statistics.median(ns[n]):>15.2f}")
    print(f"ratio 1024 / 80 PEs: {statistics.median(ns[1024]) / statistics.median(ns[80]):.2f} "
          "(issue 25 item 1: at most 1.2)")


if __name__ == "__main__":
    sys.exit(main())
