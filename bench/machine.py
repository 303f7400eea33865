#!/usr/bin/env python3
"""Whole-machine simulation speed.

    bench/machine.py [--pes 80] [--rounds 40] [--words 256] [--runs 3]

1. Every PE computes and streams remote writes (build/programs/bench_stream.elf):
   aggregate simulated instructions per host second and network packet-hops per host
   second (a packet-hop is one link crossed).
2. The host memory of a 1024-PE machine whose program touches little memory (hello).
A benchmark, not a test: the figures depend on the host.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMX = os.environ.get("EMX", os.path.join(TOP, "build", "sim", "emx"))


def run(args):
    with tempfile.TemporaryDirectory() as d:
        stats = os.path.join(d, "s.json")
        subprocess.run([EMX, "run", "-q", "--stats", stats, *args], check=True,
                       stdout=subprocess.DEVNULL)
        with open(stats) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=80)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--words", type=int, default=256)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if "EMX" not in os.environ:  # an explicit binary needs no set-up
        subprocess.run([os.path.join(TOP, "scripts", "setup"), "--quiet"], check=True)
    mips, hops = [], []
    for k in range(a.runs):
        s = run(["--pes", str(a.pes), "bench_stream", str(a.rounds), str(a.words)])
        h = s["host_seconds"]
        net = s["stats"]["network"]
        mips.append(s["instructions"] / h / 1e6)
        hops.append(net["hops_sum"] / h / 1e6)
        print(f"run {k + 1}: {s['instructions']} instructions, {net['hops_sum']} packet-hops, "
              f"{s['cycles']} cycles, {h:.3f} s host: {mips[-1]:.1f} MIPS, {hops[-1]:.2f} M hops/s")
    print(f"median on {a.pes} PEs: {statistics.median(mips):.1f} simulated MIPS aggregate, "
          f"{statistics.median(hops):.2f} M packet-hops per host second")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    s = run(["--pes", "1024", "hello"])
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"1024 PEs running hello: peak host memory {max(rss, before) / 1024:.0f} MiB "
          f"({s['host_seconds']:.2f} s host)")


if __name__ == "__main__":
    sys.exit(main())
