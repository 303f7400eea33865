"""'Efficient implementation of MPI using remote memory write' (EM-X at 16 MHz):
the ping-pong latencies of Table 1, the throughput of Fig. 10, and where one hop's
clocks go. Programs: programs/mpi/pingpong.c and throughput.c; docs/mpi.md."""
import math
import re
import statistics

from emx.experiment import Experiment, Point, Published, Run

CONFIG = "emx80-16mhz"
DOC = "docs/mpi.md"
VARIANTS = [(m, p) for m in ("both", "receiver") for p in ("buffered", "get", "sync")]
SIZES = [4 << k for k in range(19)] + [1600000]   # 4 B .. 1 MiB, and 1.6 MB
QUICK_SIZES = [4, 64, 512, 4096, 65536, 1600000]
RAW_EXTRA = list(range(16, 513, 16))              # the raw routine's 64-byte steps
SOURCE = "MPI paper (experiments.md)"


def variant_args(matching, protocol, options=""):
    """The variant, and the library's -mpi-option= shortcuts (docs/mpi.md, "Options"):
    "" is the paper's mechanisms, "all" the library before session 5."""
    return (f"-mpi-matching={matching}", f"-mpi-protocol={protocol}") + \
        ((f"-mpi-option={options}",) if options else ())


# ---- Table 1: one-way latency, naive and with receives issued in advance

def latency_runs(opt):
    iterations = 20 if opt.quick else opt["iterations"]
    for m, p in VARIANTS:
        for mode in ("naive", "advance"):
            for size in (0, 4):
                yield Point({"matching": m, "protocol": p, "mode": mode, "bytes": size},
                            Run("mpi_pingpong",
                                (mode, size, iterations, *variant_args(m, p, opt["options"])),
                                config=CONFIG))


def latency_figures(params, r):
    row = {"oneway_cycles": r.results["oneway_cycles"],
           "oneway_us": r.results["oneway_cycles"] / r.clock_mhz}
    if params["mode"] == "advance":
        row["preissue_us"] = r.results["preissue_cycles"] / r.clock_mhz
    return row


def latency_view(df):
    t = df.pivot_table(index=["matching", "protocol"], columns=["mode", "bytes"],
                       values="oneway_us")
    t.columns = [f"{mode} {b} B (us)" for mode, b in t.columns]
    pre = df[(df["mode"] == "advance") & (df["bytes"] == 4)].set_index(
        ["matching", "protocol"])["preissue_us"]
    t["pre-issue per recv (us)"] = pre
    return t.reset_index()


