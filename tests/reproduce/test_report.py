"""The report (python/emx/report.py): published values and the papers' statements with
their verdicts, the quick-run notes, sweeps, configuration names and plot axes. Built
from tables made here, so nothing is simulated."""
import json
import os
import shutil
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "python"))

import pandas as pd  # noqa: E402

from emx import registry, report  # noqa: E402
from emx.experiment import Check, Experiment, Published, about, value  # noqa: E402
from emx.runner import Outcome, compare  # noqa: E402


def outcome(table, published=(), checks=(), quick=""):
    e = Experiment("paper.thing", "paper", "A thing", lambda opt: [], lambda p, r: {},
                   published=published, checks=checks, quick=quick)
    o = Outcome(e, [], [], [], table)
    o.comparison = compare(e, table)
    return o


TABLE = pd.DataFrame({"machine": ["A", "A", "B", "B"], "keys": [1, 2, 1, 2],
                      "speed": [10.0, 20.0, 4.0, 9.0]})
RATIO = Check("A is about twice as fast as B.", "made-up paper, Fig. 1",
              lambda t: {"A / B at 2": value(t, "speed", machine="A", keys=2)
                         / value(t, "speed", machine="B", keys=2)},
              lambda f: about(f["A / B at 2"], 2.0), "ratio = 2 +- 10 %")
MISSING = Check("At 3 keys A wins.", "made-up paper, Fig. 2",
                lambda t: {"A at 3": value(t, "speed", machine="A", keys=3)},
                lambda f: True, "always")


class Verdicts(unittest.TestCase):
    def test_a_published_value_holds_within_its_tolerance(self):
        o = outcome(TABLE, [Published("speed", 21.0, {"machine": "A", "keys": 2}, "s", "u"),
                            Published("speed", 5.0, {"machine": "B", "keys": 1}, "s", "u",
                                      tolerance=5),
                            Published("speed", 1.0, {"machine": "C"}, "s", "u")])
        rows = report.published(o)
        self.assertEqual([r["holds"] for r in rows], [True, False, None])
        self.assertAlmostEqual(rows[0]["diff_%"], 100 * (20 - 21) / 21)
        self.assertEqual(rows[1]["tolerance"], 5)

    def test_a_statement_is_checked_on_its_figures(self):
        o = outcome(TABLE, checks=[RATIO, MISSING])
        held, missing = report.checks(o)
        self.assertAlmostEqual(held["figures"]["A / B at 2"], 20 / 9)
        self.assertFalse(held["holds"])                  # 2.22 is not 2 +- 10 %
        self.assertIsNone(missing["holds"])
        self.assertIn("keys=3", missing["why"])
        text = report.text(o)
        self.assertIn("does not hold: A is about twice as fast as B.", text)
        self.assertIn("not measured: At 3 keys A wins.", text)

    def test_every_declared_source_is_a_paper_in_the_repository(self):
        for e in registry.all_experiments().values():
            for s in [p.source for p in e.published] + [c.source for c in e.checks]:
                self.assertRegex(s, r"paper", f"{e.name}: {s}")
                self.assertNotRegex(s.lower(), r"brief|shared|\.\./|machine\.md|experiments\.md")


