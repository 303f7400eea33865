"""'Efficient implementation of MPI using remote memory write' (EM-X at 16 MHz):
the ping-pong latencies of Table 1, the throughput of Fig. 10, and where one hop's
clocks go. Programs: programs/mpi/pingpong.c and throughput.c; docs/experiments/mpi.md."""
import math
import re
import statistics

from emx.experiment import Experiment, Point, Published, Run
from emx.plotting import panels_with_legend

CONFIG = "emx80-16mhz"
DOC = "docs/experiments/mpi.md"
VARIANTS = [(m, p) for m in ("both", "receiver") for p in ("buffered", "get", "sync")]
SIZES = [4 << k for k in range(19)] + [1600000]   # 4 B .. 1 MiB, and 1.6 MB
QUICK_SIZES = [4, 64, 512, 4096, 65536, 1600000]
RAW_EXTRA = list(range(16, 513, 16))              # the raw routine's 64-byte steps
TABLE1 = "MPI paper, Table 1"       # docs/papers.md records what each paper says
FIG10 = "MPI paper, Fig. 10"
# Table 1: one-way latency of 4-byte messages in µs (half the round trip), naive (Fig. 8)
# and with the receives issued in advance (Fig. 9), and the pre-issue cost per receive;
# by matching and protocol.
TABLE1_ONEWAY = {
    ("both", "buffered"): (36.1, 15.4, 21.6), ("both", "get"): (25.4, 15.4, 21.6),
    ("both", "sync"): (27.9, 15.4, 21.6), ("receiver", "buffered"): (42.7, 42.9, 12.1),
    ("receiver", "get"): (21.3, 20.5, 12.1), ("receiver", "sync"): (22.1, 21.2, 12.1)}
TABLE1_ZERO_BYTES = 15.3  # in advance, both sides, 0 bytes


def table1_published():
    """The 19 values of Table 1, each on the rows of its cell."""
    out = []
    for (m, p), (naive, advance, preissue) in TABLE1_ONEWAY.items():
        cell = {"matching": m, "protocol": p, "bytes": 4}
        out += [Published("oneway_us", naive, {**cell, "mode": "naive"}, TABLE1, "µs"),
                Published("oneway_us", advance, {**cell, "mode": "advance"}, TABLE1, "µs"),
                Published("preissue_us", preissue, {**cell, "mode": "advance"}, TABLE1, "µs")]
    out.append(Published("oneway_us", TABLE1_ZERO_BYTES,
                         {"matching": "both", "mode": "advance", "bytes": 0}, TABLE1, "µs"))
    return out


def variant_args(matching, protocol, options=""):
    """The variant, and the library's -mpi-option= shortcuts (docs/experiments/mpi.md,
    "Options"): "" is the paper's mechanisms, "all" the library before session 5."""
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
    """Table 1 beside the simulation: per panel (naive, in advance, pre-issue per
    receive) a simulated bar and the published one for every variant, and in the
    in-advance panel the 0-byte cell (both sides, the mean over the protocols)."""
    from matplotlib.patches import Patch

    def sim(column, **where):
        rows = df
        for k, v in where.items():
            rows = rows[rows[k] == v]
        return rows[column].mean() if column in rows and len(rows) else float("nan")

    rows = [f"{m}, {p}" for m, p in VARIANTS] + ["both, 0 B"]
    axes, legend = panels_with_legend(fig, 3, sharey=True)
    for i, (ax, (mode, column, title)) in enumerate(zip(axes, (
            ("naive", "oneway_us", "naive, 4 B: one-way µs"),
            ("advance", "oneway_us", "in advance, 4 B: one-way µs"),
            ("advance", "preissue_us", "pre-issue per receive: µs")))):
        simulated = [sim(column, matching=m, protocol=p, mode=mode, bytes=4)
                     for m, p in VARIANTS]
        paper = [TABLE1_ONEWAY[v][i] for v in VARIANTS]
        if i == 1:
            simulated.append(sim(column, matching="both", mode=mode, bytes=0))
            paper.append(TABLE1_ZERO_BYTES)
        y = range(len(simulated))
        ax.barh([k - 0.2 for k in y], simulated, 0.4,
                color=["#3465a4" if r.startswith("both") else "#cc7a00" for r in rows])
        ax.barh([k + 0.2 for k in y], paper, 0.4, color="white", edgecolor="black",
                hatch="///")
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(rows)), rows, fontsize=8)
    axes[0].set_ylabel("matching, protocol")
    axes[0].invert_yaxis()
    legend([Patch(color="#3465a4"), Patch(color="#cc7a00"),
            Patch(facecolor="white", edgecolor="black", hatch="///")],
           ["simulated, matching on both sides", "simulated, matching on the receiver",
            "published (Table 1)"])


