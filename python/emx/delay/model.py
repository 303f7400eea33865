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


def sends_and_runs(schedule: Schedule, k: int, m: LogGP, delta: float):
    """A PE's entries one after another: per destination the start times of its sends
    ({q: [start]}, in PE order), and per PE the spans of its runs of consecutive sends
    (one thread each)."""
    starts: dict[int, list[float]] = {}
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
                if start is None:
                    start = t
                times = starts.get(q)
                if times is None:
                    starts[q] = [t]
                else:
                    times.append(t)
                t += slot
        if start is not None:
            spans.append((start, t))
        runs.append(spans)
    return starts, runs


# The loops below run over every send of every schedule a reproduction predicts (some
# 1.7 M): comparisons stand in for max() (`b if b > a else a` is max(a, b), the same
# float), and the heap's smallest is replaced in place when its PE sends again.

def blocking_sends(schedule: Schedule, k: int, m: LogGP, delta: float):
    """Sends in time order, each taking its destination's link for (k-1)G once both the
    sender (after o) and the link are free; the sender is busy until its data are out.
    Returns ([(data out, p, q)], per PE the spans of its runs of sends, end of sends)."""
    lists = schedule.lists
    n = len(lists)
    pos = [0] * n
    link_free: dict[int, float] = {}
    runs: list[list[tuple[float, float]]] = [[] for _ in range(n)]
    run_start: list = [None] * n
    heap = [(0.0, p) for p in range(n) if lists[p]]
    heapq.heapify(heap)
    out, end = [], 0.0
    slot, transfer, o = m.slot(k), max(k - 1, 0) * m.G, m.o
    never = float("-inf")
    free_at, replace, pop, put = link_free.get, heapq.heapreplace, heapq.heappop, out.append
    while heap:
        t, p = heap[0]
        entries = lists[p]
        i = pos[p]
        q = entries[i]
        i += 1
        pos[p] = i
        if q is None:
            if run_start[p] is not None:
                runs[p].append((run_start[p], t))
                run_start[p] = None
            clock = t + delta
        else:
            if run_start[p] is None:
                run_start[p] = t
            ready, free = t + o, free_at(q, never)
            data_end = (free if free > ready else ready) + transfer
            link_free[q] = data_end
            sent = t + slot
            clock = sent if sent > data_end else data_end
            put((data_end, p, q))
        if i < len(entries):
            replace(heap, (clock, p))
        else:
            pop(heap)
            if run_start[p] is not None:
                runs[p].append((run_start[p], clock))
            end = clock if clock > end else end
    return out, runs, end


def handle_receives(by_dest: dict, runs, gap: float, o_r: float) -> float:
    """The last completion: each destination takes its messages one at a time (gap apart),
    handling each for o_r, but not inside one of its own runs of sends."""
    end = 0.0
    never = float("-inf")
    for q, arrivals in by_dest.items():
        spans = runs[q]
        starts = [s for s, _ in spans]
        data_in = handled = never
        for a in sorted(arrivals):
            after = data_in + gap
            data_in = after if after > a else a
            h = handled if handled > data_in else data_in
            i = bisect.bisect_right(starts, h) - 1
            if i >= 0 and h < spans[i][1]:  # q is inside a run of sends: after it
                h = spans[i][1]
            handled = h + o_r
        end = handled if handled > end else end
    return end


def predict(schedule: Schedule, k: int, m: LogGP, delta: float, receive_gap: str = "paper") -> float:
    """The predicted makespan in clocks."""
    if receive_gap not in RECEIVE_GAPS:
        raise ValueError(f"receive_gap must be one of {RECEIVE_GAPS}, not {receive_gap!r}")
    by_dest: dict[int, list[float]] = {}
    if receive_gap == "blocking":
        sends, runs, end = blocking_sends(schedule, k, m, delta)
        L = m.L
        for data_end, p, q in sends:
            by_dest.setdefault(q, []).append(data_end + L)
        return max(end, handle_receives(by_dest, runs, 0.0, m.o_r))
    send, L = m.I(k), m.L
    gap = send if receive_gap == "paper" else max(k - 1, 0) * m.G
    starts, runs = sends_and_runs(schedule, k, m, delta)
    end = 0.0
    for q, times in starts.items():
        by_dest[q] = [(t + send) + L for t in times]
        last = max(times) + send
        end = last if last > end else end
    return max(end, handle_receives(by_dest, runs, gap, m.o_r))
