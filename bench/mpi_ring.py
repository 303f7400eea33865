#!/usr/bin/env python3
"""Simulated MPI messages per host second: an 80-rank ring exchange of small messages.

    bench/mpi_ring.py [--pes 80] [--iter 1000] [--bytes 8] [--runs 3]
                      [--mode sendrecv|preposted|both] [--variants default|all]
                      [--against OTHER_EMX] [--host-instructions [--smpi]]

Runs build/programs/bench_mpi_ring.elf: every rank exchanges ITER rounds of BYTES-byte
messages with both ring neighbours, either by MPI_Sendrecv (requests of the two sides
cross: the general path) or with the next round's receives posted before the current
round's sends (MPI-EMX's one-sided send). Prints messages per host second, simulated
instructions and packets per message, for the default variant (both-sides matching)
with -mpi-option=all (staged requests) beside it and the ratio of their host CPU time per
message (of the medians, and run by run with its median: each round of runs takes every
variant in turn, so that the two runs of a pair meet the same load), or for all six
variants. 1000 rounds by default, so that MPI_Init, the barriers and MPI_Finalize (about
1 % of the simulated instructions then, 4 % with 200 rounds) weigh little against the
exchange.
Rates are per host CPU second (the process's CPU time); the wall seconds of the median
run are beside. A benchmark, not a test: the rate depends on the host.
--against OTHER_EMX: before/after. Each run is made with this build's emx and then with
OTHER_EMX (for example a copy of main's build/sim/emx), alternately, so that both meet
the same load; prints both rates, the ratio of their medians, and checks that the
simulated figures are the same.
--host-instructions: instead, runs each once under valgrind's cachegrind (apt-get install
valgrind) and prints the host instructions per simulated message, by the simulator's
component (the ISS with its translated blocks, the network with its driver and output
ports, the SystemC kernel, the PE and machine glue): a count that, unlike CPU time, does
not depend on the host's load, so a change's effect shows in one run (use --iter 300:
valgrind runs it ~20x slower). With --smpi, the same ring under SimGrid SMPI beside
(bench/smpi_ring.sh with SMPI_HOST_INSTRUCTIONS=1) and the message rate of each emx
variant against it in host instructions: a ratio the load does not move, unlike CPU time
(SMPI's kernel time, for its globals' privatisation, is not in it, so the ratio in CPU
time is higher).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402  (the one place that runs the simulator)
MODES = {"sendrecv": 0, "preposted": 1}
VARIANTS = [(m, p) for m in ("both", "receiver") for p in ("buffered", "get", "sync")]


def flags_of(variant):
    """The emx arguments of a variant: None (the default library), "all", or a pair."""
    return ([] if variant is None else ["-mpi-option=all"] if variant == "all" else
            [f"-mpi-matching={variant[0]}", f"-mpi-protocol={variant[1]}"])


def name_of(variant):
    return ("default (both/get)" if variant is None else "-mpi-option=all" if variant == "all"
            else f"{variant[0]}/{variant[1]}")


def measure(a, mode, variants):
    """Per variant: (messages, the last run's statistics, {binary: (median rate, median
    wall)}) for this build's binary ("this") and a.against's; and the rates run by run
    ({(variant, binary): [rate]}). Every run round takes each variant and binary once, in
    turn, so that runs compared with each other meet the same load."""
    binaries = {"this": sim.binary()}
    if a.against:
        binaries["against"] = os.path.abspath(a.against)
    rates = {(v, b): [] for v in variants for b in binaries}
    walls = {(v, b): [] for v in variants for b in binaries}
    figures, last = {}, {}
    for _ in range(a.runs):
        for v in variants:
            for b, path in binaries.items():
                os.environ["EMX"] = path
                s = sim.run(sim.program_path("bench_mpi_ring"),
                            (a.iter, a.bytes, MODES[mode], *flags_of(v)), pes=a.pes).check()
                rates[(v, b)].append(s.results["messages"] / s.host_cpu_seconds)
                walls[(v, b)].append(s.host_seconds)
                figures[(v, b)] = (s.cycles, s.instructions, s.network)
                last[v] = s
    os.environ["EMX"] = binaries["this"]
    out = {}
    for v in variants:
        if a.against and figures[(v, "this")] != figures[(v, "against")]:
            print(f"  simulated figures differ: {figures[(v, 'this')][:2]} here, "
                  f"{figures[(v, 'against')][:2]} with {a.against}")
        med = {b: (statistics.median(rates[(v, b)]), statistics.median(walls[(v, b)]))
               for b in binaries}
        out[v] = (last[v].results["messages"], last[v], med)
    return out, rates


def pair_ratios(rates, a, b):
    """Host CPU time per message of variant a over variant b, round by round of runs (the
    two ran one after the other), on this build's binary."""
    return [rb / ra for ra, rb in zip(rates[(a, "this")], rates[(b, "this")])]