def latency_plot(df, fig):
    axes = fig.subplots(1, 2, sharey=True)
    for ax, mode in zip(axes, ("naive", "advance")):
        d = df[(df["mode"] == mode) & (df["bytes"] == 4)]
        labels = [f"{m}\n{p}" for m, p in zip(d["matching"], d["protocol"])]
        ax.bar(range(len(d)), d["oneway_us"],
               color=["#3465a4" if m == "both" else "#cc7a00" for m in d["matching"]])
        ax.set_xticks(range(len(d)), labels, fontsize=7)
        ax.set_title(f"{mode}, 4 bytes", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[1].axhline(15.4, color="black", linestyle=":", label="published 15.4 µs (both)")
    axes[1].legend(fontsize=7)
    axes[0].set_ylabel("one-way latency (µs)")


# ---- Fig. 10: throughput of the in-advance ping-pong, and the raw remote-write routine

def throughput_runs(opt):
    sizes = QUICK_SIZES if opt.quick else SIZES
    for m, p in VARIANTS:
        yield Point({"curve": f"{m} {p}", "matching": m, "protocol": p},
                    Run("mpi_throughput", ("mpi", *sizes, *variant_args(m, p, opt["options"])),
                        config=CONFIG))
    yield Point({"curve": "raw remote write", "matching": "raw", "protocol": ""},
                Run("mpi_throughput", ("raw", *sorted(set(sizes + RAW_EXTRA))), config=CONFIG))


def throughput_figures(params, r):
    return [{"bytes": int(b), "oneway_us": c / r.clock_mhz, "mbps": mb}
            for b, c, mb in zip(r.series("bytes"), r.series("oneway_cycles"), r.series("mbps"))]


def half_peak(rows):
    """Where a curve first reaches half the rate of its largest message (interpolated
    linearly in log size between the two measured sizes around it)."""
    rows = rows.sort_values("bytes")
    b, v = list(rows["bytes"]), list(rows["mbps"])
    half = v[-1] / 2
    for i in range(1, len(v)):
        if v[i - 1] < half <= v[i]:
            f = (half - v[i - 1]) / (v[i] - v[i - 1])
            lo = math.log(max(b[i - 1], 1))
            return round(math.exp(lo + f * (math.log(b[i]) - lo)))
    return b[0] if v and v[0] >= half else None


def throughput_derive(df):
    hp = {c: half_peak(g) for c, g in df.groupby("curve")}
    df = df.copy()
    df["half_peak_bytes"] = df["curve"].map(hp)
    return df


THROUGHPUT_COLUMNS = [4, 64, 512, 4096, 65536, 1048576, 1600000]


def throughput_view(df):
    d = df[df["bytes"].isin(THROUGHPUT_COLUMNS)]
    t = d.pivot_table(index="curve", columns="bytes", values="mbps", sort=False)
    t.columns = [f"{b} B" for b in t.columns]
    t["half peak at (B)"] = df.groupby("curve", sort=False)["half_peak_bytes"].first()
    return t.reset_index()


def throughput_plot(df, fig):
    ax = fig.subplots()
    markers = {"buffered": "o", "get": "s", "sync": "^"}
    for curve, g in df.groupby("curve", sort=False):
        g = g.sort_values("bytes")
        if curve.startswith("raw"):
            style = {"linestyle": "-.", "color": "black", "linewidth": 1}
        else:
            style = {"linestyle": "-" if curve.startswith("both") else "--",
                     "marker": markers[curve.split()[-1]], "markersize": 4, "fillstyle": "none"}
        ax.plot(g["bytes"], g["mbps"], label=curve, **style)
    ax.plot([1600000], [31.4], "k*", markersize=10, label="published: 31.4 MB/s at 1.6 MB")
    ax.axvline(512, color="gray", linestyle=":", label="published: half of peak at 512 B")
    ax.set_xscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("MB/s (one way)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


# ---- where the clocks of one in-advance hop go (both sides, get, 4 bytes)

TRACE = re.compile(r"^\s*(\d+)\s+[\d.]+ us\s+PE (\d+)\s+(.*)$")
PARTS = ["sender software (MPI_Wait return, MPI_Isend, matching)",
         "data, status and completion packets sent", "packet transit",
         "receiver completion (memory unit, wake-up, dispatch)"]


def breakdown_runs(opt):
    yield Point({}, Run("mpi_pingpong", ("advance", 4, 24, *variant_args("both", "get")),
                        config=CONFIG, options=("--trace-text", "--trace-pes", "1,2")))


def breakdown_figures(params, r):
    """From the resumption of the rank that received (its MPI_Wait answered) to its
    first remote write of the reply, the reply's packets, their transit, and the peer's
    completion, read from the run's event trace; medians over the steady-state hops."""
    ev = [(int(m[1]), int(m[2]), m[3]) for m in map(TRACE.match, r.stderr.splitlines()) if m]
    hops = []
    for i, (t, pe, what) in enumerate(ev):
        if "thread start resume block_on" not in what:
            continue
        first = last = arrive = wake = None
        for t2, pe2, w2 in ev[i + 1:]:
            if pe2 == pe and first is None and "send   syswr" in w2:
                first = t2
            elif pe2 == pe and first is not None and "send   iwr" in w2:
                last = t2
            elif last is not None and arrive is None and pe2 != pe and "arrive iwr" in w2:
                arrive = t2
            elif arrive is not None and pe2 != pe and "thread start resume block_on" in w2:
                wake = t2
                break
            if pe2 == pe and "resume" in w2:
                break                  # this rank blocked and resumed again: not a plain hop
        if wake is not None:
            hops.append((first - t, last - first, arrive - last, wake - arrive))
    hops = hops[len(hops) // 4:-2] or hops   # the steady state of the timed loop
    if not hops:
        raise ValueError("no complete hop found in the trace")
    rows = [{"part": name, "cycles": statistics.median(h[k] for h in hops)}
            for k, name in enumerate(PARTS)]
    rows.append({"part": "one way", "cycles": sum(x["cycles"] for x in rows)})
    for x in rows:
        x["us"] = x["cycles"] / r.clock_mhz
        x["hops"] = len(hops)
    return rows


def breakdown_plot(df, fig):
    ax = fig.subplots()
    d = df[df["part"] != "one way"]
    left = 0.0
    for (_, x), c in zip(d.iterrows(), ["#3465a4", "#73d216", "#f57900", "#75507b"]):
        ax.barh([0], [x["cycles"]], left=left, color=c, label=f"{x['part']}: {x['cycles']:.0f}")
        left += x["cycles"]
    ax.set_yticks([])
    ax.set_xlabel("clocks of one in-advance hop (both sides, get, 4 bytes)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2))


EXPERIMENTS = [
    Experiment("mpi.latency", "mpi",
               "Ping-pong one-way latency, six variants, naive and receives in advance (Table 1)",
               latency_runs, latency_figures, plot=latency_plot, view=latency_view,
               params={"iterations": 100, "options": ""},
               published=[
                   Published("oneway_us", 15.3, {"matching": "both", "mode": "advance",
                                                 "bytes": 0}, SOURCE, "µs"),
                   Published("oneway_us", 15.4, {"matching": "both", "mode": "advance",
                                                 "bytes": 4}, SOURCE, "µs")],
               doc=DOC),
    Experiment("mpi.throughput", "mpi",
               "In-advance ping-pong throughput, 4 B to 1.6 MB, six variants and the raw "
               "remote write (Fig. 10)",
               throughput_runs, throughput_figures, plot=throughput_plot,
               derive=throughput_derive, view=throughput_view, params={"options": ""},
               published=[
                   Published("mbps", 31.4, {"matching": "both", "bytes": 1600000}, SOURCE, "MB/s"),
                   Published("half_peak_bytes", 512, {"matching": "both"}, SOURCE, "bytes")],
               doc=DOC),
    Experiment("mpi.breakdown", "mpi",
               "Where the clocks of one in-advance hop go (both sides, get, 4 bytes)",
               breakdown_runs, breakdown_figures, plot=breakdown_plot, doc=DOC),
]
