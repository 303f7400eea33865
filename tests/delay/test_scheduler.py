"""Properties of the patterns, the Ring and proposed schedules, the LogGP model and its fit
(python/emx/delay), on the paper's patterns and on random ones."""
import random

import pytest

from emx.delay import (LogGP, Pattern, alltoall, barabasi_albert, fit, from_edge_list,
                       from_text, gather, named, predict, proposed, ring, scatter, triangle)
from emx.delay.model import blocking_sends, sends_and_runs


def random_patterns(count=40):
    rng = random.Random(2024)
    for k in range(count):
        n = rng.choice([2, 3, 5, 8, 16, 33, 64])
        density = rng.random()
        arcs = [(p, q) for p in range(n) for q in range(n) if p != q and rng.random() < density]
        yield Pattern(f"random{k}", n, tuple(arcs))


PAPER = ["scatter", "gather", "alltoall", "triangle", "ba4", "ba7", "ba12", "ba17", "ba28"]
ALL = [named(p, 64) for p in PAPER] + [named(p, 16) for p in PAPER[:4]] + list(random_patterns())


def test_pattern_shapes():
    assert scatter(4).arcs == ((0, 1), (0, 2), (0, 3))
    assert gather(4).arcs == ((1, 0), (2, 0), (3, 0))
    assert len(alltoall(8).arcs) == 56 and alltoall(8).density == 1.0
    assert triangle(4).arcs == ((1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2))
    assert alltoall(5).is_regular() and not gather(5).is_regular()


@pytest.mark.parametrize("m", [4, 7, 12, 17, 28])
def test_barabasi_albert(m):
    g = barabasi_albert(64, m, seed=1)
    # m0 = m initial vertices, each of the 64 - m others adds m edges: both directions.
    assert len(g.arcs) == 2 * m * (64 - m)
    assert g.density == pytest.approx(2 * m * (64 - m) / (64 * 63))
    assert all((q, p) in set(g.arcs) for p, q in g.arcs)  # neighbour exchange: symmetric
    assert barabasi_albert(64, m, seed=1) == g           # deterministic for a seed
    assert barabasi_albert(64, m, seed=2) != g
    # Scale-free: the busiest PE has far more neighbours than the median one.
    deg = sorted(g.out_degree())
    assert deg[-1] >= 1.5 * deg[len(deg) // 2]


def test_edge_list_file(tmp_path):
    f = tmp_path / "mine.txt"
    f.write_text("# my pattern\n0 1\n1 2  # comment\n\n2,0\n")
    from emx.delay import read_edge_list
    p = read_edge_list(f)
    assert p.n == 3 and p.arcs == ((0, 1), (1, 2), (2, 0)) and p.name == "mine"
    with pytest.raises(ValueError, match=r"mine.txt:2: expected two PE numbers"):
        from_edge_list("0 1\n1 x\n", where="mine.txt")
    with pytest.raises(ValueError, match="self loop"):
        from_edge_list("1 1\n")
    with pytest.raises(ValueError, match="appears twice"):
        from_edge_list("0 1\n0 1\n")
    with pytest.raises(ValueError, match="outside 0..3"):
        from_edge_list("0 5\n", n=4)


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: f"{p.name}-{p.n}")
@pytest.mark.parametrize("scheduler", [ring, proposed])
def test_every_arc_exactly_once(pattern, scheduler):
    s = scheduler(pattern)
    assert sorted(s.arcs()) == list(pattern.arcs)
    assert all(l[-1] is not None for l in s.lists if l)  # no trailing delay


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: f"{p.name}-{p.n}")
def test_proposed_has_no_destination_conflict_per_slot(pattern):
    assert proposed(pattern).conflicts() == 0
    assert proposed(pattern, seed=7).conflicts() == 0


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: f"{p.name}-{p.n}")
def test_length_bounds(pattern):
    if not pattern.arcs:
        return
    out, inn = pattern.out_degree(), pattern.in_degree()
    lower = max(max(out), max(inn))  # one send per PE and one receive per PE a slot
    # Greedy: an arc (p, q) waits only in slots where p sends something else or q is taken.
    upper = max(out[p] + inn[q] - 1 for p, q in pattern.arcs)
    s = proposed(pattern)
    assert lower <= s.length <= upper
    assert ring(pattern).length == max(out)  # Ring only moves sends forward: no delays
    assert ring(pattern).delays == 0


