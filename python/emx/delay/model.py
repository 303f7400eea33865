"""The LogGP prediction of a schedule's makespan (the delay-insertion paper,
docs/papers.md), with the receive side as EM-X has it.

Parameters in clocks (G per byte):
  o, G   a send occupies its PE for I(k) = o + (k-1)G; consecutive sends start at least
         g apart (slot = max(g, I(k))); a delay slot idles the PE for delta;
  L      from the end of a send until the data are in at an idle destination;
  o_r    the destination's processor time per received message (on EM-X the data go to
         memory without it; it runs the protocol's completion thread and wakes Waitall).
A message i to destination q is in at d_i = max(t_i + I(k) + L, d_(i-1) + gap): a busy
destination takes one message at a time (arrival order). gap = I(k) in the paper's model
("paper": with h earlier arrivals the destination is busy for |S_q| I(k)); "port" (ours):
(k-1)G, the time the message's bytes hold the destination's link; "blocking" (ours): the
same, and a sender whose destination's link is taken waits for it (on EM-X the sender's
processor writes the data into the network: a full output queue stalls it, so contention
delays the sender's later sends too). The destination handles
it o_r later, one after the other, and not while its own run of sends executes (a thread
is never interrupted: the handler waits for the run's end or a delay). Makespan = max over
arcs of the completion, and over PEs of the end of their last send."""
from __future__ import annotations

import bisect
import heapq
from dataclasses import asdict, dataclass

from .schedules import Schedule

RECEIVE_GAPS = ("paper", "port", "blocking")


@dataclass(frozen=True)
class LogGP:
    L: float        # latency, clocks
    o: float        # send overhead, clocks
    g: float        # gap between consecutive sends, clocks
    G: float        # gap per byte, clocks
    o_r: float = 0  # receive overhead on the destination's processor, clocks

    def I(self, k: int) -> float:
        return self.o + max(k - 1, 0) * self.G

    def slot(self, k: int) -> float:
        return max(self.g, self.I(k))

    def as_dict(self) -> dict:
        return asdict(self)


def send_times(schedule: Schedule, k: int, m: LogGP, delta: float) -> list[tuple[float, int, int]]:
    """(start, p, q) of every send: a PE's entries one after another."""
    out, slot = [], m.slot(k)
    for p, entries in enumerate(schedule.lists):
        t = 0.0
        for q in entries:
            if q is None:
                t += delta
            else:
                out.append((t, p, q))
                t += slot
    return out


def busy_runs(schedule: Schedule, k: int, m: LogGP, delta: float) -> list[list[tuple[float, float]]]:
    """Per PE, the spans of its runs of consecutive sends (one thread each)."""
    runs, slot = [], m.slot(k)
    for entries in schedule.lists:
        spans, t, start = [], 0.0, None
        for q in entries:
            if q is None:
                if start is not None:
                    spans.append((start, t))
                    start = None
                t += delta
            else:
                start = t if start is None else start
                t += slot
        if start is not None:
            spans.append((start, t))
        runs.append(spans)
    return runs


def blocking_sends(schedule: Schedule, k: int, m: LogGP, delta: float):
    """Sends in time order, each taking its destination's link for (k-1)G once both the
    sender (after o) and the link are free; the sender is busy until its data are out.
    Returns ([(data out, p, q)], per PE the spans of its runs of sends, end of sends)."""
    n = len(schedule.lists)
    clock, pos = [0.0] * n, [0] * n
    link_free: dict[int, float] = {}
    runs: list[list[tuple[float, float]]] = [[] for _ in range(n)]
    run_start: list = [None] * n
    heap = [(0.0, p) for p in range(n) if schedule.lists[p]]
    heapq.heapify(heap)
    out, end = [], 0.0
    slot, transfer = m.slot(k), max(k - 1, 0) * m.G
    while heap:
        t, p = heapq.heappop(heap)
        q = schedule.lists[p][pos[p]]
        pos[p] += 1
        if q is None:
            if run_start[p] is not None:
                runs[p].append((run_start[p], t))
                run_start[p] = None
            clock[p] = t + delta
        else:
            run_start[p] = t if run_start[p] is None else run_start[p]
            data_end = max(t + m.o, link_free.get(q, float("-inf"))) + transfer
            link_free[q] = data_end
            clock[p] = max(data_end, t + slot)
            out.append((data_end, p, q))
        if pos[p] < len(schedule.lists[p]):
            heapq.heappush(heap, (clock[p], p))
        else:
            if run_start[p] is not None:
                runs[p].append((run_start[p], clock[p]))
            end = max(end, clock[p])
    return out, runs, end


def handle_receives(by_dest: dict, runs, gap: float, o_r: float) -> float:
    """The last completion: each destination takes its messages one at a time (gap apart),
    handling each for o_r, but not inside one of its own runs of sends."""
    starts = [[s for s, _ in r] for r in runs]
    end = 0.0
    for q, arrivals in by_dest.items():
        data_in = handled = float("-inf")
        for a in sorted(arrivals):
            data_in = max(a, data_in + gap)
            h = max(data_in, handled)
            i = bisect.bisect_right(starts[q], h) - 1
            if i >= 0 and h < runs[q][i][1]:  # q is inside a run of sends: after it
                h = runs[q][i][1]
            handled = h + o_r
        end = max(end, handled)
    return end


def predict(schedule: Schedule, k: int, m: LogGP, delta: float, receive_gap: str = "paper") -> float:
    """The predicted makespan in clocks."""
    if receive_gap not in RECEIVE_GAPS:
        raise ValueError(f"receive_gap must be one of {RECEIVE_GAPS}, not {receive_gap!r}")
    by_dest: dict[int, list[float]] = {}
    if receive_gap == "blocking":
        sends, runs, end = blocking_sends(schedule, k, m, delta)
        for data_end, p, q in sends:
            by_dest.setdefault(q, []).append(data_end + m.L)
        return max(end, handle_receives(by_dest, runs, 0.0, m.o_r))
    send = m.I(k)
    gap = send if receive_gap == "paper" else max(k - 1, 0) * m.G
    end = 0.0
    for t, p, q in send_times(schedule, k, m, delta):
        by_dest.setdefault(q, []).append(t + send + m.L)
        end = max(end, t + send)
    return max(end, handle_receives(by_dest, busy_runs(schedule, k, m, delta), gap, m.o_r))
