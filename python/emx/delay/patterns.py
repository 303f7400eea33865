"""Communication patterns as simple directed graphs G = (P, A): an arc (p, q) is one
message from PE p to PE q (the delay-insertion paper, docs/papers.md)."""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True)
class Pattern:
    """n PEs and a set of arcs (p, q), p != q, kept sorted."""
    name: str
    n: int
    arcs: tuple[tuple[int, int], ...]

    def __post_init__(self):
        seen = set()
        for p, q in self.arcs:
            if not (0 <= p < self.n and 0 <= q < self.n):
                raise ValueError(f"pattern {self.name}: arc ({p}, {q}) names a PE outside 0..{self.n - 1}")
            if p == q:
                raise ValueError(f"pattern {self.name}: arc ({p}, {q}) is a self loop")
            if (p, q) in seen:
                raise ValueError(f"pattern {self.name}: arc ({p}, {q}) appears twice")
            seen.add((p, q))
        object.__setattr__(self, "arcs", tuple(sorted(self.arcs)))

    @property
    def density(self) -> float:
        """D = |A| / (n (n - 1))."""
        return len(self.arcs) / (self.n * (self.n - 1)) if self.n > 1 else 0.0

    def out_arcs(self) -> list[list[int]]:
        out = [[] for _ in range(self.n)]
        for p, q in self.arcs:
            out[p].append(q)
        return out

    def in_degree(self) -> list[int]:
        d = [0] * self.n
        for _, q in self.arcs:
            d[q] += 1
        return d

    def out_degree(self) -> list[int]:
        d = [0] * self.n
        for p, _ in self.arcs:
            d[p] += 1
        return d

    def is_regular(self) -> bool:
        """Every PE sends and receives the same number of messages."""
        degrees = set(self.out_degree()) | set(self.in_degree())
        return len(degrees) <= 1


def scatter(n: int, root: int = 0) -> Pattern:
    return Pattern("scatter", n, tuple((root, q) for q in range(n) if q != root))


def gather(n: int, root: int = 0) -> Pattern:
    return Pattern("gather", n, tuple((p, root) for p in range(n) if p != root))


def alltoall(n: int) -> Pattern:
    return Pattern("alltoall", n, tuple((p, q) for p in range(n) for q in range(n) if p != q))


def triangle(n: int) -> Pattern:
    """Every PE sends to every lower rank."""
    return Pattern("triangle", n, tuple((p, q) for p in range(n) for q in range(p)))


def barabasi_albert_edges(n: int, m0: int, m: int, seed: int) -> list[tuple[int, int]]:
    """Undirected edges of a Barabási–Albert graph: m0 initial vertices without edges;
    each new vertex adds m edges to distinct existing vertices chosen with probability
    proportional to their degree (the first new vertex, when all degrees are 0, to m of
    the m0 uniformly). Deterministic for a seed (Python's random.Random)."""
    if not (1 <= m <= m0 < n):
        raise ValueError(f"Barabási–Albert needs 1 <= m <= m0 < n (m0={m0}, m={m}, n={n})")
    rng = random.Random(seed)
    edges: list[tuple[int, int]] = []
    ends: list[int] = []  # every edge's two ends: choosing from it is choosing by degree
    for v in range(m0, n):
        pool = ends if ends else list(range(m0))
        targets: set[int] = set()
        while len(targets) < m:
            targets.add(rng.choice(pool))
        for t in sorted(targets):
            edges.append((t, v))
            ends += [t, v]
    return edges


def barabasi_albert(n: int = 64, m: int = 4, m0: int | None = None, seed: int = 1) -> Pattern:
    """Scale-free neighbour exchange: both directions of every edge of the graph."""
    m0 = m if m0 is None else m0
    arcs = []
    for a, b in barabasi_albert_edges(n, m0, m, seed):
        arcs += [(a, b), (b, a)]
    return Pattern(f"ba{m}", n, tuple(arcs))


def from_edge_list(text: str, n: int | None = None, name: str = "edges",
                   where: str = "<text>") -> Pattern:
    """Arcs "p q" one a line ('#' starts a comment); n = largest PE + 1 unless given."""
    arcs = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 2 or not all(x.lstrip("-").isdigit() for x in parts):
            raise ValueError(f"{where}:{lineno}: expected two PE numbers 'p q', got {line!r}")
        p, q = int(parts[0]), int(parts[1])
        if p < 0 or q < 0:
            raise ValueError(f"{where}:{lineno}: PE numbers must be 0 or more, got {line!r}")
        arcs.append((p, q))
    size = n if n is not None else (max(max(a) for a in arcs) + 1 if arcs else 1)
    try:
        return Pattern(name, size, tuple(arcs))
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def read_edge_list(path: str | Path, n: int | None = None) -> Pattern:
    path = Path(path)
    return from_edge_list(path.read_text(), n, name=path.stem, where=str(path))


@lru_cache(maxsize=None)
def named(name: str, n: int, seed: int = 1) -> Pattern:
    """scatter, gather, alltoall, triangle, baM (Barabási–Albert, m0 = m = M). Remembered:
    a Pattern does not change, and the delay experiments ask for each one per row."""
    fixed = {"scatter": scatter, "gather": gather, "alltoall": alltoall, "triangle": triangle}
    if name in fixed:
        return fixed[name](n)
    if name.startswith("ba") and name[2:].isdigit():
        return barabasi_albert(n, int(name[2:]), seed=seed)
    raise ValueError(f"unknown pattern {name!r} (scatter, gather, alltoall, triangle, baM)")
