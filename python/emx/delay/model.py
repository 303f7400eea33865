"""The LogGP prediction of a schedule's makespan (brief: software.md section 5).

Parameters in clocks (G per byte): a send occupies its PE for I(k) = o + (k-1)G, and
consecutive sends start at least g apart; a delay slot idles the PE for delta.
A message that starts at t has fully arrived at t + I(k) + L when its destination is not
busy; a busy destination takes messages one at a time, in arrival order, each I(k) after
the one before (it is busy for |S_q| I(k) with S_q the messages already there); each
receive then costs the destination o, one after the other: with h earlier arrivals still
being handled, completion is (h + 1) o after the data. Makespan = max over arcs of the
completion, and over PEs of the end of their last send."""
from __future__ import annotations

from dataclasses import dataclass, asdict

from .schedules import Schedule


@dataclass(frozen=True)
class LogGP:
    L: float  # latency, clocks
    o: float  # overhead per message at either end, clocks
    g: float  # gap between consecutive sends, clocks
    G: float  # gap per byte, clocks

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


def predict(schedule: Schedule, k: int, m: LogGP, delta: float) -> float:
    """The predicted makespan in clocks."""
    sends = send_times(schedule, k, m, delta)
    by_dest: dict[int, list[float]] = {}
    end = 0.0
    for t, p, q in sends:
        by_dest.setdefault(q, []).append(t + m.I(k) + m.L)  # arrival on an idle destination
        end = max(end, t + m.I(k))
    for arrivals in by_dest.values():
        data_in = handled = float("-inf")
        for a in sorted(arrivals):
            data_in = max(a, data_in + m.I(k))   # the port takes one message at a time
            handled = max(data_in, handled) + m.o  # the receiver handles them in turn
        end = max(end, handled)
    return end
