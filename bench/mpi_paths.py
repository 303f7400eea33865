#!/usr/bin/env python3
"""Instructions per protocol path of MPI-EMX (issue 17, part 3): where one message's
instructions go, per path, for the paper's mechanisms (the default) or with options.

    bench/mpi_paths.py [--options NAME[,NAME...]]

Profiles the 4-byte ping-pong between ranks 1 and 2 of the 80-PE EM-X (both PEs), in
advance with matching on both sides (receive requests, the one-sided send, removals) and
naive with matching on the receiver only, get (send requests, the fetch, two blocking
waits per message). Each run is profiled with 10 and with 20 round trips; a function's
instructions per message are the difference over the 20 extra messages (`emx run
--profile`), so start-up, warm-up and the final barriers drop out. For each path it prints
the functions that make it (names of today's library and of earlier ones: those absent
are skipped) and the path's sum; then what no path names ("other": the program's own
loop, which also holds the live values a blocking MPI_Wait spills, and pool growth
when receives are posted in advance) and the total per message. A benchmark, not a test:
the figures are deterministic, the budgets in docs/experiments/mpi.md ("Instructions per
protocol path") are these sums.
"""
import argparse
import os
import re
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402

ROW = re.compile(r"^\s*(\d+)\s+[\d.]+\s+(\d+)\s+[\d.]+\s+(\d+)\s+[\d.]+\s+(\S+)\s*$")

CREATION = ["proto_create", "proto_create4", "create_refill", "mpi_h_segment_reply",
            "segment_reply_general", "proto_after_invocation", "emx_put"]
SEGMENT = ["mpi_h_segment", "segment_carved", "emx_frame_alloc", "__emx_frame_refill",
           "request_thread"]
COMPLETION = ["MPI_Wait", "wait_named", "wait_blocking", "block_on", "mpi_wait_begin",
              "mpi_wait_begin_general",
              "mpi_wait_end", "progress_success", "mpi_progress", "__emx_resume",
              "__emx_wait"]
# (path, run, functions): the functions a message's path runs through, in order.
PATHS = [
    ("receive request, issuer (MPI_Irecv ... creation)", "advance",
     ["MPI_Irecv", "mpi_irecv_begin", "irecv_other", "mpi_irecv_general", "recv_start",
      "mpi_irecv_request",
      "proto_direct_begin", "direct_slow", "mpi_irecv_end", "irecv_end_after"] + CREATION),
    ("receive request, on the sender", "advance",
     SEGMENT + ["mpi_rreq_thread", "rreq_arrived_words", "mpi_t_rreq", "mpi_h_rreq",
                "mpi_h_stage", "rreq_arrived", "kq_push"]),
    ("one-sided send (MPI_Isend hit)", "advance",
     ["MPI_Isend", "mpi_isend_begin", "start_send", "send_started", "send_start"]),
    ("removal", "advance", ["mpi_h_remove", "remove_general"]),
    ("completion (MPI_Wait, one blocks)", "advance", COMPLETION),
    ("receive posted (receiver-only MPI_Irecv)", "naive",
     ["MPI_Irecv", "mpi_irecv_begin", "irecv_other", "mpi_irecv_general", "mpi_irecv_post",
      "recv_start"]),
    ("send request, sender (MPI_Isend miss ... creation)", "naive",
     ["MPI_Isend", "mpi_isend_begin", "start_send", "send_started", "send_start",
      "send_request", "send_start_ok", "send_only", "mpi_isend_end"] + CREATION +
     ["mpi_h_credit"]),
    ("send request, on the receiver (matching)", "naive",
     SEGMENT + ["mpi_sreq_thread", "mpi_sreq_thread_general", "sreq_arrived", "sreq_general", "mpi_h_sreq", "mpi_h_stage",
                "record_new", "posted_match", "deliver"]),
    ("fetch (remote read) and completion", "naive",
     ["fetch_from_sender", "fetch_start", "fetch_general", "fetch_grant", "block_issue",
      "block_arrived", "stream_issue", "stream_arrived", "mpi_sreq_read_done",
      "frame_take", "frame_returned", "grant_waiting", "fetch_issue", "fetch_store", "fetched",
      "recv_finish"]),
    ("completion (MPI_Wait, both block)", "naive", COMPLETION),
]


def profile(mode, matching, options, iterations):
    args = [mode, 4, iterations, f"-mpi-matching={matching}", "-mpi-protocol=get"]
    if options:
        args.append(f"-mpi-option={options}")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "profile.txt")
        sim.run("mpi_pingpong", args, options=("--profile", out, "--profile-pes", "1,2")).check()
        rows = {}
        for line in open(out):
            m = ROW.match(line)
            if m:
                name = m[4].split(".")[0]  # a compiler's clone (f.constprop.0) counts as f
                rows[name] = rows.get(name, 0) + int(m[2])  # instructions
        return rows


def per_message(mode, matching, options):
    """Instructions per message of each function: 20 round trips minus 10, over 20
    messages. The receives posted in advance stay within a receiver's first credits for
    receive requests (25 per peer on 80 PEs, docs/mpi-flow-control.md): beyond them the
    grants of more would count as the receive requests' work."""
    a = profile(mode, matching, options, 10)
    b = profile(mode, matching, options, 20)
    return {f: (b.get(f, 0) - a.get(f, 0)) / 20 for f in set(a) | set(b)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--options", default="", help="-mpi-option= value (default: none)")
    a = ap.parse_args()
    runs = {"advance": per_message("advance", "both", a.options),
            "naive": per_message("naive", "receiver", a.options)}
    print(f"instructions per message, ranks 1 and 2, 4 bytes; options: {a.options or 'none'}")
    named = {"advance": set(), "naive": set()}
    for name, run, fns in PATHS:
        rows = runs[run]
        parts = [(f, rows[f]) for f in fns if abs(rows.get(f, 0)) >= 0.5]
        named[run].update(fns)
        total = sum(v for _, v in parts)
        print(f"{name:52s} {total:6.0f}   " + ", ".join(f"{f} {v:.0f}" for f, v in parts))
    for run, label in (("advance", "in advance, both sides"), ("naive", "naive, receiver, get")):
        rows = runs[run]
        other = sorted(((f, v) for f, v in rows.items() if f not in named[run] and abs(v) >= 0.5),
                       key=lambda x: -x[1])
        print(f"{'other (' + label + ')':52s} {sum(v for _, v in other):6.0f}   "
              + ", ".join(f"{f} {v:.0f}" for f, v in other))
        print(f"{'total per message (' + label + ')':52s} {sum(rows.values()):6.0f}")


if __name__ == "__main__":
    main()
