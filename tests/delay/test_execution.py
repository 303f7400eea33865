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


def run(pes, mode, schedule_text, k, delta="0", topology=None, reps=2, code=0):
    opts = ["--pes", str(pes)]
    if topology:
        opts += ["--set", f"network.topology={topology}"]
    r, s = run_stats(*opts, "mpi_delay_sched", mode, schedule_text, str(k), delta, str(reps),
                     timeout=300)
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


def test_bad_schedules_are_refused_with_a_reason():
    r, _ = run(4, "sched", "1/7", 8, code=2)
    assert "bad destination in the list of rank 1 (4 ranks)" in r.stdout
    r, _ = run(4, "sched", "1,1", 8, code=2)
    assert "sends to the same destination twice" in r.stdout
    r, _ = run(4, "sched", "1", 8, delta="abc", code=2)
    assert "DELTA must be a number of clocks" in r.stdout
    r, _ = run(4, "nosuch", "1", 8, code=2)
