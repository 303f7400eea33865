"""The two one-sided layers on the EM-X: the ACP basic layer ("Evaluation of communication
performance and memory usage of the ACP library") and OMPL ("A lightweight inter-node
communication layer supporting a multitask PGAS model"), against MPI-EMX. Programs:
programs/acp/ (acp_bench, acp_mpi_bench, ompl_pingpong, acp_mpi_threads); what the
machine does in each case: docs/experiments/acp-ompl.md. docs/papers.md records
what the papers measured; the one statement checked is ACP's flat memory."""
from collections import deque

from emx.experiment import Check, Experiment, Point, Run
from emx.plotting import panels_with_legend

CONFIG = "emx80-16mhz"
DOC = "docs/experiments/acp-ompl.md"


# ---- 1. One_put_all: memory of rank 0 against the number of ranks

def _growth(t):
    lo, hi = t["ranks"].min(), t["ranks"].max()
    out = {}
    for layer, g in t.groupby("layer"):
        g = g.set_index("ranks")
        out[f"{layer}: peak at {hi} / at {lo} ranks"] = g.loc[hi, "peak_bytes"] / g.loc[lo, "peak_bytes"]
    return out


# docs/papers.md, ACP paper: its point about memory.
FLAT_MEMORY = Check(
    "ACP's communication memory stays nearly flat as the number of processes grows, while "
    "an MPI library's grows.", "ACP paper, One_put_all memory measurement", _growth,
    lambda f: all(v <= 1.1 for k, v in f.items() if k.startswith("ACP"))
    and all(v >= 1.2 for k, v in f.items() if not k.startswith("ACP")),
    "ACP's peak within 10 % across the rank counts; MPI-EMX's 20 % or more higher at the most ranks")

def memory_runs(opt):
    pes = [2, 4, 8] if opt.quick else [2, 4, 8, 16, 32, 64]
    reps_div = 1000 if opt.quick else opt["reps_div"]
    for p in pes:
        for layer, program in (("ACP", "acp_bench"), ("MPI-EMX Isend/Irecv", "acp_mpi_bench")):
            yield Point({"layer": layer, "ranks": p},
                        Run(program, ("oneputall", opt["scale"], reps_div), config=CONFIG, pes=p))


def memory_figures(params, r):
    return {"init_bytes": r.results["mem_init_bytes"], "peak_bytes": r.results["mem_peak_bytes"]}


def memory_view(df):
    t = df.pivot_table(index="ranks", columns="layer", values=["init_bytes", "peak_bytes"])
    t.columns = [f"{layer}: {what.replace('_', ' ')}" for what, layer in t.columns]
    return t.reset_index()


