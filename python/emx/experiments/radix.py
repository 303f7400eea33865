"""'Parallel execution of radix sort programs using fine-grain communication': sequential
speed (Fig. 3), 64-PE speed against size with the ideal line (Fig. 4), the breakdown of
the phases on EM-4, EM-X' and EM-X (Fig. 5), scalability of fine against coarse grain,
and the model T = R (n Tl + r Tg + n Tw). Programs: programs/radix/; page:
docs/experiments/radix.md. Speeds are quoted at 20 MHz as the paper does: EM-X is
emx80-20mhz, EM-X' emx-thread-write with clock_mhz=20 (its config is at 16 MHz), EM-4
em4 at its 12.5 MHz."""
import numpy as np

from emx.experiment import Check, Experiment, Point, Published, Run, about, value

DOC = "docs/experiments/radix.md"
SEED = 1
MACHINES = {  # name: (config, --set)
    "EM-X": ("emx80-20mhz", {}),
    "EM-X'": ("emx-thread-write", {"clock_mhz": 20}),
    "EM-4": ("em4", {}),
}
COLORS = {"EM-X": "#3465a4", "EM-X'": "#73d216", "EM-4": "#cc0000"}
PROGRAM = {"sequential": "radix_seq", "fine": "radix_fine", "coarse": "radix_coarse"}
PHASES = [("count_us", "local count"), ("global_us", "global sum + prefix"),
          ("pack_us", "packing (coarse)"), ("transfer_us", "data transfer"), ("sync_us", "sync")]
K = 1024
PAPER = "radix paper"   # docs/papers.md, "Parallel execution of radix sort programs ..."
COUNT_LOOP = f"{PAPER}, text: the counting loop, 10 instructions, 3 memory references"
FINE_LOOP = f"{PAPER}, text: the fine-grain loop, 16 instructions per remote write"
PACK_LOOP = f"{PAPER}, text: the coarse-grain packing loop, 13 instructions per word"
PUT_LOOP = f"{PAPER}, text: the coarse-grain block-send loop, 2 instructions per word"


def sort_run(machine, grain, keys, radix, pes):
    config, sets = MACHINES[machine]
    return Run(PROGRAM[grain], (keys, radix, SEED), config=config, set=sets, pes=pes)