def test_regular_patterns_are_optimal():
    for p in [alltoall(64), scatter(64), gather(64), triangle(64), alltoall(7)]:
        assert proposed(p).length == p.n - 1, p.name


def test_ring_contends_on_gather_and_proposed_spreads_it():
    r, pr = ring(gather(8)), proposed(gather(8))
    assert r.slot(0) == [(p, 0) for p in range(1, 8)] and r.conflicts() == 6
    # One sender a slot, the others wait: 7 slots, 0 + 1 + ... + 6 delays.
    assert [len(pr.slot(t)) for t in range(pr.length)] == [1] * 7
    assert pr.delays == 21


def test_deterministic_for_a_seed():
    for p in list(random_patterns(10)) + [barabasi_albert(64, 12, seed=3)]:
        assert proposed(p, seed=5) == proposed(p, seed=5)
        assert proposed(p) == proposed(p)


def test_priority_takes_the_most_constrained_pe_first():
    # PE 2 can only send to 0; PE 1 to 0 or 3. PE 2 goes first in slot 0 and takes 0, so
    # both finish in one slot; by rank order PE 1 would take 0 (busiest receiver) and PE 2
    # would wait.
    p = Pattern("t", 4, ((1, 0), (1, 3), (2, 0)))
    s = proposed(p)
    assert s.lists[2] == (0,) and s.lists[1] == (3, 0)


def test_text_round_trip_and_errors():
    s = proposed(barabasi_albert(16, 4, seed=2))
    back = from_text(s.text(), s.pattern)
    assert back.lists == s.lists
    assert ring(gather(4)).text() == "/0/0/0"
    with pytest.raises(ValueError, match="PE 1: bad entry 'x'"):
        from_text("1/x")
    with pytest.raises(ValueError, match="exactly once"):
        from_text("1/0", gather(4))


def test_model_idle_destination_and_busy_destination():
    m = LogGP(L=10, o=5, g=5, G=1, o_r=3)
    assert m.I(4) == 8 and m.slot(4) == 8 and m.slot(1) == 5
    # One message: I + L, handled o_r later.
    assert predict(ring(gather(2)), 4, m, delta=0) == 8 + 10 + 3
    # Gather on 4 PEs with Ring: three arrive at once; the paper's busy destination takes
    # one per I(k); ours one per (k-1)G (the link), then handles them o_r each in turn.
    assert predict(ring(gather(4)), 4, m, delta=0) == 8 + 10 + 2 * 8 + 3
    assert predict(ring(gather(4)), 4, m, delta=0, receive_gap="port") == 8 + 10 + 3 + 3 + 3
    # Proposed with delta = I(k): sends at 0, 8, 16: no queue, the last completes at 16 + 21.
    pr = proposed(gather(4))
    assert sorted(sends_and_runs(pr, 4, m, 8)[0][0]) == [0, 8, 16]   # all to PE 0
    assert predict(pr, 4, m, delta=8) == 16 + 8 + 10 + 3
    # Scatter: the sender is the bottleneck, 3 sends one slot apart.
    assert predict(ring(scatter(4)), 4, m, delta=0) == 2 * 8 + 8 + 10 + 3
    with pytest.raises(ValueError, match="receive_gap"):
        predict(pr, 4, m, 8, receive_gap="x")


