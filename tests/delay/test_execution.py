"""mpi_delay_sched executes schedules from python/emx/delay: every message arrives with its
own content (the program checks every byte; `errors` counts the wrong ones) on 4, 16 and
64 PEs, for Ring, proposed and the collectives; a delay slot lasts the given clocks."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emxrun import results, run_stats  # noqa: E402

from emx.delay import named, proposed, ring  # noqa: E402

COLLECTIVES = {"scatter": ["scatter", "bcast", "alltoallv"], "gather": ["gather"],
               "alltoall": ["alltoall", "allgather", "alltoallv"]}


def run(pes, mode, schedule_text, k, delta="0", topology=None, reps=2, code=0, skew=None):
    opts = ["--pes", str(pes)]
    if topology:
        opts += ["--set", f"network.topology={topology}"]
    extra = [] if skew is None else [str(skew)]
    r, s = run_stats(*opts, "mpi_delay_sched", mode, schedule_text, str(k), delta, str(reps),
                     *extra, timeout=300)
    assert r.returncode == code, r.stdout + r.stderr
    return r, (results(s) if s and s.get("results") else {})


CASES = [(4, "gather"), (4, "alltoall"), (4, "triangle"), (16, "scatter"), (16, "ba4"),
         (16, "alltoall"), (64, "gather"), (64, "ba7"), (64, "triangle")]


@pytest.mark.parametrize("pes,pattern", CASES)
def test_schedules_deliver_every_message(pes, pattern):
    p = named(pattern, pes)
    for sched, delta in [(ring(p), "0"), (proposed(p), "0.6i")]:
        for k, topology in [(13, None), (256, "single_switch")]:  # 13: partial words
            r, res = run(pes, "sched", sched.text(), k, delta, topology)
            assert res["errors"] == 0 and res["messages"] == len(p.arcs), r.stdout
            assert res["makespan_cycles"] > 0 and res["slot_cycles"] > 0


@pytest.mark.parametrize("pes,pattern", [(4, "scatter"), (4, "gather"), (16, "alltoall"),
                                         (64, "gather"), (64, "scatter"), (16, "ba4")])
def test_collectives_deliver_every_message(pes, pattern):
    p = named(pattern, pes)
    for mode in COLLECTIVES.get(pattern, ["alltoallv"]):
        r, res = run(pes, mode, ring(p).text(), 24)
        assert res["errors"] == 0 and res["messages"] == len(p.arcs), (mode, r.stdout)


def test_alltoall_on_64_pes():
    p = named("alltoall", 64)
    r, res = run(64, "sched", proposed(p).text(), 8, "0.5i")
    assert res["errors"] == 0 and res["messages"] == 64 * 63


def test_a_delay_slot_lasts_delta_clocks():
    # Proposed gather on 4 PEs: the last sender waits two delay slots, then sends; nothing
    # else changes with delta, so the makespan grows by exactly 2 x the change of delta.
    text = proposed(named("gather", 4)).text()
    assert text == "/0/-,0/-,-,0"
    spans = {d: run(4, "sched", text, 64, str(d))[1]["makespan_cycles"] for d in (3000, 5000)}
    assert spans[5000] - spans[3000] == 2 * 2000
    # In units of I(k): the program reports the delta it used.
    _, res = run(4, "sched", text, 64, "1.5i")
    assert res["delta_cycles"] == (res["slot_cycles"] * 1500 + 500) // 1000  # half rounds up


@pytest.mark.parametrize("mode,pattern,k", [("sched", "ba7", 256), ("sched", "alltoall", 64),
                                            ("gather", "gather", 256)])
def test_the_timed_part_does_not_depend_on_the_untimed_work_before_it(mode, pattern, k):
    # SKEW idles rank r (r x 7919 mod 13) x SKEW clocks before every barrier, so the ranks
    # reach it in another order. Every rank starts the timed part at one clock, so the
    # makespan stays the same (timed from each rank's own exit from the barrier, the
    # makespan of ba7 moved by 12 clocks of 26 874 with a busy loop in its place).
    p = named(pattern, 64)
    text = (proposed(p) if mode == "sched" else ring(p)).text()
    got = {skew: run(64, mode, text, k, "0.6i", "single_switch", 2, skew=skew)[1]
           for skew in (0, 37, 5000)}
    assert got[0]["errors"] == 0 and got[0]["messages"] == len(p.arcs)
    for skew in (37, 5000):
        for figure in ("makespan_cycles", "slot_cycles", "delta_cycles", "errors"):
            assert got[skew][figure] == got[0][figure], (skew, figure)


def test_bad_schedules_are_refused_with_a_reason():
    r, _ = run(4, "sched", "1/7", 8, code=2)
    assert "bad destination in the list of rank 1 (4 ranks)" in r.stdout
    r, _ = run(4, "sched", "1,1", 8, code=2)
    assert "sends to the same destination twice" in r.stdout
    r, _ = run(4, "sched", "1", 8, delta="abc", code=2)
    assert "DELTA must be a number of clocks" in r.stdout
    r, _ = run(4, "nosuch", "1", 8, code=2)
    r, _ = run(4, "sched", "1", 8, skew=-1, code=2)
    assert "SKEW must be 0 or more" in r.stdout