def sort_figures(params, r):
    res = r.results
    if res.get("verified") != 1:
        raise ValueError(f"the sort did not verify: {r.stdout.strip()}")
    row = {"keys_per_s": res["keys_per_s"], "time_us": res["time_us"],
           "passes": res["passes"], "batch": res["batch"]}
    for name, _ in PHASES:
        row[name] = res[name]
    # Clocks per key and pass of the local count and of the transfer (+ sync): the
    # paper's loop costs (10 clocks counting on EM-X, 13 on EM-4).
    per = r.clock_mhz / (res["passes"] * -(-res["keys"] // res["pes"]))
    row["count_clk_per_key"] = res["count_us"] * per
    row["transfer_clk_per_key"] = (res["pack_us"] + res["transfer_us"] + res["sync_us"]) * per
    row["pack_clk_per_key"] = res["pack_us"] * per
    row["send_clk_per_key"] = res["transfer_us"] * per
    # Instructions per key and pass (the program counts them, instret, around each
    # phase; the transfer of the coarse grain includes its local copies), and per word of
    # the coarse grain's block sends to other PEs (emx_put alone; none on one PE).
    for name, result in (("count", "count"), ("pack", "pack"), ("send", "transfer")):
        row[f"{name}_instr_per_key"] = res[f"{result}_instructions_per_key"]
    row["put_instr_per_word"] = res.get("put_instructions_per_word", float("nan"))
    row["host_s"] = r.host_seconds
    return row


# The largest sizes: two arrays of keys in a PE's memory (pe.memory_bytes: 4 MiB on
# EM-X, 512 KiB on EM-4, 64 KiB of it the input-buffer spill area), less code and heap.
SEQ_SIZES = {"EM-X": [4 * K, 16 * K, 64 * K, 256 * K, 448 * K],
             "EM-4": [4 * K, 8 * K, 16 * K, 32 * K, 44 * K]}
QUICK_SEQ = {"EM-X": [4 * K, 16 * K], "EM-4": [4 * K, 16 * K]}


# ---- Fig. 3: sequential keys/s against size

def seq_runs(opt):
    for machine, sizes in (QUICK_SEQ if opt.quick else SEQ_SIZES).items():
        for radix in (64, 256):
            for n in sizes:
                yield Point({"machine": machine, "radix": radix, "keys": n},
                            sort_run(machine, "sequential", n, radix, 1))


def seq_plot(df, fig):
    ax = fig.subplots()
    for (machine, radix), g in df.groupby(["machine", "radix"]):
        g = g.sort_values("keys")
        ax.plot(g["keys"], g["keys_per_s"] / 1e6, marker="o" if radix == 256 else "s",
                linestyle="-" if radix == 256 else "--", color=COLORS[machine],
                label=f"{machine}, radix {radix}")
    ax.set_xscale("log")
    ax.set_xlabel("keys")
    ax.set_ylabel("million keys sorted per second (20 MHz; EM-4 12.5 MHz)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


# ---- Fig. 4: 64 PEs, keys/s against total size, with the ideal line

PAR_SIZES = {"EM-X": [64 * K, 256 * K, 1024 * K, 2500000, 8192 * K],
             "EM-4": [64 * K, 256 * K, 1024 * K, 2500000]}
QUICK_PAR = {"EM-X": [64 * K, 256 * K], "EM-4": [64 * K, 256 * K]}


def par_runs(opt):
    pes = opt["pes"]
    for machine, sizes in (QUICK_PAR if opt.quick else PAR_SIZES).items():
        for radix in (64, 256):
            for n in sizes:
                yield Point({"machine": machine, "radix": radix, "keys": n, "grain": "fine",
                             "pes": pes},
                            sort_run(machine, "fine", n, radix, pes))
                # The ideal line: one PE's speed on its share of the keys, times P.
                yield Point({"machine": machine, "radix": radix, "keys": n,
                             "grain": "sequential", "pes": pes},
                            sort_run(machine, "sequential", -(-n // pes), radix, 1))


def par_derive(df):
    seq = df[df["grain"] == "sequential"].set_index(["machine", "radix", "keys"])["keys_per_s"]
    df = df[df["grain"] == "fine"].copy()
    df["ideal_keys_per_s"] = [seq[(m, r, n)] * p for m, r, n, p in
                              zip(df["machine"], df["radix"], df["keys"], df["pes"])]
    df["of_ideal"] = df["keys_per_s"] / df["ideal_keys_per_s"]
    return df


def par_plot(df, fig):
    ax = fig.subplots()
    for (machine, radix), g in df.groupby(["machine", "radix"]):
        g = g.sort_values("keys")
        style = {"color": COLORS[machine], "linestyle": "-" if radix == 256 else "--"}
        ax.plot(g["keys"], g["keys_per_s"] / 1e6, marker="o", label=f"{machine}, radix {radix}",
                **style)
        ax.plot(g["keys"], g["ideal_keys_per_s"] / 1e6, linewidth=0.8, alpha=0.6,
                label=f"ideal (sequential x 64), {machine} radix {radix}", **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total keys (64 PEs)")
    ax.set_ylabel("million keys per second")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)


# ---- Fig. 5: breakdown at 64 PEs, 2.5 M keys, radix 256

def breakdown_runs(opt):
    n = 64 * K if opt.quick else 2500000
    for machine in ("EM-4", "EM-X'", "EM-X"):
        yield Point({"machine": machine, "keys": n, "radix": 256, "pes": opt["pes"]},
                    sort_run(machine, "fine", n, 256, opt["pes"]))


def breakdown_plot(df, fig):
    ax = fig.subplots()
    bottom = np.zeros(len(df))
    colors = ["#3465a4", "#f57900", "#888a85", "#73d216", "#75507b"]
    for (name, label), c in zip(PHASES, colors):
        ax.bar(df["machine"], df[name] / 1e3, bottom=bottom, color=c, label=label)
        bottom += df[name].to_numpy() / 1e3
    ax.set_ylabel("ms (phase maximum over PEs, summed over the passes)")
    ax.set_title(f"64 PEs, {int(df['keys'].iloc[0])} keys, radix 256", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)


# ---- Scalability: 256 K keys per PE, radix 64, P = 1 .. 64, fine against coarse

def scal_runs(opt):
    per_pe = 16 * K if opt.quick else opt["keys_per_pe"]
    for pes in ([1, 4, 16] if opt.quick else [1, 2, 4, 8, 16, 32, 64]):
        for grain in ("fine", "coarse"):
            yield Point({"machine": "EM-X", "grain": grain, "pes": pes,
                         "keys": per_pe * pes, "radix": 64},
                        sort_run("EM-X", grain, per_pe * pes, 64, pes))


def scal_plot(df, fig):
    ax = fig.subplots()
    for grain, g in df.groupby("grain"):
        g = g.sort_values("pes")
        style = {"linestyle": "-" if grain == "fine" else "--"}
        ax.plot(g["pes"], g["time_us"] / 1e3, marker="o", color="#3465a4",
                label=f"{grain}: total", **style)
        ax.plot(g["pes"], (g["pack_us"] + g["transfer_us"] + g["sync_us"]) / 1e3, marker="s",
                color="#f57900", label=f"{grain}: (pack +) transfer + sync", **style)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("PEs (keys per PE fixed)")
    ax.set_ylabel("ms")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


# ---- The model T = R (n Tl + r Tg + n Tw), fitted to the measured phases

def model_runs(opt):
    for p in par_runs(opt):
        if p.params["machine"] == "EM-X" and p.params["grain"] == "fine":
            yield Point({**p.params, "sweep": "size", "pes": opt["pes"]}, p.run)
    for p in scal_runs(opt):
        if p.params["grain"] == "fine":
            yield Point({**p.params, "sweep": "pes"}, p.run)


def model_derive(df):
    """Tl, Tg, Tw by least squares through the origin of each phase against its term
    (count ~ R n, global ~ R r, transfer + sync ~ R n), over every run with P > 1."""
    df = df.copy()
    df["n"] = df["keys"] / df["pes"]
    par = df[df["pes"] > 1]

    def fit(y, x):
        return float((x * y).sum() / (x * x).sum())

    rn, rr = par["passes"] * par["n"], par["passes"] * par["radix"]
    tl = fit(par["count_us"], rn)
    tg = fit(par["global_us"], rr)
    tw = fit(par["transfer_us"] + par["sync_us"], rn)
    df["Tl_us"], df["Tg_us"], df["Tw_us"] = tl, tg, tw
    df["model_us"] = df["passes"] * (df["n"] * tl + df["radix"] * tg + df["n"] * tw)
    df["model_error"] = df["model_us"] / df["time_us"] - 1
    return df


def model_plot(df, fig):
    axes = fig.subplots(1, 2)
    for ax, (sweep, x, label) in zip(axes, (("size", "keys", "total keys (64 PEs)"),
                                            ("pes", "pes", "PEs (256 K keys each)"))):
        for radix, g in df[df["sweep"] == sweep].groupby("radix"):
            g = g.sort_values(x)
            ax.plot(g[x], g["time_us"] / 1e3, "o-", label=f"measured, radix {radix}")
            ax.plot(g[x], g["model_us"] / 1e3, "s--", label=f"model, radix {radix}")
        ax.set_xscale("log", base=2 if sweep == "pes" else 10)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("ms")
    r = df.iloc[0]
    axes[0].set_title(f"fit: Tl = {r['Tl_us'] * 20:.1f}, Tg = {r['Tg_us'] * 20:.1f}, "
                      f"Tw = {r['Tw_us'] * 20:.1f} clocks (20 MHz)", fontsize=8)


# ---- The paper's statements about its figures, as checks of the tables

def _ratio(t, column, a, b, **where):
    return value(t, column, machine=a, **where) / value(t, column, machine=b, **where)


def _of_ideal_emx(t):
    """The fraction of ideal EM-X reaches, judged from 2.5 M keys (the breakdown's size)
    up: the lowest over those sizes, per radix (docs/experiments/radix.md, section 6,
    "Statement 1: which sizes")."""
    big = t[(t["machine"] == "EM-X") & (t["keys"] >= 2500000)]
    if big.empty:  # a quick run stops far below
        raise KeyError("EM-X from 2.5 M keys")
    out = {}
    for r, g in big.groupby("radix"):
        low = g.loc[g["of_ideal"].idxmin()]
        out[f"EM-X radix {r}, lowest from 2.5 M keys (at {int(low['keys'])} keys)"] = \
            low["of_ideal"]
    return out


def _radix64_over_256(t):
    out = {}
    for m in ("EM-X", "EM-4"):
        for n, label in ((256 * K, "256 K"), (1024 * K, "1 M")):
            out[f"{m} {label} keys: radix 64 / radix 256 speed"] = (
                value(t, "keys_per_s", machine=m, keys=n, radix=64)
                / value(t, "keys_per_s", machine=m, keys=n, radix=256))
    return out


def _breakdown(t):
    return {"EM-4 / EM-X' time": _ratio(t, "time_us", "EM-4", "EM-X'"),
            "clock 20 / 12.5 MHz": 1.6,
            "EM-4 / EM-X' clocks": _ratio(t, "time_us", "EM-4", "EM-X'") / 1.6}


def _emx_vs_emx_prime(t):
    total = value(t, "time_us", machine="EM-X'") - value(t, "time_us", machine="EM-X")
    moved = value(t, "transfer_us", machine="EM-X'") - value(t, "transfer_us", machine="EM-X")
    return {"EM-X' / EM-X transfer time": _ratio(t, "transfer_us", "EM-X'", "EM-X"),
            "EM-X' / EM-X local count": _ratio(t, "count_us", "EM-X'", "EM-X"),
            "transfer's share of the difference": moved / total}


def _scaling(t):
    def at(grain, pes, col):
        return value(t, col, grain=grain, pes=pes)
    top = int(t["pes"].max())
    xfer = [c for c in ("transfer_us", "sync_us")]
    return {f"fine total, {top} / 1 PE": at("fine", top, "time_us") / at("fine", 1, "time_us"),
            f"fine transfer + sync, {top} / 1 PE":
                sum(at("fine", top, c) for c in xfer) / sum(at("fine", 1, c) for c in xfer),
            f"coarse total, {top} / 1 PE": at("coarse", top, "time_us") / at("coarse", 1, "time_us")}


RADIX_CHECKS = {
    "parallel": [
        Check("On 64 PEs EM-X reaches 80 % or more of the ideal speed (the sequential speed "
              "times 64).", f"{PAPER}, Fig. 4", _of_ideal_emx,
              lambda f: min(f.values()) >= 0.8,
              "the fraction of ideal >= 0.80 from 2.5 M keys, both radices"),
        Check("EM-4 reaches only about half of the ideal speed.", f"{PAPER}, Fig. 4",
              lambda t: {"EM-4 radix 256, 2.5 M keys": value(t, "of_ideal", machine="EM-4",
                                                              radix=256, keys=2500000)},
              lambda f: 0.4 <= min(f.values()) <= 0.6, "0.40 <= fraction of ideal <= 0.60"),
        Check("Because of the global step's overhead, radix 64 is faster than radix 256 up "
              "to 256 K words in total, on EM-X and on EM-4; radix 256 is faster above.",
              f"{PAPER}, Fig. 4", _radix64_over_256,
              lambda f: all((v > 1) == (" 256 K " in k) for k, v in f.items()),
              "radix 64 / radix 256 > 1 at 256 K keys and < 1 at 1 M, on both machines"),
    ],
    "breakdown": [
        Check("EM-X' (EM-X with thread-invoked remote writes, as EM-4) sorts 2.5 M words "
              "on 64 PEs with radix 256 about 2.5 times as fast as EM-4; the clock accounts "
              "for 1.6, the rest is the instruction set and the memory access.",
              f"{PAPER}, Fig. 5", _breakdown,
              lambda f: about(f["EM-4 / EM-X' time"], 2.5), "EM-4 / EM-X' time = 2.5 +- 10 %"),
        Check("EM-X and EM-X' take the same time except for the data transfer, which is "
              "about 1.7 times faster on EM-X.", f"{PAPER}, Fig. 5", _emx_vs_emx_prime,
              lambda f: about(f["EM-X' / EM-X transfer time"], 1.7)
              and about(f["EM-X' / EM-X local count"], 1.0, 0.02)
              and f["transfer's share of the difference"] >= 0.8,
              "transfer ratio = 1.7 +- 10 %, equal counts, the transfer >= 80 % of the difference"),
        Check("Without suspension for the scheduling of remote writes the kernel (transfer) "
              "loop runs about 1.5 times faster.", f"{PAPER}, Fig. 5",
              lambda t: {"EM-X' / EM-X transfer clocks per key":
                         _ratio(t, "transfer_clk_per_key", "EM-X'", "EM-X")},
              lambda f: about(min(f.values()), 1.5), "ratio = 1.5 +- 10 %"),
    ],
    "scalability": [
        Check("With 256 K words per PE and radix 64, EM-X's total time and transfer time stay "
              "flat from 1 to 64 PEs; a coarse-grain version that sends packed blocks grows.",
              f"{PAPER}, Fig. 8", _scaling,
              lambda f: all(v <= 1.05 for k, v in f.items() if k.startswith("fine"))
              and all(v >= 1.10 for k, v in f.items() if k.startswith("coarse")),
              "fine grain within 5 % of 1 PE at the most PEs; coarse grain 10 % or more slower"),
    ],
    "sequential": [
        Check("EM-X runs the counting loop about 30 % faster than EM-4: 10 against 13 clocks "
              "(one extra clock per memory reference on EM-4).", f"{PAPER}, text",
              lambda t: {"EM-4 / EM-X counting clocks per key":
                         _ratio(t, "count_clk_per_key", "EM-4", "EM-X")},
              lambda f: about(min(f.values()), 1.3, 0.05), "ratio = 1.3 +- 5 %"),
    ],
}

EXPERIMENTS = [
    Experiment("radix.sequential", "radix",
               "Sequential radix sort: keys per second against size, radix 64 and 256, "
               "EM-X and EM-4 (Fig. 3)",
               seq_runs, sort_figures, plot=seq_plot, doc=DOC,
               published=[Published("count_clk_per_key", 10, {"machine": "EM-X"}, COUNT_LOOP,
                                    "clocks", tolerance=5),
                          Published("count_clk_per_key", 13, {"machine": "EM-4"}, COUNT_LOOP,
                                    "clocks", tolerance=5),
                          Published("count_instr_per_key", 10, {"machine": "EM-X"}, COUNT_LOOP,
                                    "instructions", tolerance=5)],
               checks=RADIX_CHECKS["sequential"],
               quick="4 K and 16 K keys per machine instead of up to the memory's limit; "
                     "the speed does not depend on the size (no cache), so the figures "
                     "equal the full run's."),
    Experiment("radix.parallel", "radix",
               "64 PEs, fine grain: keys per second against total size, radix 64 and 256, "
               "EM-X and EM-4, with the ideal line (Fig. 4)",
               par_runs, sort_figures, plot=par_plot, derive=par_derive,
               params={"pes": 64}, doc=DOC, checks=RADIX_CHECKS["parallel"],
               quick="64 K and 256 K keys only (the full run goes to 2.5 M on EM-4, 8 M on "
                     "EM-X): the fraction of ideal is lowest at small sizes, and the "
                     "statements about large sizes are left unmeasured."),
    Experiment("radix.breakdown", "radix",
               "Phases at 64 PEs, 2.5 M keys, radix 256: EM-4, EM-X', EM-X (Fig. 5)",
               breakdown_runs, sort_figures, plot=breakdown_plot, params={"pes": 64},
               doc=DOC, checks=RADIX_CHECKS["breakdown"],
               quick="64 K keys instead of 2.5 M: the global step and the sync, fixed costs "
                     "per pass, weigh far more, so the ratios between machines are smaller."),
    Experiment("radix.scalability", "radix",
               "256 K keys per PE, radix 64, 1 to 64 PEs: total and transfer time, fine "
               "against coarse grain (EM-X)",
               scal_runs, sort_figures, plot=scal_plot, params={"keys_per_pe": 256 * K},
               doc=DOC, checks=RADIX_CHECKS["scalability"],
               # The paper counts these loops' instructions: compared with the
               # instructions the program counted (the clocks are in the table beside).
               published=[
                   Published("send_instr_per_key", 16, {"grain": "fine"}, FINE_LOOP,
                             "instructions", tolerance=5),
                   Published("pack_instr_per_key", 13, {"grain": "coarse"}, PACK_LOOP,
                             "instructions", tolerance=5),
                   Published("put_instr_per_word", 2, {"grain": "coarse"}, PUT_LOOP,
                             "instructions", tolerance=5)],
               quick="16 K keys per PE on 1, 4 and 16 PEs (the full run: 256 K per PE, 1 to "
                     "64 PEs): the per-pass fixed costs weigh more, and the coarse grain's "
                     "network contention, which grows with the PE count, is smaller."),
    Experiment("radix.model", "radix",
               "The model T = R (n Tl + r Tg + n Tw) fitted to the measured phases, against "
               "size (64 PEs) and PE count (EM-X, fine grain)",
               model_runs, sort_figures, plot=model_plot, derive=model_derive,
               params={"pes": 64, "keys_per_pe": 256 * K}, doc=DOC,
               quick="the quick sizes of radix.parallel and radix.scalability: the fit rests "
                     "on small sorts, where the per-pass costs the model leaves out weigh "
                     "most, so Tg comes out larger."),
]
