#!/usr/bin/env python3
"""Simulated MPI messages per host second: an 80-rank ring exchange of small messages.

    bench/mpi_ring.py [--pes 80] [--iter 200] [--bytes 8] [--runs 3]

Runs build/programs/bench_mpi_ring.elf (every rank Sendrecv's to both neighbours ITER
times) and prints messages per host second. A benchmark, not a test: host-dependent.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMX = os.environ.get("EMX", os.path.join(TOP, "build", "sim", "emx"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=80)
    ap.add_argument("--iter", type=int, default=200)
    ap.add_argument("--bytes", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if "EMX" not in os.environ:
        subprocess.run([os.path.join(TOP, "scripts", "setup"), "--quiet"], check=True)
    rates = []
    for k in range(a.runs):
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "s.json")
            subprocess.run([EMX, "run", "-q", "--pes", str(a.pes), "--stats", stats, "bench_mpi_ring",
                            str(a.iter), str(a.bytes)], check=True, stdout=subprocess.DEVNULL)
            with open(stats) as f:
                s = json.load(f)
        msgs = {r["name"]: r["value"] for r in s["results"]}["messages"]
        rates.append(msgs / s["host_seconds"])
        print(f"run {k + 1}: {msgs} messages, {s['cycles']} cycles, {s['host_seconds']:.3f} s host: "
              f"{rates[-1] / 1e3:.0f} k messages/s")
    print(f"median: {statistics.median(rates) / 1e3:.0f} k simulated MPI messages per host second "
          f"({a.pes} ranks)")


if __name__ == "__main__":
    sys.exit(main())
