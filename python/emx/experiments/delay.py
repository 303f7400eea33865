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
from emx.experiment import Experiment, Point, Run

CONFIG = "emx80-16mhz"
DOC = "docs/experiments/delay-insertion.md"
TOPOLOGIES = ["single_switch", "circular_omega"]
PATTERNS = ["scatter", "gather", "alltoall", "triangle", "ba4", "ba7", "ba12", "ba17", "ba28"]
QUICK_PATTERNS = ["gather", "alltoall", "ba4"]
SEED = 1             # Barabási–Albert graphs
REPS = 2             # one warm-up repetition, one timed
# The MPI collective(s) each pattern is compared with; the irregular ones with Alltoallv.
COLLECTIVES = {"scatter": ["scatter", "bcast"], "gather": ["gather"],
               "alltoall": ["alltoall", "allgather"]}


@lru_cache(maxsize=None)
def schedule(pattern: str, n: int, scheduler: str):
    return SCHEDULERS[scheduler](named(pattern, n, seed=SEED))


def case_run(pattern, n, scheduler, k, delta, topology, config=CONFIG) -> Run:
    """One execution: scheduler 'ring' or 'proposed' (delta in slots I(k)), or the name of
    a collective (the pattern is then what the collective moves)."""
    if scheduler in SCHEDULERS:
        args = ("sched", schedule(pattern, n, scheduler).text(), k,
                f"{delta}i" if scheduler == "proposed" else "0", REPS)
    else:
        args = (scheduler, schedule(pattern, n, "ring").text(), k, "0", REPS)
    return Run("mpi_delay_sched", args, config=config, pes=n,
               set={"network.topology": topology})


def methods(pattern):
    return ["ring", "proposed"] + COLLECTIVES.get(pattern, ["alltoallv"])


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

DELTAS = [0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.25, 1.5]


def delta_runs(opt):
    n = 16 if opt.quick else opt["pes"]
    k = opt["bytes"]
    for t in TOPOLOGIES:
        for f in ([0, 0.6, 1.0] if opt.quick else DELTAS):
            yield Point({"topology": t, "schedule": "proposed", "delta": f, "bytes": k, "pes": n},
                        case_run("gather", n, "proposed", k, f, t))
        yield Point({"topology": t, "schedule": "ring", "delta": None, "bytes": k, "pes": n},
                    case_run("gather", n, "ring", k, 0, t))


def delta_derive(df):
    df = df.copy()
    best = {}
    for t, g in df[df["schedule"] == "proposed"].groupby("topology"):
        best[t] = g.loc[g["makespan_cycles"].idxmin(), "delta"]
    df["best_delta"] = df["topology"].map(best)
    ring = df[df["schedule"] == "ring"].set_index("topology")["makespan_cycles"]
    df["speedup_over_ring"] = df["topology"].map(ring) / df["makespan_cycles"]
    return df


def delta_view(df):
    import pandas as pd
    t = df[df["schedule"] == "proposed"].pivot_table(index="delta", columns="topology",
                                                     values="makespan_us")
    t.columns = [f"{c} (us)" for c in t.columns]
    ring = df[df["schedule"] == "ring"].set_index("topology")["makespan_us"]
    t = t.reset_index()
    t["delta"] = t["delta"].map(lambda d: f"{d:g} I(k)")
    extra = {"delta": "Ring (no delays)", **{f"{c} (us)": v for c, v in ring.items()}}
    return pd.concat([t, pd.DataFrame([extra])], ignore_index=True)


