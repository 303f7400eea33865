"""Table 1 of the MPI paper, cell by cell (docs/experiments/mpi.md, "Table 1, every cell"):
each of its 19 cells measured by the ping-pong program (100 round trips, 80 PEs of
EM-X at 16 MHz) must stay within 5 % of the figure recorded there, so that a change to
the library cannot move a cell without the page saying so; and the pre-issue loop must
time everything its MPI_Irecv calls make the issuing PE do."""
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emxrun import emx, results, run_stats  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from emx.experiments.mpi import (PREISSUE_PARTS, PREISSUE_PE, PREISSUE_RECEIVES,  # noqa: E402
                                 preissue_parts, preissue_run, profile_instructions)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(ROOT, "docs", "experiments", "mpi.md")
HEADING = "### Table 1, every cell"
ROW = re.compile(r"^\|\s*(naive|in advance|pre-issue)\s*\|\s*(both|receiver)\s*\|\s*"
                 r"(buffered|get|sync)\s*\|\s*(\d+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|")
DRIFT = 0.05


def recorded_cells():
    """{(kind, matching, protocol, bytes): (published, simulated)} from the page."""
    text = open(DOC, encoding="utf-8").read()
    if HEADING not in text:
        raise AssertionError(f"{DOC}: no section '{HEADING}'")
    section = text.split(HEADING, 1)[1].split("\n#", 1)[0]
    cells = {}
    for line in section.splitlines():
        m = ROW.match(line)
        if m:
            cells[(m[1], m[2], m[3], int(m[4]))] = (float(m[5]), float(m[6]))
    return cells


def pingpong(mode, size, matching, protocol, iterations=100, *extra):
    r, s = run_stats("--pes", "80", *extra, "mpi_pingpong", mode, str(size), str(iterations),
                     f"-mpi-matching={matching}", f"-mpi-protocol={protocol}")
    if r.returncode != 0:
        raise AssertionError(f"mpi_pingpong {mode} {size} {matching} {protocol}:\n"
                             f"{r.stdout}{r.stderr}")
    return results(s), s


class Cells(unittest.TestCase):
    def test_the_page_records_all_19_cells(self):
        cells = recorded_cells()
        self.assertEqual(len(cells), 19, sorted(cells))

    def test_every_cell_within_5_percent_of_the_page(self):
        cells = recorded_cells()
        runs = {}
        for (kind, matching, protocol, size), (_, recorded) in sorted(cells.items()):
            mode = "naive" if kind == "naive" else "advance"
            key = (mode, size, matching, protocol)
            if key not in runs:
                runs[key], _ = pingpong(*key)
            res = runs[key]
            measured = res["preissue_us"] if kind == "pre-issue" else res["oneway_us"]
            with self.subTest(cell=(kind, matching, protocol, size)):
                self.assertLessEqual(abs(measured - recorded), DRIFT * recorded,
                                     f"{kind} {matching} {protocol} {size} B: measured "
                                     f"{measured:.2f} us, the page records {recorded:.2f}")


TRACE = re.compile(r"^\s*(\d+)\s+[\d.]+ us\s+PE (\d+)\s+thread start (\S+)")
# What may run on a rank after its posting loop: the barrier's resumptions, and the
# work of the *peer's* receives (its segment request, its receive request's thread),
# which this rank serves when its own thread ends.
ALLOWED_AFTER_LOOP = {"resume", "mpi_h_segment", "mpi_rreq_thread"}


