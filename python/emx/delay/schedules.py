"""Schedules of a pattern: per PE the order of its sends, with delay slots (None).
Ring (Thakur et al.) and the proposed greedy (Algorithms 1 and 2 of the delay-insertion
paper; docs/papers.md)."""
from __future__ import annotations

import random
from dataclasses import dataclass

from .patterns import Pattern


@dataclass(frozen=True)
class Schedule:
    name: str
    pattern: Pattern
    lists: tuple[tuple, ...]  # lists[p]: PE p's entries in order

    @property
    def n(self) -> int:
        return self.pattern.n

    @property
    def length(self) -> int:
        """Slots: the longest list, delays included."""
        return max((len(l) for l in self.lists), default=0)

    @property
    def delays(self) -> int:
        return sum(e is None for l in self.lists for e in l)

    def slot(self, t: int) -> list[tuple[int, int]]:
        """The sends (p, q) in slot t."""
        return [(p, l[t]) for p, l in enumerate(self.lists) if t < len(l) and l[t] is not None]

    def arcs(self) -> list[tuple[int, int]]:
        return [(p, q) for p, l in enumerate(self.lists) for q in l if q is not None]

    def conflicts(self) -> int:
        """Pairs of sends in one slot with the same destination."""
        c = 0
        for t in range(self.length):
            dests = [q for _, q in self.slot(t)]
            c += len(dests) - len(set(dests))
        return c

    def text(self) -> str:
        """The form mpi_delay_sched reads: per PE '/'-separated, entries ',', '-' a delay."""
        return "/".join(",".join("-" if e is None else str(e) for e in l) for l in self.lists)


def from_text(text: str, pattern: Pattern | None = None, name: str = "file") -> Schedule:
    """Reads Schedule.text() back; the pattern is the set of its arcs unless given."""
    lists = []
    for p, part in enumerate(text.strip().split("/")):
        entries = []
        for e in filter(None, part.split(",")):
            e = e.strip()
            if e == "-":
                entries.append(None)
            elif e.isdigit():
                entries.append(int(e))
            else:
                raise ValueError(f"schedule, list of PE {p}: bad entry {e!r} (a PE number or '-')")
        lists.append(tuple(entries))
    arcs = [(p, q) for p, l in enumerate(lists) for q in l if q is not None]
    n = max([len(lists)] + [q + 1 for _, q in arcs])
    if pattern is None:
        pattern = Pattern(name, n, tuple(arcs))
    elif sorted(arcs) != list(pattern.arcs):
        raise ValueError(f"schedule does not send the arcs of pattern {pattern.name} exactly once")
    lists += [()] * (pattern.n - len(lists))
    return Schedule(name, pattern, tuple(lists))


def ring(pattern: Pattern) -> Schedule:
    """Round r (1..n-1) sends p -> (p + r) mod n; absent arcs are deleted and the later
    sends move forward (so PEs reach a destination in different slots: contention)."""
    n, have = pattern.n, set(pattern.arcs)
    lists = tuple(tuple((p + r) % n for r in range(1, n) if (p, (p + r) % n) in have)
                  for p in range(n))
    return Schedule("ring", pattern, lists)


def proposed(pattern: Pattern, seed: int | None = None) -> Schedule:
    """Algorithm 1: slot by slot, visit the PEs with unsent arcs in priority order and give
    each an unsent arc whose destination is not yet a destination in this slot, else a
    delay. Algorithm 2 (priority): the PE with the fewest such choices left goes first.
    Ours where the paper leaves it open: among a PE's choices, the destination with the
    most unsent arcs still to receive (the busiest receiver), then the ring order
    (q - p) mod n; ties between PEs by rank, or by a random order fixed by `seed`."""
    n = pattern.n
    remaining = [set(qs) for qs in pattern.out_arcs()]
    senders_to = [set() for _ in range(n)]
    for p, q in pattern.arcs:
        senders_to[q].add(p)
    to_receive = pattern.in_degree()
    tie = list(range(n))
    if seed is not None:
        random.Random(seed).shuffle(tie)
    lists = [[] for _ in range(n)]
    while any(remaining):
        taken: set[int] = set()  # destinations of this slot
        choices = [len(r) for r in remaining]  # free destinations per PE in this slot
        todo = {p for p in range(n) if remaining[p]}
        while todo:
            p = min(todo, key=lambda x: (choices[x], tie[x]))
            todo.discard(p)
            if choices[p] == 0:
                lists[p].append(None)
                continue
            q = max((q for q in remaining[p] if q not in taken),
                    key=lambda q: (to_receive[q], -((q - p) % n)))
            lists[p].append(q)
            taken.add(q)
            remaining[p].discard(q)
            senders_to[q].discard(p)
            to_receive[q] -= 1
            for s in senders_to[q]:  # q is no longer a choice for its other senders
                choices[s] -= 1
    return Schedule("proposed", pattern, tuple(tuple(l) for l in lists))


SCHEDULERS = {"ring": ring, "proposed": proposed}