def test_model_receives_wait_for_the_run_of_sends():
    # All-to-all on 3 PEs: each PE sends 2 in one run (0..16); its messages come in at 18
    # (sent at 0) and 26 (sent at 8), after the run: handled at once, the last at 29.
    m = LogGP(L=10, o=5, g=5, G=1, o_r=3)
    s = ring(alltoall(3))
    assert predict(s, 4, m, delta=0) == 8 + 8 + 10 + 3
    # A long o_r with a busy PE: the handling waits for the run's end.
    m2 = LogGP(L=0, o=100, g=100, G=0, o_r=1)
    # PE 0 sends to 1, 2 in 0..200; PE 2's message to 0 (sent at 0) is in at 100, while
    # PE 0 still runs: handled from 200 to 201; then PE 1's (sent at 100, in at 200): 202.
    assert predict(s, 1, m2, delta=0) == 202


def test_model_blocking_senders_wait_for_the_destinations_link():
    # Gather on 3 PEs, "blocking": PEs 1 and 2 both send to 0 at 0. PE 1's data are out
    # at o + (k-1)G = 8 and hold 0's link until then; PE 2's wait for it, out at 11 (its
    # sender busy until 11, not its slot's 8). In at 18 and 21, handled at 21 and 24.
    m = LogGP(L=10, o=5, g=5, G=1, o_r=3)
    sends, runs, end = blocking_sends(ring(gather(3)), 4, m, delta=0)
    assert sends == [(8, 1, 0), (11, 2, 0)] and end == 11
    assert runs == [[], [(0, 8)], [(0, 11)]]
    assert predict(ring(gather(3)), 4, m, delta=0, receive_gap="blocking") == 24
    # A delay slot first: PE 2 starts at 4, its data out at max(9, 8) + 3 = 12.
    s = from_text("/0/-,0")
    assert blocking_sends(s, 4, m, delta=4)[0] == [(8, 1, 0), (12, 2, 0)]


def test_model_orders_ring_and_proposed_on_contended_patterns():
    m = LogGP(L=60, o=280, g=280, G=0.55, o_r=200)
    for name in ["gather", "triangle"]:
        p = named(name, 64)
        k = 1024
        assert predict(proposed(p), k, m, m.I(k)) <= predict(ring(p), k, m, 0) * 1.001, name


def test_fit_recovers_the_parameters():
    true = LogGP(L=40, o=150, g=0, G=0.5, o_r=90)
    n, sizes = 64, [4, 64, 256, 1024, 4096]
    start = {k: true.I(k) - 30 for k in sizes}  # a lone start is cheaper than a run's
    pair = {k: start[k] + true.L + true.o_r for k in sizes}
    scat = {k: pair[k] + (n - 2) * true.I(k) for k in sizes}
    a2a = {4: (n - 1) * (true.I(4) + true.o_r)}
    got = fit(start, pair, scat, a2a, n)
    for f in ["L", "o", "G", "o_r"]:
        assert getattr(got, f) == pytest.approx(getattr(true, f)), f
    assert got.g == pytest.approx(true.I(4))
    with pytest.raises(ValueError, match="3 PEs"):
        fit(start, pair, scat, a2a, 2)


def test_experiment_delta_units_and_methods():
    from emx.experiments import delay as exp
    assert exp.delta_arg("slot", 0.6, 256) == "0.6i"
    # 256 bytes = 64 packets of one data word, 2 clocks each; less emx_delay's 25 clocks.
    assert exp.delta_arg("link", 1.0, 256) == str(128 - 25)
    assert exp.delta_arg("link", 0.1, 16) == "0"
    with pytest.raises(ValueError, match="slot or link"):
        exp.delta_arg("x", 1, 4)
    # proposed_link only where the proposed schedule has delays (else it is the same run).
    assert exp.methods("alltoall", 16) == ["ring", "proposed", "alltoall", "allgather"]
    assert exp.methods("gather", 16) == ["ring", "proposed", "proposed_link", "gather"]
    assert exp.methods("ba4", 16)[-1] == "alltoallv"
    # The schedule reaches the program inline: the run's cache key sees its content.
    run = exp.case_run("gather", 4, "proposed", 64, 0.6, "single_switch")
    assert run.args[:4] == ("sched", "/0/-,0/-,-,0", "64", "0.6i")