# Host functions by component, tried in this order on the function's qualified name. Code
# without a name ("???:???") is the ISS's translated blocks (sim/iss/translate.cpp).
COMPONENTS = [
    ("ISS", ("emx::iss::", "???:???")),
    ("network", ("emx::net::", "NetworkDriver::", "OutputPorts::", "EarliestClock")),
    ("SystemC kernel", ("sc_core::", "sc_cor", "qt_")),
    ("PE and machine", ("emx::pe::", "emx::machine::")),
]


def host_instructions(a, mode, flags):
    """Host instructions per simulated message: total and by component (cachegrind)."""
    with tempfile.TemporaryDirectory() as d:
        out, stats = os.path.join(d, "cg.out"), os.path.join(d, "s.json")
        subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                        f"--cachegrind-out-file={out}", sim.binary(), "run", "-q",
                        "--pes", str(a.pes), "--stats", stats,
                        sim.program_path("bench_mpi_ring"), str(a.iter), str(a.bytes),
                        str(MODES[mode]), *flags], check=True, capture_output=True)
        with open(stats) as f:
            msgs = next(r["value"] for r in json.load(f)["results"] if r["name"] == "messages")
        listing = subprocess.run(["cg_annotate", "--auto=no", "--show=Ir", "--threshold=0", out],
                                 check=True, capture_output=True, text=True).stdout
    parts = {name: 0 for name, _ in COMPONENTS}
    parts["other"] = total = 0
    for line in listing.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)$", line)
        if not m:
            continue
        count, name = int(m.group(1).replace(",", "")), m.group(2)
        # A std::function's handler belongs where its functor does (the text after the
        # signature: a lambda is named by the function it is written in).
        if "_Function_handler<" in name.split("(")[0] and "), " in name:
            name = name.split("), ", 1)[1]
        function = name.split("(")[0]
        if "PROGRAM TOTALS" in function:
            total = count
            continue
        part = next((name for name, keys in COMPONENTS if any(k in function for k in keys)),
                    "other")
        parts[part] += count
    return total / msgs, {k: v / msgs for k, v in parts.items()}


def smpi_host_instructions(a, mode):
    """SimGrid SMPI's host instructions per message, the same ring (bench/smpi_ring.sh)."""
    out = subprocess.run(["sh", os.path.join(TOP, "bench", "smpi_ring.sh"), str(a.pes), str(a.iter),
                          str(a.bytes), str(MODES[mode])], check=True, capture_output=True,
                         text=True, env={**os.environ, "SMPI_HOST_INSTRUCTIONS": "1"}).stdout
    total = int(re.search(r"(\d+) host instructions", out).group(1))
    return total / (a.pes * a.iter * 2)


