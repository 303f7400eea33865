"""Fitting L, o, g, G of the LogGP model to microbenchmark runs of mpi_delay_sched.

Measurements (clocks), each at several sizes k:
  slot(k)     the shortest MPI_Start of one send (the program's slot_cycles): I(k) = o + (k-1)G
  pair(k)     makespan of one message 0 -> 1:  I(k) + L + o
  scatter(k)  makespan of root 0 sending to the n-1 others one after another:
              (n-2) max(g, I(k)) + I(k) + L + o
o and G: least squares on slot(k); L: the mean of pair(k) - I(k) - o; g: the send
interval of the scatter at the smallest size, (scatter - pair) / (n - 2)."""
from __future__ import annotations

from .model import LogGP


def least_squares(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Intercept and slope."""
    n = len(xs)
    if n == 0:
        raise ValueError("no points to fit")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return my - slope * mx, slope


def fit(slot: dict[int, float], pair: dict[int, float], scatter: dict[int, float], n: int) -> LogGP:
    sizes = sorted(slot)
    o, G = least_squares([k - 1 for k in sizes], [slot[k] for k in sizes])
    I = lambda k: o + (k - 1) * G  # noqa: E731
    L = sum(pair[k] - I(k) - o for k in pair) / len(pair)
    k0 = min(scatter)
    g = (scatter[k0] - pair[k0]) / (n - 2) if n > 2 else o
    return LogGP(L=L, o=o, g=g, G=G)