def delta_plot(df, fig):
    ax = fig.subplots()
    for (t, g), c in zip(df[df["schedule"] == "proposed"].groupby("topology"), ["C0", "C1"]):
        g = g.sort_values("delta")
        ax.plot(g["delta"], g["makespan_us"], "o-", color=c, label=f"proposed, {t}")
        ring = df[(df["schedule"] == "ring") & (df["topology"] == t)]["makespan_us"]
        if len(ring):
            ax.axhline(float(ring.iloc[0]), color=c, linestyle=":", label=f"Ring, {t}")
    k, n = df["bytes"].iloc[0], df["pes"].iloc[0]
    ax.set_xlabel("delay δ (in units of I(k), the time one send takes)")
    ax.set_ylabel("gather makespan (µs)")
    ax.set_title(f"Gather of {k} B on {n} PEs: execution time against δ", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


# ---- 2. every pattern x Ring / proposed / collectives x size x topology

def pattern_cases(opt):
    n = 16 if opt.quick else opt["pes"]
    sizes = [256] if opt.quick else list(opt["sizes"])
    patterns = QUICK_PATTERNS if opt.quick else PATTERNS
    for t in TOPOLOGIES:
        for p in patterns:
            for k in sizes:
                for m in methods(p):
                    yield ({"topology": t, "pattern": p, "method": m, "bytes": k, "pes": n},
                           case_run(p, n, m, k, opt["delta"], t))


def patterns_runs(opt):
    for params, run in pattern_cases(opt):
        yield Point(params, run)


def patterns_figures(params, r):
    row = execution_figures(params, r)
    pat = named(params["pattern"], params["pes"], seed=SEED)
    row["density"] = pat.density
    if params["method"] in SCHEDULERS:
        row["slots"] = schedule(params["pattern"], params["pes"], params["method"]).length
    return row


def patterns_derive(df):
    df = df.copy()
    key = ["topology", "pattern", "bytes"]
    t = {m: df[df["method"] == m].set_index(key)["makespan_cycles"] for m in ("ring", "proposed")}
    coll = df[~df["method"].isin(["ring", "proposed"])].groupby(key)["makespan_cycles"].min()
    idx = df.set_index(key).index
    df["speedup_over_ring"] = (t["ring"].reindex(idx) / t["proposed"].reindex(idx)).values
    df["speedup_over_collective"] = (coll.reindex(idx) / t["proposed"].reindex(idx)).values
    return df


def patterns_view(df):
    t = df.pivot_table(index=["topology", "pattern", "bytes"], columns="method",
                       values="makespan_us", sort=False)
    t = t[[c for c in ["ring", "proposed", "scatter", "bcast", "gather", "alltoall",
                       "allgather", "alltoallv"] if c in t.columns]]
    t.columns = [f"{c} (us)" for c in t.columns]
    s = df.groupby(["topology", "pattern", "bytes"], sort=False)[
        ["speedup_over_ring", "speedup_over_collective"]].first()
    return t.join(s).reset_index()


def patterns_plot(df, fig):
    patterns = list(dict.fromkeys(df["pattern"]))
    cols = min(len(patterns), 5)
    rows = (len(patterns) + cols - 1) // cols
    axes = fig.subplots(rows * 2, cols, squeeze=False)
    fig.set_size_inches(3.2 * cols, 2.6 * rows * 2)
    style = {"ring": ("C3", "s-"), "proposed": ("C0", "o-")}
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
            ax.set_title(f"{p}, {topo}", fontsize=8)
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
        if params["method"] in SCHEDULERS:
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
                s = schedule(row["pattern"], row["pes"], row["method"])
                preds.append(predict(s, row["bytes"], params[key], row["delta_cycles"],
                                     receive_gap=gap))
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
                      values=["makespan_cycles", "predicted_brief", "error_brief_%",
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
                   "o" if m == "proposed" else "s", markersize=4, label=f"{m}, {t}",
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
        plot=delta_plot, params={**COMMON, "bytes": 1024}, doc=DOC),
    Experiment(
        name="delay.patterns", paper="delay",
        title="Delay insertion: every pattern, Ring / proposed / MPI collectives, against "
              "message size, single switch and circular omega",
        runs=patterns_runs, figures=patterns_figures, derive=patterns_derive,
        view=patterns_view, plot=patterns_plot,
        params={**COMMON, "sizes": [16, 256, 1024], "delta": 0.6}, doc=DOC),
    Experiment(
        name="delay.model", paper="delay",
        title="Delay insertion: LogGP parameters fitted per topology, predicted against "
              "simulated makespan",
        runs=model_runs, figures=model_figures, derive=model_derive, view=model_view,
        plot=model_plot, params={**COMMON, "sizes": [16, 256, 1024], "delta": 0.6}, doc=DOC),
]