class Page(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="emx-report-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_overview_verdicts_quick_note_and_sweeps(self):
        o = outcome(TABLE, [Published("speed", 20.0, {"machine": "A", "keys": 2},
                                      "made-up paper, Table 1", "u")], [RATIO],
                    quick="1 and 2 keys only: the statement about 3 keys is not measured.")
        with open(os.path.join(self.tmp, "sweep-paper.thing.json"), "w") as f:
            json.dump({"experiment": "paper.thing", "axes": {"clock_mhz": [10, 20]},
                       "rows": [{"clock_mhz": 10, "speed": 1.5}], "failures": []}, f)
        path = report.html_report([o], os.path.join(self.tmp, "report.html"), {"quick": True})
        page = open(path).read()
        overview = page[page.index("id=overview"):page.index('id="paper.thing"')]
        self.assertIn("1 hold", overview)
        self.assertIn("1 do not hold", overview)
        self.assertIn("A is about twice as fast as B.", overview)
        self.assertIn("docs/papers.md", overview)
        self.assertIn("1 and 2 keys only", page)                   # what quick made smaller
        self.assertIn("<div class=scroll>", page)                  # wide tables scroll
        self.assertIn('id="sweep-paper.thing"', page)              # the sweep's section
        self.assertIn("clock_mhz = 10, 20", page)

    def test_configurations_are_named_by_what_differs(self):
        a = {"name": "emx80", "clock_mhz": 16, "pe": {"memory_bytes": 4}}
        b = {"name": "emx80", "clock_mhz": 20, "pe": {"memory_bytes": 4}}
        c = {"name": "em4", "clock_mhz": 12.5, "pe": {"memory_bytes": 1}}
        self.assertEqual(report.config_names([a, b, c]),
                         ["emx80, clock_mhz=16", "emx80, clock_mhz=20", "em4"])

    def test_log_axes_only_over_a_wide_range_with_plain_labels(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure()
        narrow, wide = fig.subplots(1, 2)
        narrow.plot([1, 2], [6.0, 6.2])
        narrow.set_yscale("log")
        wide.plot([1, 2], [64, 65536])
        wide.set_yscale("log")
        for ax in (narrow, wide):
            report.plain_axes(ax)
        fig.canvas.draw()
        self.assertEqual(narrow.get_yscale(), "linear")
        self.assertEqual(wide.get_yscale(), "log")
        labels = [t.get_text() for t in wide.get_yticklabels() if t.get_text()]
        self.assertIn("1 K", labels)
        self.assertFalse(any("10^" in s or "times" in s for s in labels), labels)
        plt.close(fig)
        self.assertEqual(report.plain_number(2500000), "2.5 M")
        self.assertEqual(report.plain_number(0.5), "0.5")

    def test_the_default_plot_has_a_bar_per_point(self):
        """Points with several rows each (a list of steps) give one bar each, the first
        row's figure, labelled by the point's parameters."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        t = pd.DataFrame({"variant": ["a"] * 3 + ["b"] * 2, "mode": ["x"] * 3 + ["y"] * 2,
                          "cycles": [100, 100, 100, 40, 40], "step": [1, 2, 3, 1, 2]})
        fig = plt.figure()
        report.default_plot(t, fig, ["variant", "mode"])
        ax = fig.axes[0]
        self.assertEqual([b.get_height() for b in ax.patches], [100, 40])
        self.assertEqual([x.get_text() for x in ax.get_xticklabels()],
                         ["variant=a, mode=x", "variant=b, mode=y"])
        plt.close(fig)

    def test_figures_rendered_in_processes_are_those_rendered_here(self):
        """render_figures splits the experiments between forked processes: the same PNG
        bytes as figure_png here, in order, for any number of processes; a plot that fails
        in a process is rendered here, where its error surfaces."""
        def plot_for(scale):
            def plot(t, fig):               # a closure, as the experiments' plots are
                ax = fig.add_subplot()
                ax.plot(t["keys"], t["speed"] * scale)
            return plot
        def made(n):
            out = []
            for k in range(n):
                o = outcome(TABLE)
                o.experiment.plot = plot_for(k + 1)
                out.append(o)
            return out
        want = [report.figure_png(o) for o in made(5)]
        self.assertTrue(all(want) and len(set(want)) == 5)
        for jobs in (1, 2, 3, 8):
            got = made(5)
            report.render_figures(got, jobs)
            self.assertEqual([o.png for o in got], want, jobs)
        bad = made(3)
        def broken(t, fig):
            raise RuntimeError("the plot is broken")
        bad[1].experiment.plot = broken
        with self.assertRaisesRegex(RuntimeError, "the plot is broken"):
            report.render_figures(bad, 2)


    def test_each_process_takes_the_next_figure_when_it_is_free(self):
        """The figure of the largest table is taken first, and while it is being drawn the
        other process takes all the rest: that figure's plot waits until the four others
        are drawn (a fixed share per process would leave one of them behind it and time
        out). Each plot notes its table's size and process in a file."""
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "drawn")

            def note(t):
                with open(log, "a") as f:
                    f.write(f"{len(t)} {os.getpid()}\n")

            def drawn():
                with open(log) as f:
                    return [line.split() for line in f]

            def quick(t, fig):
                fig.add_subplot().plot(t["keys"], t["speed"])
                note(t)

            def waits(t, fig):              # until the four others are drawn
                for _ in range(600):
                    if os.path.exists(log) and len(drawn()) == 4:
                        break
                    time.sleep(0.1)
                quick(t, fig)

            small = [outcome(TABLE.iloc[:2]) for _ in range(4)]
            large = outcome(TABLE)
            for o in small:
                o.experiment.plot = quick
            large.experiment.plot = waits
            got = small[:2] + [large] + small[2:]
            report.render_figures(got, 2)
            self.assertTrue(all(o.png for o in got))
            rows = drawn()
            self.assertEqual([r[0] for r in rows], ["2"] * 4 + ["4"])
            self.assertEqual(len({r[1] for r in rows[:4]}), 1)
            self.assertNotEqual(rows[4][1], rows[0][1])


if __name__ == "__main__":
    unittest.main()