# ---- Fig. 10: throughput of the in-advance ping-pong, and the raw remote-write routine

def throughput_runs(opt):
    sizes = QUICK_SIZES if opt.quick else SIZES
    for m, p in VARIANTS:
        yield Point({"curve": f"{m} {p}", "matching": m, "protocol": p},
                    Run("mpi_throughput", ("mpi", *sizes, *variant_args(m, p, opt["options"])),
                        config=CONFIG))
    # Beside them, the receiver's remote read by our single-request block read (option
    # block-read; the default reads as the hardware describes SYSRD: one request per word
    # replying as a remote write, a loop of 2 instructions a word, docs/mpi.md).
    block = ",".join(o for o in (opt["options"], "block-read") if o)
    for p in ("get", "sync"):
        yield Point({"curve": f"receiver block read {p}", "matching": "receiver, block-read",
                     "protocol": p},
                    Run("mpi_throughput", ("mpi", *sizes, *variant_args("receiver", p, block)),
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
# A blocked MPI_Wait resumed: the trace names a resumption by the code it returns into, the
# program's loop when mpi.h compiles the suspension into it, else the library's wait.
RESUMED_WAIT = re.compile(r"thread start resume (pingpong_advance_loop|wait_blocking|block_on)")
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
        if not RESUMED_WAIT.search(what):
            continue
        first = last = arrive = wake = None
        for t2, pe2, w2 in ev[i + 1:]:
            if pe2 == pe and first is None and "send   syswr" in w2:
                first = t2
            elif pe2 == pe and first is not None and "send   iwr" in w2:
                last = t2
            elif last is not None and arrive is None and pe2 != pe and "arrive iwr" in w2:
                arrive = t2
            elif arrive is not None and pe2 != pe and RESUMED_WAIT.search(w2):
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


# ---- every cell of Table 1 step by step: the threads and packets of one round trip

STEP_EVENT = re.compile(r"^\s*(\d+)\s+[\d.]+ us\s+PE (\d+)\s+(?:thread start (resume (\S+)|\S+)"
                        r"|(thread end)|send\s+(\S+)\s+-> PE (\d+)\s.*\((\S+?)\+0x[0-9a-f]+\)$)")
STEP_PES = (1, 2)  # ranks 1 and 2 of the 80-PE machine


def steps_runs(opt):
    for m, p in VARIANTS:
        for mode in ("naive", "advance"):
            yield Point({"matching": m, "protocol": p, "mode": mode},
                        Run("mpi_pingpong", (mode, 4, 12, *variant_args(m, p, opt["options"])),
                            config=CONFIG, options=("--trace-text", "--trace-pes", "1,2")))
        if m == "receiver":
            # No packet, no thread: the receiver-only MPI_Irecv's parts come from the
            # instruction profile of the posting PE (preissue_runs below).
            for receives in PREISSUE_RECEIVES:
                yield Point({"matching": m, "protocol": p, "mode": "advance",
                             "receives": receives},
                            preissue_run(m, p, receives, opt["options"]))


def step_events(log):
    """(clock, PE, kind, label) of the traced PEs: thread starts (label: the entry, or
    "resume FUNCTION+OFFSET"), thread ends, and packets sent to the other traced PE."""
    out = []
    for m in map(STEP_EVENT.match, log.splitlines()):
        if not m:
            continue
        t, pe = int(m[1]), int(m[2])
        if m[3]:
            out.append((t, pe, "start", m[3].split()[0] + (f" {m[4]}" if m[4] else "")))
        elif m[5]:
            out.append((t, pe, "end", ""))
        elif int(m[7]) in STEP_PES and int(m[7]) != pe:
            out.append((t, pe, "send", f"{m[6]} -> PE {m[7]} ({m[8]})"))
    return out


def step_rows(events, t0, t1):
    """The steps between clocks t0 and t1: each thread with its clocks, each packet."""
    rows, open_at = [], {}
    for t, pe, kind, label in events:
        if kind == "end" and pe in open_at:
            i = open_at.pop(pe)
            rows[i]["clocks"] = t - rows[i]["at"] - t0
        elif t0 <= t < t1 and kind == "start":
            open_at[pe] = len(rows)
            rows.append({"at": t - t0, "pe": pe, "step": label, "clocks": None})
        elif t0 <= t < t1 and kind == "send":
            rows.append({"at": t - t0, "pe": pe, "step": "send " + label, "clocks": None})
    return rows


def window(events, pe, label_prefix, after, before=float("inf")):
    """The middle span between two consecutive starts on `pe` of the first thread whose
    label starts with label_prefix after clock `after` (the same label each time)."""
    starts = [(t, label) for t, p, kind, label in events
              if p == pe and kind == "start" and after <= t < before and label.startswith(label_prefix)]
    if not starts:
        raise ValueError(f"no '{label_prefix}' thread on PE {pe} after clock {after}")
    same = [t for t, label in starts if label == starts[0][1]]
    k = max(0, len(same) // 2 - 1)
    if k + 1 >= len(same):
        raise ValueError(f"fewer than two '{starts[0][1]}' threads on PE {pe}")
    return same[k], same[k + 1]


def steps_figures(params, r):
    if "receives" in params:
        return preissue_profile_rows(r)
    ev = step_events(r.stderr)

    def by_pe(name):
        return {x["pe"]: x["value"] for x in r.records if x["name"] == name}
    timed = by_pe("timed_start_cycle")
    out = []
    t0, t1 = window(ev, STEP_PES[1], "resume", timed[STEP_PES[1]])
    for row in step_rows(ev, t0, t1):
        out.append({"part": "round trip", "round_trip_cycles": t1 - t0, **row})
    if params["mode"] == "advance" and params["matching"] == "both":
        end = by_pe("preissue_end_cycle")[STEP_PES[1]]
        # Each MPI_Irecv of the posting loop (post_all) suspends until its operand
        # segment comes (mpi.h): its resumptions pace the loop.
        p0, p1 = window(ev, STEP_PES[1], "resume post_all", 0, end)
        for row in step_rows(ev, p0, p1):
            out.append({"part": "one MPI_Irecv of the pre-issue loop",
                        "round_trip_cycles": p1 - p0, **row})
    return out


# ---- the receiver-only pre-issue loop: one MPI_Irecv part by part (no packet, no thread)
#
# With matching on the receiver only MPI_Irecv sends nothing: it takes a request from the
# free list, sets it up, searches the unexpected queue and appends the receive to the
# posted list, all in the posting loop's own thread. Its parts are read from the
# instruction profile of the posting PE (`emx run --profile - --profile-pes 2
# --profile-top 0`, every instruction with its clocks) of the ping-pong with 100 and with
# 200 receives posted: each instruction's clocks over the 100 extra receives (the rest of
# the run, the ping-pong's round trips apart, is the same in both; those run in other
# functions). The instructions of one MPI_Irecv's usual path are named part by part below
# (PREISSUE_PATH); what runs beyond it (round(count) < count per receive) is the growth of
# the request pool, a batch carved every 20 receives. The parts sum to the timed loop's
# own figure over the extra receives, (200 p200 - 100 p100) / 100, which the test checks;
# Table 1's figure (100 receives) adds the loop's fixed cost (its start clock converted
# to double, its entry and exit) spread over them, and what the first hundred receives
# cost beyond the second: a row of its own, by difference.

PREISSUE_PE = 2
PREISSUE_RECEIVES = (100, 200)
PREISSUE_PARTS = {
    "loop": "the program's loop: arguments, the call, the test for a suspension, the next iteration",
    "checks": "argument checks: communicator, type, count, buffer in memory, source, tag, "
              "context (irecv.S), MPI_PROC_NULL (recv_start)",
    "free": "a request from the free list (irecv.S: the pool's head, its next)",
    "fields": "the request's fields: from the arguments (context, PE and tag, buffer, size, "
              "communicator, rank), handle generation, kind, size, waiter, references",
    "reset": "the completion I-structure reset (done = 0)",
    "mode": "matching-mode and wildcard tests (receiver only: to the posted list; not "
            "MPI_ANY_SOURCE; not both sides)",
    "unexpected": "search of the unexpected queue (empty: one comparison)",
    "posted": "insertion into the posted list (its tail, the in-list flag)",
    "flow": "flow control: a sender whose credits are all held here (one test)",
    "handle": "the handle to *request",
    "calls": "calls and returns: irecv.S to mpi_irecv_post to recv_start (C frames, "
             "register saves, calls, returns)",
    "growth": "request pool growth: a batch of 20 carved from the heap every 20 receives "
              "(pool_refill, malloc, irecv.S's refill)",
    "fixed": "Table 1's loop beyond the extra receives' parts, over its 100 receives (by "
             "difference: its fixed cost, the start clock to double and the loop's entry and "
             "exit, and what the first hundred receives cost beyond the second)",
}
# Each function's usual path per receive, in address order: (part, instructions) runs.
PREISSUE_PATH = {
    "post_all": [("loop", 16)],
    "mpi_irecv_begin": [("checks", 39), ("free", 3), ("fields", 12), ("mode", 2)],
    "irecv_other": [("free", 3), ("reset", 1), ("fields", 12), ("handle", 2), ("calls", 2)],
    "mpi_irecv_post": [("calls", 5), ("mode", 2), ("calls", 5)],
    "recv_start": [("checks", 1), ("calls", 6), ("checks", 1), ("calls", 1), ("checks", 1),
                   ("unexpected", 2), ("mode", 1), ("unexpected", 1), ("mode", 5),
                   ("flow", 2), ("calls", 7), ("posted", 10)],
    "pool_refill": [], "malloc": [],   # growth only
}
PROFILE_INSN = re.compile(r"^\s*(\d+)\s+(\d+)\s+0x([0-9a-f]+)\s+(\S+)\s+(.*)$")


def preissue_run(matching, protocol, receives, options=""):
    return Run("mpi_pingpong", ("advance", 4, receives, *variant_args(matching, protocol, options)),
               config=CONFIG, options=("--profile", "-", "--profile-pes", str(PREISSUE_PE),
                                       "--profile-top", "0"))


def preissue_profile_rows(r):
    """The profile's instructions in PREISSUE_PATH's functions, and the loop's figure."""
    p = r.results["preissue_cycles"]
    return [{**x, "preissue_cycles": p} for x in profile_instructions(r.stderr)] or \
        [{"preissue_cycles": p}]


def profile_instructions(text):
    """[{pc, where, insn, count, insn_clocks}] of an `emx run --profile - --profile-top 0`
    report's instructions in PREISSUE_PATH's functions."""
    rows = []
    for m in map(PROFILE_INSN.match, text.splitlines()):
        if m and m[4].split("+")[0] in PREISSUE_PATH:
            rows.append({"pc": int(m[3], 16), "where": m[4], "insn": m[5].strip(),
                         "count": int(m[2]), "insn_clocks": int(m[1])})
    return rows


def preissue_parts(small, large):
    """{part: clocks per receive} of one receiver-only MPI_Irecv, from the profile rows
    (pc, where, count, insn_clocks) of the runs with n1 < n2 receives and their figures:
    small = (n1, p1, rows), large = (n2, p2, rows). Raises if a function's usual path is
    not PREISSUE_PATH's (the library changed: name its parts again)."""
    (n1, p1, rows1), (n2, p2, rows2) = small, large
    extra = n2 - n1
    by_pc = {}
    for sign, rows in ((-1, rows1), (1, rows2)):
        for x in rows:
            e = by_pc.setdefault(x["pc"], {"where": x["where"], "count": 0, "clocks": 0})
            e["count"] += sign * x["count"]
            e["clocks"] += sign * x["insn_clocks"]
    parts = dict.fromkeys(PREISSUE_PARTS, 0.0)
    for fn, path in PREISSUE_PATH.items():
        insns = sorted((pc, e) for pc, e in by_pc.items()
                       if e["where"].split("+")[0] == fn and e["count"])
        if not path:     # only the pool's growth runs there
            parts["growth"] += sum(e["clocks"] for _, e in insns) / extra
            continue
        usual = [(pc, e) for pc, e in insns if round(e["count"] / extra) >= 1]
        want = sum(n for _, n in path)
        if len(usual) != want:
            raise ValueError(f"{fn}: {len(usual)} instructions per receive, PREISSUE_PATH "
                             f"names {want}: the path changed, name its parts again")
        names = iter(part for part, n in path for _ in range(n))
        for pc, e in insns:
            per_receive = e["clocks"] / extra
            k = round(e["count"] / extra)
            if k >= 1:   # the usual path's share; executions beyond it: the pool's growth
                usual_clocks = e["clocks"] / e["count"] * k
                parts[next(names)] += usual_clocks
                per_receive -= usual_clocks
            parts["growth"] += per_receive
    measured = (n2 * p2 - n1 * p1) / extra
    parts["fixed"] = p1 - sum(parts.values())
    return parts, measured


def steps_derive(df):
    """The receiver-only pre-issue runs' profile rows become one MPI_Irecv's parts."""
    if "receives" not in df:
        return df
    prof = df[df["receives"].notna()]
    out = [df[df["receives"].isna()].drop(columns=[c for c in ("receives", "pc", "where", "insn",
                                                                "count", "insn_clocks",
                                                                "preissue_cycles") if c in df])]
    import pandas as pd
    rows = []
    for (m, p), g in prof.groupby(["matching", "protocol"], sort=False):
        runs = []
        for n, h in sorted(g.groupby("receives")):
            runs.append((int(n), float(h["preissue_cycles"].iloc[0]),
                         h[h["pc"].notna()].to_dict("records")))
        parts, measured = preissue_parts(runs[0], runs[-1])
        for part, clocks in parts.items():
            rows.append({"matching": m, "protocol": p, "mode": "advance",
                         "part": "one MPI_Irecv of the pre-issue loop (receiver only)",
                         "round_trip_cycles": runs[0][1], "at": None, "pe": PREISSUE_PE,
                         "step": PREISSUE_PARTS[part], "step_key": part,
                         "clocks": round(clocks, 2),
                         "per_receive_extra_cycles": round(measured, 2)})
    out.append(pd.DataFrame(rows))
    return pd.concat(out, ignore_index=True)


def steps_view(df):
    d = df.groupby(["matching", "protocol", "mode", "part"], sort=False).agg(
        clocks=("round_trip_cycles", "first"), steps=("step", "count")).reset_index()
    d["one way / per receive (clocks)"] = [c / (2 if part == "round trip" else 1)
                                           for c, part in zip(d["clocks"], d["part"])]
    return d


EXPERIMENTS = [
    Experiment("mpi.latency", "mpi",
               "Ping-pong one-way latency, six variants, naive and receives in advance (Table 1)",
               latency_runs, latency_figures, plot=latency_plot, view=latency_view,
               params={"iterations": 100, "options": ""},
               published=table1_published(), doc=DOC),
    Experiment("mpi.throughput", "mpi",
               "In-advance ping-pong throughput, 4 B to 1.6 MB, six variants and the raw "
               "remote write (Fig. 10)",
               throughput_runs, throughput_figures, plot=throughput_plot,
               derive=throughput_derive, view=throughput_view, params={"options": ""},
               published=[
                   Published("mbps", 31.4, {"matching": "both", "bytes": 1600000}, FIG10, "MB/s"),
                   Published("half_peak_bytes", 512, {"matching": "both"}, FIG10, "bytes")],
               doc=DOC),
    Experiment("mpi.breakdown", "mpi",
               "Where the clocks of one in-advance hop go (both sides, get, 4 bytes)",
               breakdown_runs, breakdown_figures, plot=breakdown_plot, doc=DOC),
    Experiment("mpi.steps", "mpi",
               "Every cell of Table 1 step by step: the threads and packets of one round "
               "trip on ranks 1 and 2, and of one receive of the pre-issue loop (receiver "
               "only: the parts of one MPI_Irecv, from the instruction profile)",
               steps_runs, steps_figures, derive=steps_derive, view=steps_view,
               params={"options": ""}, doc=DOC),
]


# ---- Table 3: back substitution (programs/mpi/backsub.c), MFlops per PE

RECEIVES = ("normal", "advance")
LOOPS = ("noyield", "yield")
# The sequential solver holds all of U on one PE: 8 MB at N = 2000, more than the
# assumed 4 MiB per PE (pe.memory_bytes); it runs with the 16 MiB that 22-bit word
# addresses allow. Memory size does not enter the timing (no cache), which the second
# sequential point, the largest N that fits 4 MiB, shows.
SEQ_MEMORY = 16 << 20
SEQ_FITS_4MIB = 1300


def backsub_runs(opt):
    n, block, pes = (200, 10, opt["pes"]) if opt.quick else (opt["n"], opt["block"], opt["pes"])
    for m, p in VARIANTS:
        for recv in RECEIVES:
            for loop in LOOPS:
                yield Point({"solver": f"{m} {p}", "receives": recv, "loop": loop, "n": n,
                             "pes": pes},
                            Run("mpi_backsub", (recv, loop, n, block, *variant_args(m, p)),
                                config=CONFIG, pes=pes))
    for seq_n in sorted({n, min(n, SEQ_FITS_4MIB)}):
        yield Point({"solver": "sequential", "receives": "", "loop": "", "n": seq_n, "pes": 1},
                    Run("mpi_backsub", ("seq", "noyield", seq_n, block), config=CONFIG, pes=1,
                        set={"pe.memory_bytes": SEQ_MEMORY} if seq_n > SEQ_FITS_4MIB else {}))


def backsub_figures(params, r):
    x = r.results
    row = {"mflops_per_pe": x["mflops_per_pe"], "mflops": x["mflops"],
           "time_ms": x["time_us"] / 1e3, "residual": x["residual"], "error": x["error"]}
    if "preissue_cycles" in x:
        row["preissue_ms"] = x["preissue_cycles"] / r.clock_mhz / 1e3
    return row


def backsub_view(df):
    par = df[df["solver"] != "sequential"]
    t = par.pivot_table(index="solver", columns=["receives", "loop"], values="mflops_per_pe",
                        sort=False)
    t.columns = [f"{recv} {loop}" for recv, loop in t.columns]
    t = t.reset_index()
    for _, s in df[df["solver"] == "sequential"].iterrows():
        t.loc[len(t)] = ([f"sequential, 1 PE, N={s['n']}", s["mflops_per_pe"]]
                         + [float("nan")] * (len(t.columns) - 2))
    return t


def backsub_plot(df, fig):
    ax = fig.subplots()
    par = df[df["solver"] != "sequential"]
    solvers = list(dict.fromkeys(par["solver"]))
    forms = [(r, y) for r in RECEIVES for y in LOOPS]
    colours = ["#3465a4", "#729fcf", "#cc7a00", "#fcaf3e"]
    width = 0.8 / len(forms)
    for i, ((recv, loop), c) in enumerate(zip(forms, colours)):
        d = par[(par["receives"] == recv) & (par["loop"] == loop)].set_index("solver")
        ax.bar([x + i * width for x in range(len(solvers))], [d.loc[s, "mflops_per_pe"] for s in solvers],
               width, color=c, label=f"receives {recv}, {loop.replace('noyield', 'no yield')}")
    seq = df[df["solver"] == "sequential"].sort_values("n")
    if len(seq):
        s = seq.iloc[-1]
        ax.axhline(s["mflops_per_pe"], color="black", linestyle=":",
                   label=f"sequential solver, 1 PE: {s['mflops_per_pe']:.2f}")
    ax.set_xticks([x + width * (len(forms) - 1) / 2 for x in range(len(solvers))],
                  [s.replace(" ", "\n") for s in solvers], fontsize=8)
    n, pes = par["n"].iloc[0], par["pes"].iloc[0]
    ax.set_ylabel(f"MFlops per PE (N={n}, {pes} PEs, single precision)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_ylim(0, max(df["mflops_per_pe"]) * 1.35)
    ax.legend(fontsize=7, loc="upper center", ncol=3)


# ---- why: how long protocol threads wait on one PE while its compute loop runs

def backsub_threads_runs(opt):
    n, block = (200, 10) if opt.quick else (opt["n"], opt["block"])
    for m, p in (("both", "get"), ("receiver", "get"), ("receiver", "buffered")):
        for loop in LOOPS:
            yield Point({"solver": f"{m} {p}", "loop": loop, "n": n},
                        Run("mpi_backsub", ("normal", loop, n, block, *variant_args(m, p)),
                            config=CONFIG, pes=5, options=("--trace-text", "--trace-pes", "1")))


def protocol_thread_waits(event_log, start=0, end=float("inf")):
    """{entry name: [clocks waited]} of the protocol threads (mpi_*) of the one PE in an
    `emx run --trace-text --trace-pes N` event log, whose packets arrived between clocks
    start and end. Ready packets start threads in FIFO order, so the k-th "thread ready"
    starts the k-th thread (after _start): the difference is how long that thread waited
    in the input buffer, i.e. for the threads before it to end."""
    # (Only the threads' lines are parsed: half of a log of a quarter million lines.)
    lines = (line for line in event_log.splitlines()
             if "thread ready" in line or "thread start" in line)
    ev = [(int(m[1]), m[3]) for m in map(TRACE.match, lines) if m]
    ready = [t for t, what in ev if "thread ready" in what]
    starts = [(t, what.split()[2]) for t, what in ev
              if what.startswith("thread start") and " _start " not in what]
    if len(ready) != len(starts):
        raise ValueError(f"{len(ready)} ready packets but {len(starts)} thread starts")
    waits = {}
    for r_t, (s_t, name) in zip(ready, starts):
        if name.startswith("mpi_") and start <= r_t < end:
            waits.setdefault(name, []).append(s_t - r_t)
    return waits


def backsub_threads_figures(params, r):
    # Only the solve: the generator and the check run long threads of their own.
    waits = protocol_thread_waits(r.stderr, r.results["start_cycle"], r.results["end_cycle"])
    every = [w for v in waits.values() for w in v]

    def row(name, v):
        return {"thread": name, "count": len(v), "mean_wait_cycles": sum(v) / len(v),
                "median_wait_cycles": statistics.median(v), "max_wait_cycles": max(v),
                "over_1000": sum(w > 1000 for w in v)}
    return [row(name, v) for name, v in sorted(waits.items())] + [row("all protocol threads", every)]


def backsub_threads_view(df):
    d = df[df["thread"] == "all protocol threads"]
    return d[["solver", "loop", "count", "over_1000", "mean_wait_cycles", "median_wait_cycles",
              "max_wait_cycles"]]


def backsub_threads_plot(df, fig):
    ax = fig.subplots()
    d = df[df["thread"] == "all protocol threads"]
    labels = [f"{s}\n{l}" for s, l in zip(d["solver"], d["loop"])]
    ax.bar(range(len(d)), d["mean_wait_cycles"], color=["#3465a4" if l == "noyield" else "#fcaf3e"
                                                          for l in d["loop"]])
    ax.set_xticks(range(len(d)), labels, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("mean wait of a protocol thread on PE 1 (clocks)")
    ax.grid(True, axis="y", alpha=0.3)


EXPERIMENTS += [
    Experiment("mpi.backsub", "mpi",
               "Back substitution: MFlops per PE, 6 variants x receives normal / in advance "
               "x with / without yield, and the sequential solver (Table 3)",
               backsub_runs, backsub_figures, plot=backsub_plot, view=backsub_view,
               params={"n": 2000, "block": 25, "pes": 5},
               doc=DOC),
    Experiment("mpi.backsub_threads", "mpi",
               "Back substitution: how long protocol threads wait for the compute loop "
               "(PE 1, receives normal, the timed solve)",
               backsub_threads_runs, backsub_threads_figures, plot=backsub_threads_plot,
               view=backsub_threads_view, params={"n": 2000, "block": 25}, doc=DOC),
]


# ---- The paper's statements about Table 1 and Fig. 10 (docs/papers.md), as checks

def _lat(t, m, p, mode="naive", size=4, col="oneway_us"):
    from emx.experiment import value
    return value(t, col, matching=m, protocol=p, mode=mode, bytes=size)


def _rate(t, m, p, size):
    from emx.experiment import value
    return value(t, "mbps", matching=m, protocol=p, bytes=size)


def _mpi_checks():
    from emx.experiment import Check
    t1, f10 = "MPI paper, Table 1", "MPI paper, Fig. 10"
    pairs = [(m, p) for p in ("sync", "get") for m in ("both", "receiver")]
    latency = [
        Check("Naive ping-pong: sync and get pay for a sender-side match that always fails, "
              "so receiver-only matching is faster for them.", t1,
              lambda t: {f"{m} {p}, naive 4 B (µs)": _lat(t, m, p) for m, p in pairs},
              lambda f: all(f[f"receiver {p}, naive 4 B (µs)"] < f[f"both {p}, naive 4 B (µs)"]
                            for p in ("sync", "get")),
              "receiver-only < both sides, for sync and for get"),
        Check("Naive ping-pong: buffered is faster with matching on both sides (the first "
              "receive's sender-side match always succeeds).", t1,
              lambda t: {f"{m} buffered, naive 4 B (µs)": _lat(t, m, "buffered")
                         for m in ("both", "receiver")},
              lambda f: f["both buffered, naive 4 B (µs)"] < f["receiver buffered, naive 4 B (µs)"],
              "both sides < receiver-only"),
        Check("Naive ping-pong: get is zero-copy, so get and sync have low latency.", t1,
              lambda t: {f"{m} {p}, naive 4 B (µs)": _lat(t, m, p)
                         for m in ("both", "receiver") for p in ("buffered", "get", "sync")},
              lambda f: all(f[f"{m} {p}, naive 4 B (µs)"] < f[f"{m} buffered, naive 4 B (µs)"]
                            for m in ("both", "receiver") for p in ("get", "sync")),
              "get and sync < buffered, with either matching"),
        Check("Sync and get differ only in implementation.", t1,
              lambda t: {f"{m} {mode}: sync / get": _lat(t, m, "sync", mode) / _lat(t, m, "get", mode)
                         for m in ("both", "receiver") for mode in ("naive", "advance")},
              lambda f: all(abs(v - 1) <= 0.15 for v in f.values()),
              "sync / get within 15 % in every cell"),
        Check("Both-sides pre-issue costs more per receive than receiver-only: each MPI_Irecv "
              "sends a receive request by remote thread creation.", t1,
              lambda t: {f"{m}, pre-issue per receive (µs)":
                         _lat(t, m, "get", "advance", 4, "preissue_us") for m in ("both", "receiver")},
              lambda f: f["both, pre-issue per receive (µs)"] > f["receiver, pre-issue per receive (µs)"],
              "both sides > receiver-only"),
    ]
    big = SIZES[-1]
    throughput = [
        Check("Receiver-only sync and get reach a throughput only slightly below both-sides "
              "matching (the remote read is fast, the receiver only waits).", f10,
              lambda t: {f"receiver / both {p}, {big} B": _rate(t, "receiver", p, big)
                         / _rate(t, "both", p, big) for p in ("sync", "get")},
              lambda f: all(0.8 <= v < 1.0 for v in f.values()),
              "0.8 <= receiver-only / both sides < 1 at the largest size"),
        Check("Buffered always allocates and copies, so its throughput does not grow with the "
              "message size.", f10,
              lambda t: {f"both buffered, {big} B / 65536 B": _rate(t, "both", "buffered", big)
                         / _rate(t, "both", "buffered", 65536)},
              lambda f: all(v <= 1.1 for v in f.values()),
              "the rate at the largest size within 10 % of the rate at 64 KiB"),
    ]
    return {"mpi.latency": latency, "mpi.throughput": throughput}


for _e in EXPERIMENTS:
    _e.checks = list(_e.checks) + _mpi_checks().get(_e.name, [])
