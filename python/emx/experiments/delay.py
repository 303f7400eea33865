"""'Efficient irregular many-to-many communication in MPI programs by delay insertion':
the delta sweep on gather, every pattern with Ring / proposed / MPI collectives on the
single-switch topology and on the circular omega network, and the LogGP prediction against
the simulated makespan. Scheduler and model: python/emx/delay; program:
programs/mpi/delay_sched.c; docs/experiments/delay-insertion.md.

A schedule reaches the program inline, as an argument (Schedule.text()), so the run's cache
key contains it: a changed scheduler gives new runs."""
from __future__ import annotations

from functools import lru_cache

from emx.delay import SCHEDULERS, fit, named, predict
from emx.delay.model import RECEIVE_GAPS
from emx.experiment import Check, Experiment, Point, Run

CONFIG = "emx80-16mhz"
DOC = "docs/experiments/delay-insertion.md"
TOPOLOGIES = ["single_switch", "circular_omega"]


def _gather_over_ring(t):
    g = t[(t["pattern"] == "gather") & (t["topology"] == "single_switch") &
          (t["method"] == "proposed")]
    if g.empty:
        raise KeyError("gather on single_switch")
    return {f"{int(b)} B: Ring / proposed makespan": s
            for b, s in g.groupby("bytes")["speedup_over_ring"].first().items()}


# docs/papers.md, delay-insertion paper: the statement the patterns experiment checks.
GATHER_CHECK = Check(
    "The Ring schedule applied to an irregular pattern creates contention at a destination "
    "(gather is the example), which the proposed schedule's delay slots avoid.",
    "delay-insertion paper, text (Ring schedule on irregular patterns)", _gather_over_ring,
    lambda f: all(v > 1 for v in f.values()),
    "on gather over the single switch, Ring's makespan / the proposed one's > 1 at every size")
PATTERNS = ["scatter", "gather", "alltoall", "triangle", "ba4", "ba7", "ba12", "ba17", "ba28"]
QUICK_PATTERNS = ["gather", "alltoall", "ba4"]
SEED = 1             # Barabási–Albert graphs
REPS = 2             # one warm-up repetition, one timed
# The MPI collective(s) each pattern is compared with; the irregular ones with Alltoallv.
COLLECTIVES = {"scatter": ["scatter", "bcast"], "gather": ["gather"],
               "alltoall": ["alltoall", "allgather"]}


# delta units. "slot" (the paper's): delta = f I(k), I(k) measured by the program. "link"
# (ours): delta = f times the clocks the destination's link needs for the message (a packet
# carries one 32-bit data word in 2 words at network.clocks_per_word = 1 clock each:
# network/README.md), less what emx_delay adds to any wait (25 clocks on EM-X, measured by
# rt_delay), so that at f = 1 messages reach a destination one link time apart.
CLOCKS_PER_WORD = 1
DELAY_CALL_CLOCKS = 25


