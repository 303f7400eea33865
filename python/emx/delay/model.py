"""The LogGP prediction of a schedule's makespan (brief: software.md section 5), with the
receive side as EM-X has it.

Parameters in clocks (G per byte):
  o, G   a send occupies its PE for I(k) = o + (k-1)G; consecutive sends start at least
         g apart (slot = max(g, I(k))); a delay slot idles the PE for delta;
  L      from the end of a send until the data are in at an idle destination;
  o_r    the destination's processor time per received message (on EM-X the data go to
         memory without it; it runs the protocol's completion thread and wakes Waitall).
A message i to destination q is in at d_i = max(t_i + I(k) + L, d_(i-1) + gap): a busy
destination takes one message at a time (arrival order). gap = I(k) in the paper's model
("brief": with h earlier arrivals the destination is busy for |S_q| I(k)); "port" (ours):
(k-1)G, the time the message's bytes hold the destination's link. The destination handles
it o_r later, one after the other, and not while its own run of sends executes (a thread
is never interrupted: the handler waits for the run's end or a delay). Makespan = max over
arcs of the completion, and over PEs of the end of their last send."""
from __future__ import annotations

import bisect
from dataclasses import asdict, dataclass

from .schedules import Schedule

RECEIVE_GAPS = ("brief", "port")


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
    out = []
    for p, entries in enumerate(schedule.lists):
        t = 0.0
        for q in entries:
            if q is None:
                t += delta
            else:
                out.append((t, p, q))
                t += m.slot(k)
    return out


def busy_runs(schedule: Schedule, k: int, m: LogGP, delta: float) -> list[list[tuple[float, float]]]:
    """Per PE, the spans of its runs of consecutive sends (one thread each)."""
    runs = []
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
                t += m.slot(k)
        if start is not None:
            spans.append((start, t))
        runs.append(spans)
    return runs


def predict(schedule: Schedule, k: int, m: LogGP, delta: float, receive_gap: str = "brief") -> float:
    """The predicted makespan in clocks."""
    if receive_gap not in RECEIVE_GAPS:
        raise ValueError(f"receive_gap must be one of {RECEIVE_GAPS}, not {receive_gap!r}")
    gap = m.I(k) if receive_gap == "brief" else max(k - 1, 0) * m.G
    runs = busy_runs(schedule, k, m, delta)
    starts = [[s for s, _ in r] for r in runs]
    by_dest: dict[int, list[float]] = {}
    end = 0.0
    for t, p, q in send_times(schedule, k, m, delta):
        by_dest.setdefault(q, []).append(t + m.I(k) + m.L)
        end = max(end, t + m.I(k))
    for q, arrivals in by_dest.items():
        data_in = handled = float("-inf")
        for a in sorted(arrivals):
            data_in = max(a, data_in + gap)
            h = max(data_in, handled)
            i = bisect.bisect_right(starts[q], h) - 1
            if i >= 0 and h < runs[q][i][1]:  # q is inside a run of sends: after it
                h = runs[q][i][1]
            handled = h + m.o_r
        end = max(end, handled)
    return end