def memory_plot(df, fig):
    ax = fig.subplots()
    for (layer, g), color in zip(df.groupby("layer"), ("#3465a4", "#cc7a00")):
        g = g.sort_values("ranks")
        ax.plot(g["ranks"], g["peak_bytes"] / 1024, "o-", color=color, label=f"{layer}: peak")
        ax.plot(g["ranks"], g["init_bytes"] / 1024, "s--", color=color, fillstyle="none",
                label=f"{layer}: after init")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ranks (PEs)")
    ax.set_ylabel("rank 0's heap for communication (KiB)")
    ax.set_title("One_put_all (sizes / 64): memory of rank 0", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


# ---- 2. Put and get latency and bandwidth, 4 B .. 1 MB

def farthest_peer(groups=16, k=5, pes=80):
    """The rank whose round trip from rank 0 crosses the most links of the circular omega
    network (network/README.md: ring port j -> j+1 of the group, shuffle port
    x -> (x mod G) k + x div G)."""
    def hops(src):
        d, q = {src: 0}, deque([src])
        while q:
            x = q.popleft()
            g, j = divmod(x, k)
            for y in (k * g + (j + 1) % k, (x % groups) * k + x // groups):
                if y not in d:
                    d[y] = d[x] + 1
                    q.append(y)
        return d
    out = hops(0)
    return max(range(1, pes), key=lambda p: (out[p] + hops(p)[0], -p))


SIZES = [4 << (2 * k) for k in range(10)]            # 4 B, 16 B ... 1 MiB
QUICK_SIZES = [4, 1024, 65536]
CASES = [("ACP put", "acp_bench", ("put",), ()),
         ("ACP get", "acp_bench", ("get",), ()),
         ("MPI one-sided send", "acp_mpi_bench", ("pingpong",),
          ("-mpi-matching=both", "-mpi-protocol=get")),
         ("MPI receiver-side get", "acp_mpi_bench", ("pingpong",),
          ("-mpi-matching=receiver", "-mpi-protocol=get"))]


def latency_runs(opt):
    sizes = QUICK_SIZES if opt.quick else SIZES
    placements = [("2 PEs", 2, 1)] if opt.quick else [("2 PEs", 2, 1),
                                                      ("80 PEs, farthest", 80, farthest_peer())]
    for where, pes, peer in placements:
        for case, program, mode, extra in CASES:
            for size in sizes:
                iters = max(1, min(opt["iterations"], 65536 // size))
                yield Point({"case": case, "placement": where, "peer": peer, "bytes": size},
                            Run(program, (*mode, size, iters, peer, *extra), config=CONFIG,
                                pes=pes))


def latency_figures(params, r):
    return {"latency_us": r.results["us"], "mbytes_per_s": r.results["mbytes_per_s"]}


def latency_view(df):
    t = df.pivot_table(index=["placement", "bytes"], columns="case",
                       values=["latency_us", "mbytes_per_s"], sort=False)
    t.columns = [f"{c} ({'us' if v == 'latency_us' else 'MB/s'})" for v, c in t.columns]
    return t.reset_index()


def latency_plot(df, fig):
    axes = fig.subplots(1, 2)
    styles = dict(zip(df["placement"].unique(), ("-", "--")))
    for (case, where), g in df.groupby(["case", "placement"], sort=False):
        g = g.sort_values("bytes")
        axes[0].plot(g["bytes"], g["latency_us"], styles[where], marker="o", markersize=3,
                     label=f"{case}, {where}")
        axes[1].plot(g["bytes"], g["mbytes_per_s"], styles[where], marker="o", markersize=3)
    for ax, label in zip(axes, ("latency (µs): ACP copy + complete, MPI one way",
                                "bandwidth (MB/s)")):
        ax.set_xscale("log")
        ax.set_xlabel("bytes")
        ax.set_ylabel(label, fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_yscale("log")
    axes[0].legend(fontsize=6)


# ---- 2b. Remote-to-remote copy: the hardware against the source rank's emulation

# Rank 0 copies from one rank to another: on EM-X whole words go by one block read whose
# completion travels behind the data to the destination (rdbf, docs/pe.md); the original
# ACP's emulation (a request to the source rank, whose handler pushes) by name.
R2R_CASES = [("ACP remote-to-remote, block read", ()),
             ("ACP remote-to-remote, source's handler", ("-acp-remote-copy=software",))]


def remote_copy_runs(opt):
    sizes = QUICK_SIZES if opt.quick else SIZES
    placements = [("3 PEs", 3, 1, 2)]
    if not opt.quick:
        placements.append(("80 PEs, farthest", 80, farthest_peer(), 1))
    for where, pes, src, dst in placements:
        for case, extra in R2R_CASES:
            for size in sizes:
                iters = max(1, min(opt["iterations"], 65536 // size))
                yield Point({"case": case, "placement": where, "source": src, "destination": dst,
                             "bytes": size},
                            Run("acp_bench", ("r2r", size, iters, src, dst, *extra),
                                config=CONFIG, pes=pes))


# ---- 3. OMPL multi-task ping-pong against MPI from many computations and rank pairs

PP_SIZES = [4, 64, 1024, 16384, 131072]
PP_QUICK = [4, 1024]


def pingpong_runs(opt):
    ts = [1, 4] if opt.quick else [1, 2, 4, 8, 16]
    for t in ts:
        for size in (PP_QUICK if opt.quick else PP_SIZES):
            iters = 2 if size >= 16384 else opt["iterations"]
            base = {"T": t, "bytes": size}
            yield Point({**base, "how": "OMPL, T tasks per PE"},
                        Run("ompl_pingpong", (t, size, iters, "tasks"), config=CONFIG, pes=2))
            yield Point({**base, "how": "MPI, T computations per rank"},
                        Run("acp_mpi_threads", (t, size, iters), config=CONFIG, pes=2))
            yield Point({**base, "how": "OMPL, one rank per pair"},
                        Run("ompl_pingpong", (t, size, iters, "ranks"), config=CONFIG,
                            pes=max(2, 2 * t)))


def pingpong_figures(params, r):
    return {"oneway_us": r.results["oneway_us"], "slowest_pair_us": r.results["oneway_max_us"]}


def pingpong_view(df):
    t = df.pivot_table(index=["how", "bytes"], columns="T", values="oneway_us", sort=False)
    t.columns = [f"T={c} (us)" for c in t.columns]
    return t.reset_index()


def pingpong_plot(df, fig):
    sizes = sorted(df["bytes"].unique())
    axes, legend = panels_with_legend(fig, len(sizes))
    for ax, size in zip(axes, sizes):
        for how, g in df[df["bytes"] == size].groupby("how", sort=False):
            g = g.sort_values("T")
            ax.plot(g["T"], g["oneway_us"], "o-", markersize=3, label=how)
        # y=1.0: where matplotlib would place it (nothing is above the panel), unmeasured
        ax.set_title(f"{size} B", fontsize=8, y=1.0)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("T pairs", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("one-way latency per pair (µs)")
    legend(*axes[0].get_legend_handles_labels())  # below: in the 4 B panel it covered it


EXPERIMENTS = [
    Experiment("acp_ompl.memory", "acp_ompl",
               "ACP One_put_all: memory of rank 0 against the number of ranks, ACP against "
               "MPI-EMX Isend/Irecv (paper sizes / 64, repetitions / 100)",
               memory_runs, memory_figures, plot=memory_plot, view=memory_view,
               params={"scale": 64, "reps_div": 100}, doc=DOC, checks=[FLAT_MEMORY],
               quick="2, 4 and 8 ranks instead of up to 64, and the repetitions / 1000: the "
                     "memory does not depend on the repetitions, and at 8 ranks MPI-EMX's "
                     "growth has only begun."),
    Experiment("acp_ompl.latency", "acp_ompl",
               "Put and get latency and bandwidth, 4 B to 1 MB: ACP against MPI-EMX's "
               "one-sided send and receiver-side get, 2 PEs and the farthest pair of 80",
               latency_runs, latency_figures, plot=latency_plot, view=latency_view,
               params={"iterations": 10}, doc=DOC),
    Experiment("acp_ompl.remote_copy", "acp_ompl",
               "ACP remote-to-remote copy, 4 B to 1 MB: one block read with its completion "
               "forwarded through the destination against the source rank's emulation, 3 PEs "
               "and from the farthest rank of 80",
               remote_copy_runs, latency_figures, plot=latency_plot, view=latency_view,
               params={"iterations": 10}, doc=DOC),
    Experiment("acp_ompl.pingpong", "acp_ompl",
               "OMPL multi-task ping-pong: one-way latency against T pairs and size, against "
               "MPI from T computations per rank and against one rank per pair",
               pingpong_runs, pingpong_figures, plot=pingpong_plot, view=pingpong_view,
               params={"iterations": 10}, doc=DOC),
]