def link_clocks(k: int) -> int:
    return 2 * CLOCKS_PER_WORD * ((k + 3) // 4)


def delta_arg(unit: str, f: float, k: int) -> str:
    if unit == "slot":
        return f"{f}i"
    if unit == "link":
        return str(max(0, round(f * link_clocks(k)) - DELAY_CALL_CLOCKS))
    raise ValueError(f"delta unit must be slot or link, not {unit!r}")


@lru_cache(maxsize=None)
def schedule(pattern: str, n: int, scheduler: str):
    return SCHEDULERS[scheduler](named(pattern, n, seed=SEED))


@lru_cache(maxsize=None)
def schedule_text(pattern: str, n: int, scheduler: str) -> str:
    """schedule(...).text(), made once: every size, topology and delta of a pattern runs
    the same schedule (its text, kilobytes, was a third of planning a reproduction)."""
    return schedule(pattern, n, scheduler).text()


# Methods: a schedule with its delta unit, or an MPI collective (by its MODE name).
SCHEDULED = {"ring": ("ring", None), "proposed": ("proposed", "slot"),
             "proposed_link": ("proposed", "link")}


def case_run(pattern, n, method, k, delta, topology, config=CONFIG) -> Run:
    """One execution of `method` (SCHEDULED, or a collective: the pattern is then what the
    collective moves) with delay factor `delta` in the method's unit."""
    if method in SCHEDULED:
        scheduler, unit = SCHEDULED[method]
        args = ("sched", schedule_text(pattern, n, scheduler), k,
                delta_arg(unit, delta, k) if unit else "0", REPS)
    else:
        args = (method, schedule_text(pattern, n, "ring"), k, "0", REPS)
    return Run("mpi_delay_sched", args, config=config, pes=n,
               set={"network.topology": topology})


def methods(pattern, n):
    """Ring, proposed with each delta unit (one when the schedule has no delays: then they
    are the same run), the pattern's collectives."""
    delays = schedule(pattern, n, "proposed").delays
    return ["ring", "proposed"] + (["proposed_link"] if delays else []) + \
        COLLECTIVES.get(pattern, ["alltoallv"])


def execution_figures(params, r):
    res = r.results
    if res["errors"]:
        raise ValueError(f"{res['errors']} bytes arrived wrong")
    net = r.network
    # Busy clocks over the whole run, against the clocks of the REPS executions: close to
    # the utilisation while they ran (the rest of the run sends little).
    span = max(REPS * res["makespan_cycles"], 1)
    return {"makespan_cycles": res["makespan_cycles"],
            "makespan_us": res["makespan_cycles"] / r.clock_mhz,
            "slot_cycles": res["slot_cycles"], "delta_cycles": res["delta_cycles"],
            "messages": res["messages"],
            # Where contention shows (summed over the whole run: init, warm-up, timed):
            "send_stall_cycles": r.pe_sum("send_stall_cycles"),
            "latency_mean": net.get("latency_mean", 0.0),
            "latency_max": net.get("latency_max", 0),
            "max_link_util": max((l["busy_clocks"] for l in net.get("links", [])
                                  if l["kind"] != "host_in" and l["kind"] != "host_out"),
                                 default=0) / span,
            "max_ejection_util": max((e["busy_clocks"] for e in net.get("ejection", [])),
                                     default=0) / span,
            "input_buffer_max": max(p["input_buffer"]["max_occupancy"] for p in r.pe.values())}


# ---- 1. the delta sweep on gather

DELTAS = {"slot": [0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.25, 1.5],
          "link": [0.6, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5]}
QUICK_DELTAS = {"slot": [0, 0.6, 1.0], "link": [1.0]}


def delta_runs(opt):
    n = 16 if opt.quick else opt["pes"]
    sizes = [256] if opt.quick else list(opt["sizes"])
    for t in TOPOLOGIES:
        for k in sizes:
            common = {"topology": t, "bytes": k, "pes": n}
            for unit, factors in (QUICK_DELTAS if opt.quick else DELTAS).items():
                method = "proposed" if unit == "slot" else "proposed_link"
                for f in factors:
                    yield Point({**common, "schedule": "proposed", "unit": unit, "delta": f},
                                case_run("gather", n, method, k, f, t))
            yield Point({**common, "schedule": "ring", "unit": "", "delta": None},
                        case_run("gather", n, "ring", k, 0, t))


def delta_derive(df):
    df = df.copy()
    key = ["topology", "bytes"]
    prop = df[df["schedule"] == "proposed"]
    best = prop.loc[prop.groupby(key + ["unit"])["makespan_cycles"].idxmin()].set_index(
        key + ["unit"])["delta"]
    df["best_delta"] = [best.get((t, k, u)) for t, k, u in zip(df["topology"], df["bytes"],
                                                                 df["unit"])]
    ring = df[df["schedule"] == "ring"].set_index(key)["makespan_cycles"]
    df["speedup_over_ring"] = [ring[(t, k)] / m for t, k, m in
                               zip(df["topology"], df["bytes"], df["makespan_cycles"])]
    return df


def delta_view(df):
    import pandas as pd
    prop = df[df["schedule"] == "proposed"]
    t = prop.pivot_table(index=["unit", "delta"], columns=["topology", "bytes"],
                         values="makespan_us", sort=False)
    t.columns = [f"{c} {k} B (us)" for c, k in t.columns]
    t = t.reset_index()     # the paper's unit first, each unit's δ ascending
    t = t.sort_values(["unit", "delta"], key=lambda c: c.map({"slot": 0, "link": 1})
                      if c.name == "unit" else c, kind="stable")
    t["delta"] = [f"{d:g} I(k)" if u == "slot" else f"{d:g} link" for u, d in
                  zip(t["unit"], t["delta"])]
    ring = df[df["schedule"] == "ring"]
    extra = {"unit": "", "delta": "Ring (no delays)",
             **{f"{c} {k} B (us)": v for c, k, v in zip(ring["topology"], ring["bytes"],
                                                         ring["makespan_us"])}}
    return pd.concat([t, pd.DataFrame([extra])], ignore_index=True)


def delta_plot(df, fig):
    axes = fig.subplots(1, 2, sharey=True)
    labels = {"slot": "δ in units of I(k), the time one send takes (the paper's)",
              "link": "δ in units of the destination link's time for k bytes (ours)"}
    for ax, unit in zip(axes, ("slot", "link")):
        d = df[(df["schedule"] == "proposed") & (df["unit"] == unit)]
        for (t, k), g in d.groupby(["topology", "bytes"]):
            g = g.sort_values("delta")
            ax.plot(g["delta"], 1 / g["speedup_over_ring"], "o-", markersize=4,
                    label=f"{t}, {k} B")
        ax.axhline(1.0, color="black", linestyle=":", linewidth=1)
        ax.set_xlabel(labels[unit], fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("gather makespan / Ring's (below 1: faster)")
    fig.suptitle(f"Proposed gather on {df['pes'].iloc[0]} PEs against δ", fontsize=9)


# ---- 2. every pattern x Ring / proposed / collectives x size x topology

def pattern_cases(opt):
    n = 16 if opt.quick else opt["pes"]
    sizes = [256] if opt.quick else list(opt["sizes"])
    patterns = QUICK_PATTERNS if opt.quick else PATTERNS
    for t in TOPOLOGIES:
        for p in patterns:
            for k in sizes:
                for m in methods(p, n):
                    delta = opt["delta_link"] if m == "proposed_link" else opt["delta"]
                    yield ({"topology": t, "pattern": p, "method": m, "bytes": k, "pes": n},
                           case_run(p, n, m, k, delta, t))


def patterns_runs(opt):
    for params, run in pattern_cases(opt):
        yield Point(params, run)


def patterns_figures(params, r):
    row = execution_figures(params, r)
    pat = named(params["pattern"], params["pes"], seed=SEED)
    row["density"] = pat.density
    if params["method"] in SCHEDULED:
        row["slots"] = schedule(params["pattern"], params["pes"],
                                SCHEDULED[params["method"]][0]).length
    return row


def patterns_derive(df):
    """Speed-ups of proposed (delta in slots) and proposed_link (delta in link times; the
    same run as proposed where the schedule has no delays) over Ring and over the fastest
    collective of the pattern."""
    df = df.copy()
    key = ["topology", "pattern", "bytes"]
    idx = df.set_index(key).index
    t = {m: df[df["method"] == m].set_index(key)["makespan_cycles"].reindex(idx)
         for m in SCHEDULED}
    t["proposed_link"] = t["proposed_link"].fillna(t["proposed"])
    coll = df[~df["method"].isin(list(SCHEDULED))].groupby(key)["makespan_cycles"].min()
    for m, name in (("proposed", ""), ("proposed_link", "_link")):
        df[f"speedup{name}_over_ring"] = (t["ring"] / t[m]).values
        df[f"speedup{name}_over_collective"] = (coll.reindex(idx) / t[m]).values
    return df


def patterns_view(df):
    t = df.pivot_table(index=["topology", "pattern", "bytes"], columns="method",
                       values="makespan_us", sort=False)
    t = t[[c for c in ["ring", "proposed", "proposed_link", "scatter", "bcast", "gather",
                       "alltoall", "allgather", "alltoallv"] if c in t.columns]]
    t.columns = [f"{c} (us)" for c in t.columns]
    s = df.groupby(["topology", "pattern", "bytes"], sort=False)[
        ["speedup_over_ring", "speedup_link_over_ring", "speedup_over_collective",
         "speedup_link_over_collective"]].first()
    return t.join(s).reset_index()


def patterns_plot(df, fig):
    patterns = list(dict.fromkeys(df["pattern"]))
    cols = min(len(patterns), 5)
    rows = (len(patterns) + cols - 1) // cols
    axes = fig.subplots(rows * 2, cols, squeeze=False)
    fig.set_size_inches(3.2 * cols, 2.6 * rows * 2)
    style = {"ring": ("C3", "s-"), "proposed": ("C0", "o-"), "proposed_link": ("C1", "D-")}
    for ti, topo in enumerate(TOPOLOGIES):
        for i, p in enumerate(patterns):
            ax = axes[ti * rows + i // cols][i % cols]
            d = df[(df["pattern"] == p) & (df["topology"] == topo)]
            for m, g in d.groupby("method"):
                c, s = style.get(m, ("C2", "^--"))
                g = g.sort_values("bytes")
                ax.plot(g["bytes"], g["makespan_us"], s, color=c, label=m, markersize=4)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            # y=1.0: where matplotlib would place it (nothing is above the panel), without
            # measuring the panel's y axis again for it in each layout pass and draw
            ax.set_title(f"{p}, {topo}", fontsize=8, y=1.0)
            ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=6)
            ax.legend(fontsize=6)
        for j in range(len(patterns), rows * cols):
            axes[ti * rows + j // cols][j % cols].axis("off")
    fig.supxlabel("message size k (bytes)", fontsize=8)
    fig.supylabel("makespan (µs)", fontsize=8)


# ---- 3. the LogGP model: fitted parameters, predicted against simulated makespan

MICRO_SIZES = [4, 64, 256, 1024]
FIT_CONFIGS = [CONFIG, "emx80-20mhz"]  # the fit at EM-X's measured and design clocks


def model_runs(opt):
    n = 16 if opt.quick else opt["pes"]
    sizes = [4, 256, 1024] if opt.quick else MICRO_SIZES
    for c in FIT_CONFIGS[:1] if opt.quick else FIT_CONFIGS:
        for t in TOPOLOGIES:
            common = {"topology": t, "config": c, "method": "ring", "pes": n}
            for k in sizes:
                # pair: the one message 0 -> 1; scatter: root 0 sends n - 1 in a row.
                yield Point({**common, "kind": "pair", "pattern": "pair", "bytes": k},
                            Run("mpi_delay_sched", ("sched", "1", k, "0", REPS), config=c,
                                pes=n, set={"network.topology": t}))
                yield Point({**common, "kind": "scatter", "pattern": "scatter", "bytes": k},
                            case_run("scatter", n, "ring", k, 0, t, c))
            # o_r: the all-to-all at the smallest size (its receives wait for the sends).
            yield Point({**common, "kind": "alltoall", "pattern": "alltoall", "bytes": sizes[0]},
                        case_run("alltoall", n, "ring", sizes[0], 0, t, c))
    for params, run in pattern_cases(opt):
        if params["method"] in SCHEDULED:
            yield Point({**params, "config": CONFIG, "kind": "case"}, run)


def model_figures(params, r):
    return execution_figures(params, r)


def fitted(df):
    """{(topology, config): LogGP} from the microbenchmark rows."""
    out = {}
    for key, g in df.groupby(["topology", "config"]):
        def col(kind, name):
            d = g[g["kind"] == kind]
            return dict(zip(d["bytes"], d[name]))
        out[key] = fit(col("pair", "slot_cycles"), col("pair", "makespan_cycles"),
                       col("scatter", "makespan_cycles"), col("alltoall", "makespan_cycles"),
                       int(g["pes"].iloc[0]))
    return out


def model_derive(df):
    df = df.copy()
    params = fitted(df)
    keys = list(zip(df["topology"], df["config"]))
    for gap in RECEIVE_GAPS:
        preds = []
        for key, (_, row) in zip(keys, df.iterrows()):
            if row["kind"] == "case":
                s = schedule(row["pattern"], row["pes"], SCHEDULED[row["method"]][0])
                # A delay slot lasts delta plus what emx_delay adds.
                preds.append(predict(s, row["bytes"], params[key],
                                     row["delta_cycles"] + DELAY_CALL_CLOCKS, receive_gap=gap))
            else:
                preds.append(None)
        df[f"predicted_{gap}"] = preds
        df[f"error_{gap}_%"] = 100.0 * (df[f"predicted_{gap}"] - df["makespan_cycles"]) / \
            df["makespan_cycles"]
    for f in ("L", "o", "g", "G", "o_r"):
        df[f"fit_{f}"] = [getattr(params[k], f) if k in params else None for k in keys]
    return df


def model_view(df):
    import pandas as pd
    d = df[df["kind"] == "case"]
    t = d.pivot_table(index=["topology", "pattern", "bytes"], columns="method",
                      values=["makespan_cycles", "predicted_paper", "error_paper_%",
                              "error_port_%", "error_blocking_%"], sort=False)
    t.columns = [f"{m} {v}" for v, m in t.columns]
    fits = df.drop_duplicates(["topology", "config"])
    rows = [{"topology": r["topology"], "pattern": f"fit at {r['config']}",
             "bytes": " ".join(f"{f}={r['fit_' + f]:.3g}" for f in ("L", "o", "g", "G", "o_r"))}
            for _, r in fits.iterrows()]
    return pd.concat([t.reset_index(), pd.DataFrame(rows)], ignore_index=True)


def model_plot(df, fig):
    ax1, ax2 = fig.subplots(1, 2)
    d = df[df["kind"] == "case"]
    for (t, m), g in d.groupby(["topology", "method"]):
        ax1.loglog(g["makespan_cycles"], g["predicted_blocking"],
                   {"ring": "s", "proposed": "o"}.get(m, "D"), markersize=4, label=f"{m}, {t}",
                   alpha=0.7)
    lo, hi = d["makespan_cycles"].min(), d["makespan_cycles"].max()
    ax1.plot([lo, hi], [lo, hi], "k:", linewidth=1)
    ax1.set_xlabel("simulated makespan (clocks)")
    ax1.set_ylabel("LogGP prediction, 'blocking' (clocks)")
    ax1.legend(fontsize=6)
    ax1.grid(True, alpha=0.3)
    mic = df[df["config"] == CONFIG]
    for t, g in mic[mic["kind"] == "pair"].groupby("topology"):
        g = g.sort_values("bytes")
        sc = mic[(mic["kind"] == "scatter") & (mic["topology"] == t)].set_index("bytes")
        interval = (sc["makespan_cycles"].reindex(g["bytes"]).values - g["makespan_cycles"].values) \
            / (g["pes"].iloc[0] - 2)
        ax2.plot(g["bytes"], interval, "o", label=f"send interval in a run (scatter), {t}")
        f = g.iloc[0]
        ax2.plot(g["bytes"], f["fit_o"] + (g["bytes"] - 1) * f["fit_G"], "-",
                 label=f"fit {t}: o={f['fit_o']:.0f}, G={f['fit_G']:.3f}, "
                       f"L={f['fit_L']:.0f}, g={f['fit_g']:.0f}, o_r={f['fit_o_r']:.0f}")
    ax2.set_xlabel("message size k (bytes)")
    ax2.set_ylabel("clocks")
    ax2.legend(fontsize=6)
    ax2.grid(True, alpha=0.3)


COMMON = {"pes": 64}
EXPERIMENTS = [
    Experiment(
        name="delay.delta", paper="delay",
        title="Delay insertion: gather makespan against the delay δ (proposed schedule)",
        runs=delta_runs, figures=execution_figures, derive=delta_derive, view=delta_view,
        plot=delta_plot, params={**COMMON, "sizes": [256, 1024]}, doc=DOC),
    Experiment(
        name="delay.patterns", paper="delay",
        title="Delay insertion: every pattern, Ring / proposed / MPI collectives, against "
              "message size, single switch and circular omega",
        runs=patterns_runs, figures=patterns_figures, derive=patterns_derive,
        view=patterns_view, plot=patterns_plot,
        params={**COMMON, "sizes": [16, 256, 1024], "delta": 0.6, "delta_link": 1.0},
        checks=[GATHER_CHECK], doc=DOC),
    Experiment(
        name="delay.model", paper="delay",
        title="Delay insertion: LogGP parameters fitted per topology, predicted against "
              "simulated makespan",
        runs=model_runs, figures=model_figures, derive=model_derive, view=model_view,
        plot=model_plot, params={**COMMON, "sizes": [16, 256, 1024], "delta": 0.6, "delta_link": 1.0},
        doc=DOC),
]
