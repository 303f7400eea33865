#!/usr/bin/env python3
"""Simulated MPI messages per host second: an 80-rank ring exchange of small messages.

    bench/mpi_ring.py [--pes 80] [--iter 1000] [--bytes 8] [--runs 3]
                      [--mode sendrecv|preposted|both] [--variants default|all]

Runs build/programs/bench_mpi_ring.elf: every rank exchanges ITER rounds of BYTES-byte
messages with both ring neighbours, either by MPI_Sendrecv (requests of the two sides
cross: the general path) or with the next round's receives posted before the current
round's sends (MPI-EMX's one-sided send). Prints messages per host second, simulated
instructions and packets per message, for the default variant (both-sides matching)
with -mpi-option=all (staged requests) beside it and the ratio of their host CPU time per
message, or for all six variants. 1000 rounds by default, so that MPI_Init, the barriers and MPI_Finalize (about
1 % of the simulated instructions then, 4 % with 200 rounds) weigh little against the
exchange.
Rates are per host CPU second (the process's CPU time); the wall seconds of the median
run are beside. A benchmark, not a test: the rate depends on the host.
"""
import argparse
import os
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402  (the one place that runs the simulator)
MODES = {"sendrecv": 0, "preposted": 1}
VARIANTS = [(m, p) for m in ("both", "receiver") for p in ("buffered", "get", "sync")]


def measure(a, mode, variant):
    flags = ([] if variant is None else ["-mpi-option=all"] if variant == "all" else
             [f"-mpi-matching={variant[0]}", f"-mpi-protocol={variant[1]}"])
    rates, walls = [], []
    for _ in range(a.runs):
        s = sim.run("bench_mpi_ring", (a.iter, a.bytes, MODES[mode], *flags), pes=a.pes).check()
        msgs = s.results["messages"]
        rates.append(msgs / s.host_cpu_seconds)
        walls.append(s.host_seconds)
    return msgs, s, statistics.median(rates), statistics.median(walls)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=80)
    ap.add_argument("--iter", type=int, default=1000)
    ap.add_argument("--bytes", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mode", choices=["sendrecv", "preposted", "both"], default="both")
    ap.add_argument("--variants", choices=["default", "all"], default="default",
                    help="default: the default library, and beside it -mpi-option=all "
                         "(staged requests) with the host time per message of the two; "
                         "all: the six variants")
    a = ap.parse_args()
    sim.ensure_built()
    modes = ["sendrecv", "preposted"] if a.mode == "both" else [a.mode]
    variants = [None, "all"] if a.variants == "default" else VARIANTS
    per_msg = {}
    print(f"{a.pes} ranks, {a.iter} rounds of 2 messages of {a.bytes} bytes per rank; "
          f"median of {a.runs} runs")
    print(f"{'variant':<20} {'mode':<10} {'k msg/s':>8} {'wall s':>7} {'instr/msg':>10} "
          f"{'packets/msg':>12} {'sim us/round':>13}")
    for v in variants:
        for mode in modes:
            msgs, s, rate, wall = measure(a, mode, v)
            per_msg[(v, mode)] = 1 / rate
            name = ("default (both/get)" if v is None else "-mpi-option=all" if v == "all"
                    else f"{v[0]}/{v[1]}")
            print(f"{name:<20} {mode:<10} {rate / 1e3:>8.0f} {wall:>7.2f} "
                  f"{s.instructions / msgs:>10.0f} "
                  f"{s.network['delivered'] / msgs:>12.1f} "
                  f"{s.simulated_time_ns / 1e3 / a.iter:>13.1f}")
    for mode in modes:
        if (None, mode) in per_msg and ("all", mode) in per_msg:
            print(f"{mode}: host CPU time per message, default / -mpi-option=all: "
                  f"{per_msg[(None, mode)] / per_msg[('all', mode)]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
