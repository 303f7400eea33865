"""Microbenchmarks of the machine (programs/micro, docs/microbenchmarks.md) on each
machine variant: remote read, remote write, thread invocation, 2-input matching; and the
cost of a suspension (programs/runtime_tests/suspend.c)."""
from emx.experiment import Check, Experiment, Point, Published, Run, about, value
from emx.report import header

MACHINES = ["emx80-16mhz", "emx80-20mhz", "emx-thread-write", "em4"]
DOC = "docs/microbenchmarks.md"
RADIX = "radix paper, text"      # docs/papers.md records what each paper says
QUICK = "EM-X at 16 MHz and EM-4 only (not the 20 MHz EM-X and EM-X'); the figures of those two are the full run's"


def _machines(opt):
    return MACHINES[:1] + MACHINES[3:] if opt.quick else MACHINES


def _us(row, result, *names):
    for n in names:
        row[n.replace("_cycles", "_us")] = row[n] / result.clock_mhz
    return row


def _bars(y, label):
    def plot(df, fig):
        ax = fig.subplots()
        cols = [c for c in y if c in df.columns]
        keys = [c for c in ("machine", "target", "readers", "read") if c in df.columns]
        labels = [" ".join(f"{r[k]}" if k != "readers" else f"{r[k]} readers" for k in keys)
                  for _, r in df.iterrows()]
        width = 0.8 / len(cols)
        for i, c in enumerate(cols):
            ax.bar([x + i * width for x in range(len(df))], df[c], width, label=header(c))
        ax.set_xticks([x + width * (len(cols) - 1) / 2 for x in range(len(df))], labels,
                      fontsize=8)
        ax.set_ylabel(label)
        if len(cols) > 1:                  # one bar a point needs no legend: the y label
            ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    return plot


def read_runs(opt):
    for m in _machines(opt):
        yield Point({"machine": m}, Run("micro_remote_read", config=m))


def read_figures(params, r):
    row = {k: r.results[f"remote_read_{k}_cycles"] for k in ("min", "mean", "max")}
    row = {f"{k}_cycles": v for k, v in row.items()}
    return _us(row, r, "min_cycles", "mean_cycles", "max_cycles")


def write_runs(opt):
    for m in _machines(opt):
        # EM-4's receiver runs a handler thread per word (15 clocks) behind a 5-clock
        # sender: a stream of 16384 words outgrows its 8192-packet spill area, which
        # EM-4 programs avoided by suspending (docs/experiments/radix.md); 8192 fit.
        words = 1024 if opt.quick else 8192 if m == "em4" else 16384
        yield Point({"machine": m, "target": "one"}, Run("micro_remote_write", (words,), config=m))
        yield Point({"machine": m, "target": "all"},
                    Run("micro_remote_write", (1024, "all"), config=m))


def write_figures(params, r):
    # cycles_per_word: first send to the last receiver's arrival (on EM-X' and EM-4 its
    # handler threads); send_cycles_per_word: the sender's loop alone.
    words = r.results["remote_write_bytes"] / 4
    return {"cycles_per_word": r.results["remote_write_cycles_per_word"],
            "send_cycles_per_word": r.results["remote_write_send_cycles"] / words,
            "mb_s": r.results["remote_write_mb_s"]}


def block_read_runs(opt):
    words = 1024 if opt.quick else 16384
    # read: our single-request block read (rdb/rdbn), or the hardware's SYSRD a word
    # replying as a remote write, asked for by the reader's loop (docs/pe.md, sysrdw).
    for m in ("emx80-16mhz", "emx80-20mhz"):     # EM-X only: EM-X' and EM-4 have neither
        for readers in (1, 15):
            for read in ("block", "sysrd"):
                yield Point({"machine": m, "readers": readers, "read": read},
                            Run("micro_block_read", (words, readers, read), config=m))


def block_read_figures(params, r):
    return {"cycles_per_word": r.results["block_read_cycles_per_word"],
            "mb_s": r.results["block_read_mb_s"]}


def invoke_runs(opt):
    for m in _machines(opt):
        yield Point({"machine": m}, Run("micro_invoke", config=m))


def invoke_figures(params, r):
    row = {f"{k}_cycles": r.results[f"invoke_round_trip_{k}_cycles"]
           for k in ("min", "mean", "max")}
    return _us(row, r, "min_cycles", "mean_cycles", "max_cycles")


def match_runs(opt):
    for m in _machines(opt):
        yield Point({"machine": m}, Run("micro_match", config=m))


def match_figures(params, r):
    return {k: r.results[k] for k in ("invoke1_self_cycles", "invoke2_self_cycles",
                                      "match_extra_cycles")}


def suspend_runs(opt):
    for m in _machines(opt):
        yield Point({"machine": m}, Run("rt_suspend", config=m))