class PreIssueAccounting(unittest.TestCase):
    """MPI_Irecv with matching on both sides creates a receive request on the sender (a
    round trip for the operand segment, the words, the invocation) and takes a credit
    for it, asking the sender for more when it runs low. All of that must happen inside
    the program's timed posting loop: between the loop's end and the start of the timed
    ping-pong (the barrier in between) no thread may run on ranks 1 and 2 but the
    barrier's resumptions and the work of the peer's receives (ALLOWED_AFTER_LOOP).
    1000 receives go far beyond a receiver's initial credits (25 per peer on 80 PEs)."""

    def test_nothing_an_irecv_caused_runs_after_the_timed_loop(self):
        for protocol in ("buffered", "get", "sync"):
            per_receive = {}
            for iterations in (100, 1000):
                with self.subTest(protocol=protocol, iterations=iterations):
                    with tempfile.TemporaryDirectory() as d:
                        path = os.path.join(d, "s.json")
                        r = emx("run", "-q", "--stats", path, "--pes", "80", "--trace-text",
                                "--trace-pes", "1,2", "mpi_pingpong", "advance", "4",
                                str(iterations), "-mpi-matching=both",
                                f"-mpi-protocol={protocol}")
                        self.assertEqual(r.returncode, 0, r.stdout + r.stderr[-2000:])
                        with open(path) as f:
                            records = json.load(f)["results"]
                    end = {x["pe"]: x["value"] for x in records
                           if x["name"] == "preissue_end_cycle"}
                    start = {x["pe"]: x["value"] for x in records
                             if x["name"] == "timed_start_cycle"}
                    self.assertEqual(sorted(end), [1, 2])
                    late = [line for line in r.stderr.splitlines()
                            if (m := TRACE.match(line)) and int(m[2]) in end
                            and end[int(m[2])] < int(m[1]) < start[int(m[2])]
                            and m[3] not in ALLOWED_AFTER_LOOP]
                    self.assertEqual(late, [], "threads after the pre-issue loop")
                    per_receive[iterations] = float(
                        re.search(r"pre-issue ([\d.]+) clocks", r.stdout)[1])
            # Every receive request was issued inside the loop, so the cost per receive
            # does not depend on how far the receives go beyond the initial credits.
            self.assertAlmostEqual(per_receive[100], per_receive[1000],
                                   delta=0.02 * per_receive[100])


STEPS_HEADING = "**Pre-issue, receiver only, part by part**"
STEP_ROW = re.compile(r"^\|\s*`(\w+)`\s*\|[^|]*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|")


def recorded_parts():
    """{part: (clocks with get and sync, clocks with buffered)} from the page's table."""
    text = open(DOC, encoding="utf-8").read()
    if STEPS_HEADING not in text:
        raise AssertionError(f"{DOC}: no table '{STEPS_HEADING}'")
    section = text.split(STEPS_HEADING, 1)[1].split("\n\n", 2)[1]
    return {m[1]: (float(m[2]), float(m[3])) for m in map(STEP_ROW.match, section.splitlines())
            if m}


class PreIssueSteps(unittest.TestCase):
    """The receiver-only pre-issue cells part by part (mpi.steps, docs/experiments/mpi.md,
    "Pre-issue, receiver only, part by part"): one MPI_Irecv of the posting loop from the
    instruction profile of the posting PE with 100 and 200 receives posted. The named
    parts must account for every clock the timed loop spends on the extra receives (no
    code outside them ran), add up to Table 1's per-receive figure with the loop's fixed
    cost, and stay where the page records them."""

    def parts(self, protocol):
        runs = []
        for n in PREISSUE_RECEIVES:
            run = preissue_run("receiver", protocol, n)
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "s.json")
                r = emx("run", "-q", "--stats", path, "--pes", "80", *run.options,
                        run.program, *run.args)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr[-2000:])
                with open(path) as f:
                    p = results(json.load(f))["preissue_cycles"]
            runs.append((n, p, profile_instructions(r.stderr)))
        return runs, preissue_parts(runs[0], runs[-1])

    def test_parts_sum_to_the_per_receive_figure(self):
        page = recorded_parts()
        self.assertEqual(sorted(page), sorted(PREISSUE_PARTS), "the page names every part")
        for column, protocol in ((0, "get"), (0, "sync"), (1, "buffered")):
            with self.subTest(protocol=protocol):
                runs, (parts, extra) = self.parts(protocol)
                (n1, p1, _), (n2, p2, _) = runs
                self.assertEqual(PREISSUE_PE, 2)
                self.assertEqual(sorted(parts), sorted(PREISSUE_PARTS))
                measured = sum(v for k, v in parts.items() if k != "fixed")
                # Every clock of the extra receives is in a named part ...
                self.assertAlmostEqual(measured, (n2 * p2 - n1 * p1) / (n2 - n1), delta=0.01)
                self.assertAlmostEqual(extra, measured, delta=0.01)
                # ... and with the loop's fixed cost they are Table 1's figure.
                self.assertAlmostEqual(sum(parts.values()), p1, delta=0.01)
                self.assertTrue(0 <= parts["fixed"] < 1, parts["fixed"])
                # No packet, no thread: the usual path is the same each receive.
                self.assertEqual(parts["unexpected"], 3)
                self.assertEqual(parts["reset"], 1)
                for k, v in parts.items():
                    want = page[k][column]
                    self.assertLessEqual(abs(v - want), max(0.5, 0.05 * want),
                                         f"{protocol} {k}: {v:.2f} clocks, the page {want}")


if __name__ == "__main__":
    unittest.main()
