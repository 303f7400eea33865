#!/usr/bin/env python3
"""Whole-machine simulation speed.

    bench/machine.py [--pes 80] [--mixes 40x256,40x512,20x1024,20x2048] [--runs 3]

1. Every PE computes and streams remote writes (build/programs/bench_stream.elf: ROUNDS
   rounds of a radix-counting compute phase and a block of WORDS remote writes to
   another PE), for each mix ROUNDSxWORDS: aggregate simulated instructions per host
   second and network packet-hops per host second (a packet-hop is one link crossed).
   More words per round shift the work from the execution units to the network.
2. The host memory of a 1024-PE machine whose program touches little memory (hello).
3. With --flat ROUNDSxWORDS (issue 25 item 1, streaming PEs: "host CPU per simulated
   instruction at 1024 PEs <= 1.2x that at 80 PEs ... count cost per instruction plus per
   hop"): the same per-PE stream on 80 and on 1024 PEs (--flat-pes), and the host CPU
   time per unit of work of each, where a run's work is what it would cost at the unit
   costs measured on 80 PEs: per instruction, per packet and per packet-hop, fitted by
   least squares to 80-PE runs whose instructions, packets and hops differ (the compute
   phase alone, and the stream sent to one partner at offsets 1 to 79: 1.9 to 5.3 hops a
   packet). The figure is the ratio big / 80 PEs of CPU per unit of work (the goal: at
   most 1.2). Printed beside it: the fit's standard errors, how well it prices each 80-PE
   run, the ratio with the hop's price one standard error either way and with other
   calibrations, and the older figure, CPU per (instruction + hop) with equal weights,
   which counted a deeper network's extra hops (one to two hundred instructions' host
   cost each) as if they were instructions. All runs alternate; CPU and wall medians;
   the load of the host moves the figure (compare within one run). The figure round by
   round follows (each round's runs priced by their own fit) with its median: the host's
   speed drifts between rounds more than within one. Also the item's
   other half: CPU per instruction of computing PEs (bench_compute 4), big / 80 PEs.
   `bench/machine.py --flat 10x512 --runs 5 --mixes "" --no-memory` prints only that.
Rates are per host CPU second (the process's CPU time), with wall seconds beside.
EMX=path/to/emx runs another build (e.g. the one before a change, for a side-by-side) on
this build's bench_stream.elf.
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
                    help="also: CPU per unit of work (instructions, packets and hops at their "
                         "80-PE host cost) on 80 and 1024 PEs, and the ratio")
    ap.add_argument("--flat-pes", type=int, default=1024, help="the large machine of --flat")
    ap.add_argument("--no-memory", action="store_true", help="skip the 1024-PE hello")
    a = ap.parse_args()
    sim.ensure_built()
    # This build's program, also when EMX names another binary (which would run its own
    # build's): a side-by-side then runs the same program.
    program = sim.program_path("bench_stream")
    mixes = [m for m in a.mixes.split(",") if m]
    if mixes:
        print(f"{a.pes} PEs computing and streaming; medians of {a.runs} runs")
        print(f"{'rounds x words':>15} {'instructions':>13} {'packet-hops':>12} {'cycles':>9} "
              f"{'CPU s':>7} {'wall s':>7} {'M instr/s':>10} {'M hops/s':>9}")
    for mix in mixes:
        rounds, words = mix.split("x")
        mips, hops, host, wall = [], [], [], []
        for _ in range(a.runs):
            s = sim.run(program, (rounds, words), pes=a.pes).check()
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
        flat(program, a.flat, a.runs, a.flat_pes)
    if a.no_memory:
        return 0
    # The peak memory of that one child (os.wait4 gives its own usage, not the maximum
    # over all children so far).
    child = subprocess.Popen(sim.command("hello", pes=1024), stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit("the 1024-PE hello run failed")
    print(f"1024 PEs running hello: peak host memory {usage.ru_maxrss / 1024:.0f} MiB")


# --flat's calibration on 80 PEs: the stream to one partner, PE me+OFFSET, for these
# offsets: the same instructions and packets, 1.9 to 5.3 hops a packet (circular omega).
CALIBRATION_OFFSETS = (1, 2, 3, 4, 5, 16, 40, 79)
# The item's computing PEs: program and arguments.
COMPUTE = ("bench_compute", 4)


def solve(a, b):
    """x with a @ x = b (square; Gaussian elimination with partial pivoting)."""
    n = len(a)
    m = [list(map(float, r)) + [float(v)] for r, v in zip(a, b)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[r][n] / m[r][r] for r in range(n)]


def fit(rows, y):
    """Least squares y ~ rows @ x, x >= 0 not enforced: x and its standard errors (0 when
    the rows determine x exactly). Columns are scaled to 1 first (instructions are 100x
    the packets)."""
    k = len(rows[0])
    scale = [max(abs(r[j]) for r in rows) or 1.0 for j in range(k)]
    xs = [[r[j] / scale[j] for j in range(k)] for r in rows]
    ata = [[sum(r[i] * r[j] for r in xs) for j in range(k)] for i in range(k)]
    x = solve(ata, [sum(r[i] * v for r, v in zip(xs, y)) for i in range(k)])
    dof = len(rows) - k
    rss = sum((v - sum(a * b for a, b in zip(r, x))) ** 2 for r, v in zip(xs, y))
    var = [solve(ata, [1.0 if j == i else 0.0 for j in range(k)])[i] * rss / dof if dof else 0.0
           for i in range(k)]
    return [x[j] / scale[j] for j in range(k)], [v ** 0.5 / scale[j] for j, v in enumerate(var)]


def cost(unit, work):
    """The host CPU time of `work` (instructions, packets, hops) at `unit` costs."""
    return sum(u * w for u, w in zip(unit, work))


def flat_ratio(unit, work80, cpu80, work_big, cpu_big):
    """CPU per unit of work (its cost at `unit`) on the big machine over that on 80 PEs."""
    return cpu_big / cost(unit, work_big) / (cpu80 / cost(unit, work80))


def round_ratios(work, cpu, n_calib):
    """flat_ratio round by round: cpu[k][r] is run k's CPU time in round r; the first
    n_calib runs price the work (fit), the last two are the 80-PE and the big machine's
    stream. Each round is priced by its own fit."""
    ratios = []
    for r in range(len(cpu[0])):
        u, _ = fit(work[:n_calib], [cpu[k][r] for k in range(n_calib)])
        ratios.append(flat_ratio(u, work[-2], cpu[-2][r], work[-1], cpu[-1][r]))
    return ratios


def flat(program, mix, runs, big=1024):
    """Issue 25 item 1 for streaming PEs: "host CPU per simulated instruction at 1024 PEs
    <= 1.2x that at 80 PEs ... (the stream's extra hops per PE on a deeper network are real
    work: count cost per instruction plus per hop)".

    The host's unit costs are measured on 80 PEs, by a least-squares fit of CPU time =
    a x instructions + b x packets + c x packet-hops over the stream's compute phase alone
    (`bench_stream ROUNDS 0`: two packets a round) and the whole stream sent to one
    partner at each of CALIBRATION_OFFSETS (same instructions and packets, 1.9 to 5.3 hops
    a packet). A run's work is its cost at those unit costs: the CPU time it would take if
    nothing grew with the machine. The figure is the CPU time per unit of work of the
    stream (`bench_stream ROUNDS WORDS`: a new partner each round) on `big` PEs over that
    of the same per-PE stream on 80 PEs. The older figure, CPU per (instruction + hop) with
    equal weights, is printed beside it: a hop costs the host one to two hundred times an
    instruction, so it counted a deeper network's extra hops as nearly free work.
    Also the item's other half: CPU per instruction of computing PEs (COMPUTE) on `big`
    and 80 PEs. Medians of `runs` runs of each, alternating. `program`: bench_stream's
    ELF."""
    rounds, words = mix.split("x")
    spec = [("compute", 80, (rounds, 0))] + \
        [(f"to +{o}", 80, (rounds, words, 0, o)) for o in CALIBRATION_OFFSETS] + \
        [("stream", 80, (rounds, words)), ("stream", big, (rounds, words))]
    cpu = [[] for _ in spec]
    wall = [[] for _ in spec]
    last = [None] * len(spec)
    # The item's other half, computing PEs (no packets but a few): CPU per instruction.
    computing = {80: [], big: []}
    for _ in range(runs):
        for k, (_, n, args) in enumerate(spec):
            s = sim.run(program, args, pes=n).check()
            cpu[k].append(s.host_cpu_seconds)
            wall[k].append(s.host_seconds)
            last[k] = s
        for n in computing:
            s = sim.run(sim.program_path(COMPUTE[0]), COMPUTE[1:], pes=n).check()
            computing[n].append(s.host_cpu_seconds * 1e9 / s.instructions)
    work = [(s.instructions, s.network["injected"], s.network["hops_sum"]) for s in last]
    med = [statistics.median(c) for c in cpu]
    calib = range(len(spec) - 2)
    unit, err = fit([work[k] for k in calib], [med[k] for k in calib])
    pred = [cost(unit, w) for w in work]
    print(f"\nhost CPU per unit of work, {mix} per PE; medians of {runs} alternating runs; "
          "runs to one partner\n(+offset) and the compute phase alone price the work on 80 PEs")
    print(f"{'run':>8} {'PEs':>5} {'instructions':>13} {'packets':>9} {'packet-hops':>12} "
          f"{'hops/packet':>11} {'CPU s':>7} {'wall s':>7} {'CPU / work':>10}")
    for k, (name, n, _) in enumerate(spec):
        i, p, h = work[k]
        print(f"{name:>8} {n:>5} {i:>13} {p:>9} {h:>12} {h / p:>11.2f} {med[k]:>7.3f} "
              f"{statistics.median(wall[k]):>7.3f} {med[k] / pred[k]:>10.2f}")
    print("unit costs on 80 PEs (fit, +- one standard error): " +
          ", ".join(f"{u * 1e9:.2f} +- {e * 1e9:.2f} ns per {what}"
                    for u, e, what in zip(unit, err, ("instruction", "packet", "hop"))))
    ratio = flat_ratio(unit, work[-2], med[-2], work[-1], med[-1])
    print(f"ratio {big} / 80 PEs, CPU per unit of work: {ratio:.2f} "
          "(issue 25 item 1: at most 1.2)")
    # The same figure round by round (each round's runs priced by its own fit): the host's
    # speed drifts between rounds on a shared machine, and within a round it moves less.
    if runs > 1:
        per_round = round_ratios(work, cpu, len(calib))
        print(f"  round by round: {', '.join(f'{x:.2f}' for x in per_round)}; median "
              f"{statistics.median(per_round):.2f}")
    # The figure hangs on the price of a hop against the rest: with the hop's price one
    # standard error either way (instructions and packets fitted again to the rest).
    spread = []
    for c in (unit[2] - err[2], unit[2] + err[2]):
        ab, _ = fit([work[k][:2] for k in calib], [med[k] - c * work[k][2] for k in calib])
        spread.append(flat_ratio(ab + [c], work[-2], med[-2], work[-1], med[-1]))
    print(f"  with the hop at {(unit[2] - err[2]) * 1e9:.1f} and {(unit[2] + err[2]) * 1e9:.1f} ns "
          f"(one standard error): ratio {spread[0]:.2f} and {spread[1]:.2f}")
    eq = [med[k] * 1e9 / (work[k][0] + work[k][2]) for k in (-2, -1)]
    flat_eq = [pred[k] / (work[k][0] + work[k][2]) for k in (-2, -1)]
    print(f"equal weights, CPU ns per (instruction + hop): 80 PEs {eq[0]:.2f}, {big} PEs "
          f"{eq[1]:.2f}, ratio {eq[1] / eq[0]:.2f} (a simulator flat at the unit costs "
          f"above: {flat_eq[1] / flat_eq[0]:.2f})")
    c80, cbig = (statistics.median(computing[n]) for n in (80, big))
    print(f"computing PEs ({' '.join(map(str, COMPUTE))}), CPU ns per instruction: 80 PEs "
          f"{c80:.3f}, {big} PEs {cbig:.3f}, ratio {cbig / c80:.2f}")
    # How much the figure depends on the calibration: a hop priced between the nearest and
    # the farthest partner alone, or with the stream's own contention (then the 80-PE
    # stream is priced exactly).
    near, far = 1, CALIBRATION_OFFSETS.index(5) + 1
    for name, cal in (("compute, +1, +5", (0, near, far)),
                      ("compute, +1, the stream", (0, near, len(spec) - 2))):
        if work[cal[1]][2] == work[cal[2]][2]:
            continue  # (one round: the stream's partner is PE me+1 too)
        u, _ = fit([work[k] for k in cal], [med[k] for k in cal])
        print(f"  priced from {name} alone: {u[0] * 1e9:.2f} / {u[1] * 1e9:.1f} / "
              f"{u[2] * 1e9:.1f} ns, ratio {flat_ratio(u, work[-2], med[-2], work[-1], med[-1]):.2f}")


if __name__ == "__main__":
    sys.exit(main())