def print_host_instructions(a, modes, variants):
    if not shutil.which("valgrind"):
        sys.exit("--host-instructions needs valgrind: apt-get install valgrind")
    print(f"{a.pes} ranks, {a.iter} rounds of 2 messages of {a.bytes} bytes per rank; host "
          "instructions per simulated message (start-up and end included)")
    names = [name for name, _ in COMPONENTS] + ["other"]
    print(f"{'variant':<20} {'mode':<10} {'total':>8} " + " ".join(f"{n:>15}" for n in names))
    totals = {}
    for v in variants:
        for mode in modes:
            total, parts = host_instructions(a, mode, flags_of(v))
            totals[(v, mode)] = total
            print(f"{name_of(v):<20} {mode:<10} {total:>8.0f} " +
                  " ".join(f"{parts[n]:>15.0f}" for n in names))
    if not a.smpi:
        return
    smpi = {mode: smpi_host_instructions(a, mode) for mode in modes}
    for mode in modes:
        print(f"{'SimGrid SMPI':<20} {mode:<10} {smpi[mode]:>8.0f}")
    print("message rate against SMPI in host instructions (SMPI's per message / emx's; SMPI's "
          "system time, which valgrind does not count, comes on top):")
    for v in variants:
        print(f"  {name_of(v):<20} " +
              "  ".join(f"{mode} {smpi[mode] / totals[(v, mode)]:.2f}x" for mode in modes))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=80)
    ap.add_argument("--iter", type=int, default=1000)
    ap.add_argument("--bytes", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mode", choices=["sendrecv", "preposted", "both"], default="both")
    ap.add_argument("--against", metavar="OTHER_EMX",
                    help="another emx binary, run alternately with this build's")
    ap.add_argument("--variants", choices=["default", "all"], default="default",
                    help="default: the default library, and beside it -mpi-option=all "
                         "(staged requests) with the host time per message of the two; "
                         "all: the six variants")
    ap.add_argument("--host-instructions", action="store_true",
                    help="host instructions per message by component, under valgrind")
    ap.add_argument("--smpi", action="store_true",
                    help="with --host-instructions: SimGrid SMPI's beside, and the ratios "
                         "(bench/smpi_ring.sh; apt-get install libsimgrid-dev)")
    a = ap.parse_args()
    sim.ensure_built()
    os.environ["EMX"] = sim.binary()  # this build's, also when --against switches
    modes = ["sendrecv", "preposted"] if a.mode == "both" else [a.mode]
    variants = [None, "all"] if a.variants == "default" else VARIANTS
    if a.host_instructions:
        print_host_instructions(a, modes, variants)
        return 0
    per_msg = {}
    print(f"{a.pes} ranks, {a.iter} rounds of 2 messages of {a.bytes} bytes per rank; "
          f"median of {a.runs} runs")
    against = (f" {'k msg/s':>8} {'wall s':>7} {'ratio':>6}" if a.against else "")
    print(f"{'variant':<20} {'mode':<10} {'k msg/s':>8} {'wall s':>7}{against} "
          f"{'instr/msg':>10} {'packets/msg':>12} {'sim us/round':>13}")
    if a.against:
        print(f"{'':<31}(this build)    (--against)")
    by_mode = {mode: measure(a, mode, variants) for mode in modes}
    for v in variants:
        for mode in modes:
            msgs, s, med = by_mode[mode][0][v]
            rate, wall = med["this"]
            per_msg[(v, mode)] = 1 / rate
            name = name_of(v)
            other = ""
            if a.against:
                o_rate, o_wall = med["against"]
                other = f" {o_rate / 1e3:>8.0f} {o_wall:>7.2f} {rate / o_rate:>6.2f}"
            print(f"{name:<20} {mode:<10} {rate / 1e3:>8.0f} {wall:>7.2f}{other} "
                  f"{s.instructions / msgs:>10.0f} "
                  f"{s.network['delivered'] / msgs:>12.1f} "
                  f"{s.simulated_time_ns / 1e3 / a.iter:>13.1f}")
    for mode in modes:
        if (None, mode) in per_msg and ("all", mode) in per_msg:
            pairs = pair_ratios(by_mode[mode][1], None, "all")
            print(f"{mode}: host CPU time per message, default / -mpi-option=all: "
                  f"{per_msg[(None, mode)] / per_msg[('all', mode)]:.2f} (medians); run by "
                  f"run {', '.join(f'{x:.2f}' for x in pairs)}, median "
                  f"{statistics.median(pairs):.2f}")


if __name__ == "__main__":
    sys.exit(main())