def suspend_figures(params, r):
    # rt_suspend times 1000 suspensions and resumptions of a loop with 0 and with 4 live
    # values, by emx_yield (a context) and by the lean suspension in a frame (the
    # collectives'), less the machine's part (a thread invoking itself); live4_cycles is
    # what the 4 live values add.
    res = r.results
    row = {}
    for kind, prefix in (("yield", ""), ("lean", "lean_")):
        for live in (0, 4):
            row[f"{kind}_{live}_live_cycles"] = res[f"{prefix}suspend_resume_cycles_{live}_live"]
        row[f"{kind}_live4_cycles"] = row[f"{kind}_4_live_cycles"] - row[f"{kind}_0_live_cycles"]
    row["self_invocation_cycles"] = res["self_invocation_cycles"]
    return row


EXPERIMENTS = [
    Experiment("micro.remote_read", "micro",
               "Remote read (SYSRD) latency over every ordered pair of PEs",
               read_runs, read_figures, plot=_bars(["min_us", "mean_us", "max_us"], "µs"),
               quick=QUICK, doc=DOC),
    Experiment("micro.remote_write", "micro",
               "Remote write (SYSWR) block throughput from PE 0, to one PE and to all",
               write_runs, write_figures, plot=_bars(["cycles_per_word"], "clocks per word"),
               # The paper gives the block transfer's clocks per word as the cost of its
               # sending loop (the cause it names: EM-4's separate address updates, EM-X's
               # auto-increment load and register-relative send; "2 instructions per
               # word"): the sender's loop is compared, send_cycles_per_word. The time
               # until the last word has landed (cycles_per_word) adds the receivers'
               # side, on EM-4 a handler thread per word (docs/microbenchmarks.md).
               published=[
                   Published("send_cycles_per_word", 2.0,
                             {"machine": "emx80-16mhz", "target": "one"},
                             f"{RADIX}: EM-X's block transfer, 2 clocks per word",
                             "clocks/word", tolerance=5),
                   Published("send_cycles_per_word", 5.0, {"machine": "em4", "target": "all"},
                             f"{RADIX}: EM-4's block transfer, 5 clocks per word",
                             "clocks/word", tolerance=5),
               ],
               checks=[Check("EM-X's block transfer (2 clocks a word) is 2.5 times EM-4's "
                             "(5 clocks: separate address updates).", RADIX,
                             lambda t: {"EM-4 / EM-X clocks per word of the sending loop":
                                        value(t, "send_cycles_per_word", machine="em4",
                                              target="all")
                                        / value(t, "send_cycles_per_word",
                                                machine="emx80-16mhz", target="one")},
                             lambda f: about(min(f.values()), 2.5, 0.05), "ratio = 2.5 +- 5 %")],
               quick=QUICK.split(";")[0] + "; 1024 words instead of 16384 to one PE (the start and "
                     "the last word's trip weigh a little more)",
               doc=DOC),
    Experiment("micro.block_read", "micro",
               "Block remote read throughput, by rdb/rdbn or by a SYSRD a word: 1 or 15 PEs read "
               "PE 0's memory at once",
               block_read_runs, block_read_figures,
               plot=_bars(["cycles_per_word"], "clocks per word (aggregate)"),
               published=[
                   Published("cycles_per_word", 2.0,
                             {"machine": "emx80-16mhz", "readers": 1, "read": "block"},
                             f"{RADIX}: block transfer reaches 2 clocks per word, the link "
                             "rate", "clocks/word", tolerance=5)],
               quick="1024 words instead of 16384",
               doc=DOC),
    Experiment("micro.invoke", "micro", "Thread invocation round trip PE 0 -> PE j -> PE 0",
               invoke_runs, invoke_figures, plot=_bars(["min_us", "mean_us", "max_us"], "µs"),
               quick=QUICK, doc=DOC),
    Experiment("micro.suspend", "micro",
               "Suspending and resuming a thread of C code (emx_yield, and the lean "
               "suspension in a frame): clocks with 0 and with 4 live values",
               suspend_runs, suspend_figures,
               plot=_bars(["yield_0_live_cycles", "yield_4_live_cycles",
                           "lean_0_live_cycles", "lean_4_live_cycles"],
                          "clocks a suspension and resumption (less the machine's part)"),
               published=[
                   Published("yield_live4_cycles", 8.0, {"machine": "emx80-16mhz"},
                             f"{RADIX}: saving and restoring 4 live variables when EM-C code "
                             "suspends a thread, 8 clocks", "clocks", tolerance=5)],
               quick=QUICK, doc=DOC),
    Experiment("micro.match", "micro",
               "Thread start on the same PE: 1-input packet against a 2-input match",
               match_runs, match_figures,
               plot=_bars(["invoke1_self_cycles", "invoke2_self_cycles"], "clocks"),
               quick=QUICK, doc=DOC),
]
