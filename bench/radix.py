#!/usr/bin/env python3
"""Host time of the radix sort's largest fine-grain run: 64 PEs, 2.5 M keys, radix 256,
EM-X at 20 MHz (the radix paper's Fig. 5 size; issue target: under 10 s).

    bench/radix.py [--pes 64] [--keys 2500000] [--radix 256] [--config emx80-20mhz]
                   [--program radix_fine] [--runs 3] [--set KEY=VALUE ...]

Runs build/programs/radix_fine.elf and prints the median host seconds, simulated
instructions and packets, and both per host second. A benchmark, not a test: the rate
depends on the host (and on what else runs on it: take the median of several runs).
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMX = os.environ.get("EMX", os.path.join(TOP, "build", "sim", "emx"))


def once(a):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        cmd = [EMX, "run", "-q", "--config", a.config, "--pes", str(a.pes), "--stats", path]
        for s in a.set:
            cmd += ["--set", s]
        subprocess.run(cmd + [a.program, str(a.keys), str(a.radix), "1"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=64)
    ap.add_argument("--keys", type=int, default=2500000)
    ap.add_argument("--radix", type=int, default=256)
    ap.add_argument("--config", default="emx80-20mhz")
    ap.add_argument("--program", default="radix_fine")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    if "EMX" not in os.environ:
        subprocess.run([os.path.join(TOP, "scripts", "setup"), "--quiet"], check=True)
    runs = [once(a) for _ in range(a.runs)]
    host = statistics.median(s["host_cpu_seconds"] for s in runs)
    wall = statistics.median(s["host_seconds"] for s in runs)
    s = runs[0]
    packets = sum(pe["packets_sent"] for pe in s["stats"]["pe"].values())
    each = ", ".join(f"{x['host_cpu_seconds']:.2f}" for x in runs)
    print(f"{a.program} {a.keys} keys, radix {a.radix}, {a.pes} PEs, {a.config}: "
          f"host CPU {host:.2f} s (median of {a.runs}: {each}; wall {wall:.2f} s)")
    print(f"  {s['instructions'] / 1e6:.1f} M instructions, {packets / 1e6:.2f} M packets; "
          f"{s['instructions'] / host / 1e6:.1f} M instructions/s, "
          f"{packets / host / 1e6:.2f} M packets/s")


if __name__ == "__main__":
    main()
