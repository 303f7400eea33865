"""Fitting the LogGP parameters to microbenchmark runs of mpi_delay_sched (clocks; each
measured at several sizes k unless said):
  start(k)     one MPI_Start of a k-byte send on the idle machine (the program's slot_cycles)
  pair(k)      makespan of the one message 0 -> 1:               start(k) + L + o_r
  scatter(k)   makespan of root 0 sending to the n-1 others in one run of sends: its send
               interval is I(k) = o + (k-1)G (a send inside MPI_Startall, request handling
               included, costs more than the lone MPI_Start)
  alltoall(k0) makespan of the all-to-all at the smallest size: every PE's n-1 sends, then
               the n-1 receives it could not handle meanwhile:  (n-1) I(k0) + (n-1) o_r
o and G: least squares of the intervals (scatter(k) - pair(k)) / (n - 2) on k - 1;
g: the interval at the smallest size; o_r from alltoall(k0); L: the mean of
pair(k) - start(k) - o_r."""
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


def fit(start: dict[int, float], pair: dict[int, float], scatter: dict[int, float],
        alltoall: dict[int, float], n: int) -> LogGP:
    if n < 3:
        raise ValueError("the fit needs 3 PEs or more (the scatter's intervals)")
    sizes = sorted(set(pair) & set(scatter))
    interval = {k: (scatter[k] - pair[k]) / (n - 2) for k in sizes}
    o, G = least_squares([k - 1 for k in sizes], [interval[k] for k in sizes])
    g = interval[sizes[0]]
    k0 = min(alltoall)
    o_r = (alltoall[k0] - (n - 1) * (o + (k0 - 1) * G)) / (n - 1)
    L = sum(pair[k] - start[k] - o_r for k in sizes) / len(sizes)
    return LogGP(L=L, o=o, g=g, G=G, o_r=o_r)
