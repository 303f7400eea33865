#!/usr/bin/env python3
"""Instructions per protocol path of MPI-EMX (issue 17, part 3): where one message's
instructions go, per path, for the paper's mechanisms (the default) or with options.

    bench/mpi_paths.py [--options NAME[,NAME...]]

Profiles the ping-pong between ranks 1 and 2 of the 80-PE EM-X (both PEs; 100 round trips,
4 bytes): in advance with matching on both sides (receive requests, the one-sided send,
removals) and naive with matching on the receiver only, get (send requests, the fetch).
For each path it prints the functions that make it and their instructions per message
(a function's instructions in the run over the messages sent, `emx run --profile`), and
the path's sum. A benchmark, not a test: the figures are
deterministic, the budgets in docs/mpi.md are these sums.
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

# path -> (run, functions): the functions a message's path runs through, in order.
PATHS = [
    ("receive request, issuer (MPI_Irecv)", "advance",
     ["MPI_Irecv", "mpi_irecv_general", "recv_start", "proto_create", "mpi_h_segment_reply",
      "emx_put"]),
    ("receive request, sender (segment, thread)", "advance",
     ["mpi_h_segment", "emx_frame_alloc", "request_thread", "rreq_arrived_words", "mpi_t_rreq",
      "mpi_h_rreq", "mpi_h_stage"]),
    ("one-sided send (MPI_Isend hit)", "advance", ["MPI_Isend", "start_send", "send_start"]),
    ("removal", "advance", ["mpi_h_remove"]),
    ("completion (MPI_Wait, blocking)", "advance",
     ["wait_named", "wait_blocking", "block_on", "__emx_resume", "__emx_wait"]),
    ("send request, sender (MPI_Isend miss)", "naive",
     ["MPI_Isend", "start_send", "send_start", "proto_create", "mpi_h_segment_reply",
      "emx_put", "mpi_h_credit"]),
    ("send request, receiver (thread)", "naive",
     ["mpi_h_segment", "emx_frame_alloc", "request_thread", "sreq_arrived", "mpi_h_sreq"]),
    ("fetch (remote read) and completion", "naive",
     ["fetch_start", "block_arrived", "fetch_issue", "fetch_store", "fetched", "recv_finish"]),
]


def profile(mode, matching, options):
    args = [mode, 4, 100, f"-mpi-matching={matching}", "-mpi-protocol=get"]
    if options:
        args.append(f"-mpi-option={options}")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "profile.txt")
        sim.run("mpi_pingpong", args, options=("--profile", out, "--profile-pes", "1,2")).check()
        rows = {}
        for line in open(out):
            m = ROW.match(line)
            if m:
                rows[m[4]] = (int(m[2]), int(m[3]))  # instructions, calls
        return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--options", default="", help="-mpi-option= value (default: none)")
    a = ap.parse_args()
    runs = {"advance": profile("advance", "both", a.options),
            "naive": profile("naive", "receiver", a.options)}
    print(f"instructions per message, ranks 1 and 2, 4 bytes; options: {a.options or 'none'}")
    for name, run, fns in PATHS:
        rows = runs[run]
        messages = rows["MPI_Isend"][1]
        parts = [(f, rows[f][0] / messages) for f in fns if f in rows]
        total = sum(v for _, v in parts)
        print(f"{name:45s} {total:6.0f}   " + ", ".join(f"{f} {v:.0f}" for f, v in parts))


if __name__ == "__main__":
    main()
