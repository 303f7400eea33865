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
from emx.experiment import Check, Experiment, Point, Published, Run, about, value  # noqa: E402
from emx.runner import Outcome, compare  # noqa: E402


def outcome_of(e, table):
    o = Outcome(e, [], [], [], table)
    o.comparison = compare(e, table)
    return o


def html_escape(text):
    import html
    return html.escape(text)


def html_unescape(text):
    import html
    return html.unescape(text)


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


class Papers(unittest.TestCase):
    """docs/papers.md is the project's record of the papers: every published value and
    statement the experiments declare is in it, under its paper; nothing shipped names a
    file outside the repository."""

    def sections(self):
        import re
        with open(os.path.join(TOP, "docs", "papers.md")) as f:
            text = f.read()
        parts = re.split(r"^## ", text, flags=re.M)
        return {p.split(":", 1)[0].strip().lower(): p for p in parts[1:] if ":" in p}

    def test_every_declared_value_is_in_its_papers_section(self):
        import re
        sections = self.sections()
        for e in registry.all_experiments().values():
            for p in e.published:
                paper = p.source.split(",")[0].strip().lower()
                self.assertIn(paper, sections, f"{e.name}: {p.source}")
                section = sections[paper]
                self.assertIn(f"`{e.name}`", section, f"{e.name} under {paper}")
                value = f"{p.value:g}"
                self.assertTrue(re.search(rf"(?<![\d.]){value}(?![\d]|\.\d)", section),
                                f"{e.name} {p.figure} = {value} not under {paper}")
            for c in e.checks:
                paper = c.source.split(",")[0].strip().lower()
                self.assertIn(f"`{e.name}`", sections[paper], f"{e.name}: {c.statement}")

    def test_table1_and_fig10_are_recorded_cell_by_cell(self):
        """The record and the declarations agree: Table 1's 19 values, Fig. 10's two."""
        import re
        from emx.experiments import mpi
        section = self.sections()["mpi paper"]
        rows = re.findall(r"^\| (both sides|receiver only) \| (\w+) \| ([\d.]+) \| ([\d.]+) \| "
                          r"([\d.]+) \|$", section, flags=re.M)
        recorded = {("both" if m == "both sides" else "receiver", p): tuple(map(float, v))
                    for m, p, *v in rows}
        self.assertEqual(recorded, mpi.TABLE1_ONEWAY)
        self.assertIn(f"**{mpi.TABLE1_ZERO_BYTES} µs** for 0 bytes", section)
        declared = {p.figure: p.value for p in registry.all_experiments()["mpi.throughput"].published}
        self.assertIn(f"**{declared['mbps']:g} MB/s**", section)
        self.assertIn(f"**half of its peak at {declared['half_peak_bytes']:g} B**", section)

    def test_nothing_shipped_names_a_file_outside_the_repository(self):
        """Docs, code, programs, scripts and configs: no path to notes kept beside the
        repository (the patterns are built from parts so that this file does not match)."""
        import re
        pattern = re.compile("|".join([r"\.\./" + "shared", r"\bthe " + "brief\\b",
                                       "brief" + "/", r"(?<![\w/])" + "experiments\\.md",
                                       r"(?<![\w/])" + "machine\\.md",
                                       r"(?<![\w/])" + "software\\.md", "/" + "work/"]), re.I)
        skip = {".git", "build", ".venv", "results", "node_modules", "__pycache__"}
        found = []
        for root, dirs, files in os.walk(TOP):
            dirs[:] = [d for d in dirs if d not in skip and not d.startswith("build")]
            for name in files:
                if name == ".git":                  # a worktree's pointer to its repository
                    continue
                path = os.path.join(root, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                except (UnicodeDecodeError, OSError):
                    continue
                for m in pattern.finditer(text):
                    found.append(f"{os.path.relpath(path, TOP)}: {m.group(0)}")
        self.assertEqual(found, [])


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
            json.dump({"experiment": "paper.thing", "axes": {"clock_mhz": [10, 20]}, "quick": True,
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
        sweep = page[page.index('id="sweep-paper.thing"'):]
        self.assertIn("Quick run.", sweep)            # a quick sweep says what is smaller
        self.assertIn("The same scripts/sweep without --quick gives the full figures", sweep)

    def test_the_overview_lists_every_published_value_and_statement(self):
        """Every experiment's declared values and statements are rows of the overview,
        each with a verdict (here, with no figures, "not measured"): Table 1's 19 cells,
        the radix paper's eight statements (the eighth in two experiments), the MPI
        throughput and half-peak figures, the microbenchmarks' clocks per word."""
        import re
        exps = list(registry.all_experiments().values())
        outs = [outcome_of(e, pd.DataFrame()) for e in exps]
        with open(report.html_report(outs, os.path.join(self.tmp, "report.html"), {})) as f:
            page = f.read()
        overview = page[page.index("id=overview"):page.index("</section>")]
        rows = re.findall(r'<tr><td class=nowrap><a href="#([\w.]+)">', overview)
        pubs = [e.name for e in exps for _ in e.published]
        stmts = [e.name for e in exps for _ in e.checks]
        self.assertEqual(rows, pubs + stmts)
        self.assertGreaterEqual(rows.count("mpi.latency"), 19 + 5)   # Table 1, statements
        self.assertGreaterEqual(sum(rows.count(n) for n in (
            "radix.parallel", "radix.breakdown", "radix.scalability")), 7 + 2)
        for figure in ("MB/s", "half peak bytes", "count clocks per key", "send cycles per word",
                       "cycles per word", "one-way µs", "pre-issue µs"):
            self.assertIn(f"<td class=text>{figure}</td>", overview)
        for c in (c for e in exps for c in e.checks):
            self.assertIn(html_escape(c.statement), overview)
        self.assertEqual(overview.count("not measured"), len(rows) + 2)   # + the tallies

    def test_an_experiment_without_published_values_says_none_are_recorded(self):
        """Not "the paper publishes no value": Table 3's values exist, this project does
        not record them; the section says so and points to docs/papers.md."""
        o = outcome(TABLE)
        with open(report.html_report([o], os.path.join(self.tmp, "report.html"), {})) as f:
            page = f.read()
        section = page[page.index('id="paper.thing"'):]
        self.assertIn("No published value or statement is checked here", section)
        self.assertIn("records none of the paper's numbers", html_unescape(section))
        self.assertNotIn("publishes no value", section)

    def test_the_loops_instructions_and_the_suspension_are_in_the_overview(self):
        """The radix paper's loop lengths (instructions, counted by the programs) and the
        8 clocks of 4 live values at a suspension: overview rows with their verdicts."""
        import re
        exps = registry.all_experiments()
        nan = float("nan")
        tables = {
            "micro.suspend": pd.DataFrame({"machine": ["emx80-16mhz", "em4"],
                                           "yield_live4_cycles": [8.01, 16.02]}),
            "radix.scalability": pd.DataFrame({
                "grain": ["fine", "coarse", "coarse"], "pes": [4, 1, 4],
                "send_instr_per_key": [15.01, 2.98, 2.6], "pack_instr_per_key": [0, 13.0, 13.0],
                "put_instr_per_word": [nan, nan, 2.07]}),
            "radix.sequential": pd.DataFrame({"machine": ["EM-X", "EM-4"],
                                              "count_clk_per_key": [10.02, 13.02],
                                              "count_instr_per_key": [10.02, 10.02]})}
        outs = [outcome_of(exps[n], t) for n, t in tables.items()]
        with open(report.html_report(outs, os.path.join(self.tmp, "report.html"), {})) as f:
            page = f.read()
        overview = page[page.index("id=overview"):page.index("</section>")]
        # figure, where, simulated, published, difference, verdict
        verdicts = {f: (v, h) for f, v, h in re.findall(
            r'<td class=text>([\w ]+)</td><td class=text>[^<]*</td><td class=nowrap>([^<]*)</td>'
            r'<td class=nowrap>[^<]*</td><td>[^<]*</td><td class=\w+>([\w ]+)<', overview)}
        self.assertEqual(verdicts["yield live4 cycles"], ("8.01 clocks", "holds"))
        self.assertEqual(verdicts["put instructions per word"], ("2.07 instructions", "holds"))  # not NaN
        self.assertEqual(verdicts["pack instructions per key"], ("13 instructions", "holds"))
        self.assertEqual(verdicts["send instructions per key"], ("15.01 instructions", "does not hold"))
        self.assertEqual(verdicts["count instructions per key"], ("10.02 instructions", "holds"))
        for source in ("saving and restoring 4 live variables",
                       "the coarse-grain block-send loop, 2 instructions per word",
                       "the fine-grain loop, 16 instructions per remote write",
                       "the coarse-grain packing loop, 13 instructions per word"):
            self.assertIn(source, overview)

    def test_a_quick_run_says_what_is_smaller_and_marks_its_verdicts(self):
        def runs(opt):
            keys = [1, 2] if opt.quick else [1, 2, 3]
            return [Point({"keys": k}, Run("prog", (k, 10 if opt.quick else 1000)))
                    for k in keys]
        e = Experiment("paper.small", "paper", "Small", runs, lambda p, r: {},
                       published=[Published("speed", 20.0, {"machine": "A", "keys": 2},
                                            "made-up paper", "u")], checks=[RATIO])
        self.assertEqual(report.quick_difference(e),
                         ["keys 1, 2 instead of 1, 2, 3", "prog's arguments 10 instead of 1000",
                          "2 runs instead of 3"])
        o = outcome_of(e, TABLE)
        with open(report.html_report([o], os.path.join(self.tmp, "q.html"),
                                     {"quick": True})) as f:
            page = f.read()
        overview = page[page.index("id=overview"):page.index('id="paper.small"')]
        self.assertIn("Published values of this quick run", overview)
        self.assertIn("Statements of this quick run", overview)
        self.assertEqual(overview.count("quick run</span>"), 2)    # each verdict
        self.assertIn("Quick run.</b> Smaller than the full run: keys 1, 2 instead of 1, 2, "
                      "3; prog's arguments 10 instead of 1000; 2 runs instead of 3.",
                      html_unescape(page))
        self.assertIn("fixed costs", page)                         # why a figure differs
        report.write(o, self.tmp, {"quick": True})
        terminal = " ".join(report.text(o).split())       # as one line, unwrapped
        self.assertIn("quick run: Smaller than the full run: keys 1, 2 instead of 1, 2, 3",
                      terminal)
        self.assertIn("the fixed costs (start-up, the first message, the global steps) "
                      "weigh more", terminal)                # why, on the terminal too
        same = Experiment("paper.same", "paper", "Same",
                          lambda opt: [Point({"keys": 1}, Run("prog", (1,)))], lambda p, r: {})
        self.assertEqual(report.quick_difference(same), [])
        self.assertIn("The quick run is the full run here", report._quick_html(same, True))
        self.assertNotIn("A quick figure differs", report.quick_note(same))   # it does not
        full = report.html_report([o], os.path.join(self.tmp, "f.html"), {"quick": False})
        with open(full) as f:
            self.assertNotIn("quick run", f.read())

    def test_a_long_command_is_cut_in_the_runs_table(self):
        cmd = "emx run prog " + "/0" * 3000
        cell = report._command_html(cmd, "delay.patterns")
        self.assertLess(len(cell), 400)
        self.assertIn("6013 characters, all in delay.patterns.json", cell)
        self.assertEqual(report._command_html("emx run prog 1", "x"),
                         "<code>emx run prog 1</code>")

    def test_configurations_are_named_by_what_differs(self):
        """By the keys in which a config differs from its file (or, for a key the file
        does not set, from the value most configs of that name have); never a number."""
        a = {"name": "emx80", "clock_mhz": 16, "pes": 80, "pe": {"memory_bytes": 4},
             "network": {"topology": "omega"}}
        b = dict(a, clock_mhz=20)
        d = dict(a, clock_mhz=20, pes=5)
        e = dict(a, pes=64, network={"topology": "single_switch"})
        c = {"name": "em4", "clock_mhz": 12.5, "pe": {"memory_bytes": 1}}
        files = {"emx80": {"name": "emx80", "clock_mhz": 16, "pes": 80}}
        self.assertEqual(report.config_names([a, b, d, e, c], files),
                         ["emx80", "emx80, clock_mhz=20", "emx80, clock_mhz=20, pes=5",
                          "emx80, network.topology=single_switch, pes=64", "em4"])
        names = report.config_names([dict(a, pes=p) for p in (2, 4, 8)], {"emx80": {}})
        self.assertEqual(len(set(names)), 3)
        self.assertEqual(report._config_file("emx-thread-write")["clock_mhz"], 16)  # extends

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
        self.assertEqual(report.plain_number(1024), "1024")       # not "1.02e+03"
        self.assertEqual(report.plain_number(1500), "1500")        # not "1.5e+03"
        self.assertEqual(report.plain_number(12500), "12.5 K")

    def test_a_narrow_range_has_distinct_plain_labels(self):
        """1968..1982 clocks: "1968", "1970", ... not "1.97e+03" four times, nor "1.98 K"
        beside "1982", nor an offset."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure()
        ax = fig.subplots()
        ax.plot([1, 64], [1968.0, 1982.5])
        ax.set_yscale("log")
        report.plain_axes(ax)
        fig.canvas.draw()
        labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        self.assertEqual(ax.get_yscale(), "linear")
        self.assertEqual(len(set(labels)), len(labels))
        self.assertTrue(all(s.isdigit() for s in labels), labels)
        self.assertEqual(ax.yaxis.get_offset_text().get_text(), "")
        plt.close(fig)

    def test_a_short_log_range_has_at_least_three_plain_labels(self):
        """10..500 µs, 1.7 decades: log, but labelled 10, 20, 50, 100, 200, 500, not
        one "100" alone."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(2, 4))
        ax = fig.subplots()
        ax.plot([1, 16], [10.0, 500.0])
        ax.set_yscale("log")
        report.plain_axes(ax)
        fig.canvas.draw()
        lo, hi = ax.get_ylim()
        labels = [t.get_text() for t in ax.get_yticklabels()
                  if t.get_text() and lo <= t.get_position()[1] <= hi]
        self.assertEqual(ax.get_yscale(), "log")
        self.assertGreaterEqual(len(labels), 3, labels)
        self.assertTrue({"20", "50", "100", "200"} <= set(labels), labels)
        plt.close(fig)

    def test_a_narrow_log_panel_gets_fewer_labels_not_crowded_ones(self):
        """65 K..8 M keys in a narrow panel: 1-2-5 labels ("100 K200 K") touch, so the
        decades alone are labelled."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(8, 5))
        ax = fig.subplots(1, 2)[0]
        ax.plot([65536, 8388608], [20, 1000])
        ax.set_xscale("log")
        report.plain_axes(ax)
        fig.tight_layout()
        self.assertTrue(report.slant_crowded_labels(fig))
        fig.tight_layout()
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        lo, hi = ax.get_xlim()
        shown = [t for t in ax.get_xticklabels() if t.get_text() and lo <= t.get_position()[0] <= hi]
        texts = [t.get_text() for t in shown]
        self.assertEqual(texts[:2], ["100 K", "1 M"])
        self.assertNotIn("200 K", texts)
        self.assertEqual({t.get_rotation() for t in shown}, {0})     # not slanted

    def test_a_legend_over_the_curves_moves_below_the_axes(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(8, 5))
        ax = fig.subplots()
        for k in range(8):                 # lines everywhere: no empty corner
            ax.plot([0, 1, 2, 3], [k, k + 1, k + 0.5, k + 2], marker="o", label=f"line {k}")
        ax.set_xlabel("keys")
        ax.legend(loc="lower right", ncol=2)
        fig.tight_layout()
        self.assertTrue(report.legends_off_data(fig))
        fig.tight_layout()
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        legend, axes = ax.get_legend().get_window_extent(r), ax.get_window_extent(r)
        self.assertLess(legend.y1, ax.xaxis.get_tightbbox(r).y0)    # below the x label
        self.assertGreaterEqual(legend.y0, 0)                       # still in the figure
        self.assertEqual(len(ax.get_legend().get_texts()), 8)
        self.assertLess(legend.y1, axes.y0)
        self.assertFalse(report.legends_off_data(fig))              # now clear of them
        fig2 = plt.figure(figsize=(8, 5))
        ax2 = fig2.subplots()
        ax2.plot([0, 1], [0, 1], label="one")
        ax2.legend(loc="upper left")
        self.assertFalse(report.legends_off_data(fig2))             # an empty corner
        plt.close(fig)
        plt.close(fig2)

    def test_tables_write_units_and_decimals_as_a_reader_does(self):
        t = pd.DataFrame({"delta": ["0.6 link", "0.8 link"], "gather 256 B (us)":
                          [2213.0, 2212.875], "keys_per_s": [3.0, 4.0], "big": [2217.0, 996237.4],
                          "of_ideal": [0.59, 0.908],
                          "speedup": [0.208, 5.82]})
        page = report._table_html(t)
        self.assertIn("<th>gather 256 B (µs)</th>", page)
        self.assertIn("<th>keys per second</th>", page)
        self.assertIn("<td>2213.00</td>", page)          # beside 2212.88, not "2213"
        self.assertIn("<td>2212.88</td>", page)
        self.assertIn("<td>3</td>", page)                # a whole column stays whole
        self.assertIn("<td>2217</td>", page)             # beside 996237: no decimals
        self.assertIn("<td>0.590</td>", page)            # beside 0.908
        self.assertIn("<td>0.21</td>", page)             # beside 5.82
        self.assertEqual(report.header("network.topology"), "network topology")
        self.assertEqual(report.header("status"), "status")       # a word, not a unit
        for raw, read in (("count_clk_per_key", "count clocks per key"), ("mb_s", "MB/s"),
                          ("block_read_mb_s", "block read MB/s"), ("mbps", "MB/s"),
                          ("put_instr_per_word", "put instructions per word"),
                          ("oneway_us", "one-way µs"), ("preissue_us", "pre-issue µs"),
                          ("host_s", "host seconds"), ("makespan_us", "makespan µs")):
            self.assertEqual(report.header(raw), read)

    def test_the_terminal_table_names_its_columns_as_the_report_does(self):
        """scripts/reproduce's table: readable names, µs (never "(us)"), columns two
        spaces apart so that a name's own spaces do not split it, numbers right-aligned,
        NaN as "-"."""
        import re
        t = pd.DataFrame({"machine": ["EM-X", "EM-4 slow"], "keys_per_s": [3.0, 12345.0],
                          "advance 4 B (us)": [13.39, 21.89], "of_ideal": [0.59, float("nan")]})
        lines = report.text_table(t).splitlines()
        self.assertEqual(re.split(r"  +", lines[0].strip()),
                         ["machine", "keys per second", "advance 4 B (µs)", "of ideal"])
        self.assertNotIn("(us)", "\n".join(lines))
        self.assertNotIn("_", lines[0])
        self.assertEqual(re.split(r"  +", lines[2].strip()), ["EM-4 slow", "12345", "21.89", "-"])
        self.assertTrue(lines[1].startswith("EM-X "))              # words left-aligned
        ends = {len(x) for x in lines}
        self.assertEqual(len(ends), 1, lines)                       # numbers right-aligned
        col = lines[0].index("advance 4 B (µs)") + len("advance 4 B (µs)")
        self.assertEqual([x[col - 5:col] for x in lines[1:]], ["13.39", "21.89"])

    def test_a_sweeps_terminal_pivot_names_its_axes_as_the_report_does(self):
        from emx import sweep
        t = pd.DataFrame({"machine": ["A", "A"], "network.topology": ["ring", "torus"],
                          "clock_mhz": [16, 16], "keys_per_s": [1.0, 2.0]})
        pivot = sweep.readable_names(t.pivot_table(index=["machine", "network.topology"],
                                                   columns="clock_mhz", values="keys_per_s"))
        self.assertEqual(list(pivot.index.names), ["machine", "network topology"])
        self.assertEqual(list(pivot.columns.names), ["clock mhz"])

    def test_a_wide_terminal_table_leads_with_its_parameters_and_names_the_rest(self):
        cols = {f"extra_{k}_us": [1000.5 + k] for k in range(12)}
        t = pd.DataFrame({**cols, "machine": ["EM-X"], "keys": [64], "of_ideal": [0.5]})
        out = report.text_table(t, ["machine", "keys"], ["of_ideal"], width=60,
                                csv="paper.thing.csv")
        head = out.splitlines()[0]
        self.assertTrue(head.startswith("machine  keys  of ideal  extra 0 µs"), head)
        self.assertLessEqual(max(len(x) for x in out.splitlines()[:2]), 60)
        self.assertIn("more columns in paper.thing.csv: ", out)
        self.assertIn("extra 11 µs)", out)
        self.assertNotIn("more columns", report.text_table(t[["machine", "keys"]]))

    def test_the_terminal_writes_each_published_value_with_its_unit(self):
        o = outcome(TABLE, [Published("speed", 21.0, {"machine": "A", "keys": 2},
                                      "made-up paper, Table 1", "keys per_s")])
        text = report.text(o)
        self.assertIn("   speed [machine=A, keys=2]: simulated 20 keys per_s, published 21 "
                      "keys per_s  (-4.8 %)  holds", text)
        self.assertIn("speed  machine  keys\n   10  A           1", text)   # the figure leads

    def test_a_wide_table_shows_its_parameters_and_figures_first(self):
        cols = {f"extra_{k}": [k] for k in range(12)}
        t = pd.DataFrame({**cols, "machine": ["EM-X"], "keys": [64], "of_ideal": [0.5]})
        self.assertEqual(report.lead_columns(t, ["machine", "keys"], ["of_ideal"], 5),
                         ["machine", "keys", "of_ideal", "extra_0", "extra_1"])
        page = report._table_html(t, names=["machine", "keys"], figures=["of_ideal"])
        shown, rest = page.split("<details>")
        self.assertIn("<th>machine</th><th>keys</th><th>of ideal</th><th>extra 0</th>",
                      shown)
        self.assertNotIn("extra 11", shown)
        self.assertIn("all 15 columns", rest)
        self.assertIn("<th>extra 11</th>", rest)          # every column a click away
        narrow = report._table_html(t[["machine", "keys"]])
        self.assertNotIn("<details>", narrow)

    def test_delay_delta_rows_in_unit_then_delta_order(self):
        from emx.experiments import delay
        rows = []
        for topo, deltas in (("single_switch", [0.6, 1.0]), ("circular_omega", [0.9, 0.6, 1.0])):
            for unit in ("link", "slot"):
                for d in deltas:
                    rows.append({"schedule": "proposed", "unit": unit, "delta": d,
                                 "topology": topo, "bytes": 256, "makespan_us": 1.0})
            rows.append({"schedule": "ring", "unit": None, "delta": None, "topology": topo,
                         "bytes": 256, "makespan_us": 2.0})
        v = delay.delta_view(pd.DataFrame(rows))
        self.assertEqual(list(v["delta"]), ["0.6 I(k)", "0.9 I(k)", "1 I(k)", "0.6 link",
                                            "0.9 link", "1 link", "Ring (no delays)"])

    def test_the_sweep_plot_has_plain_ticks_and_readable_axis_names(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from emx import sweep
        t = pd.DataFrame({"network.topology": ["circular_omega", "single_switch"] * 2,
                          "machine": ["EM-X", "EM-X", "EM-4", "EM-4"],
                          "keys_per_s": [12.2e6, 12.4e6, 3.6e6, 3.7e6]})
        fig = plt.figure(figsize=(8, 5))
        sweep.sweep_plot(t, "network.topology", ["machine"], "keys_per_s", fig)
        fig.canvas.draw()
        ax = fig.axes[0]
        self.assertEqual(ax.get_xlabel(), "network topology")
        self.assertEqual(ax.get_ylabel(), "keys per second")
        self.assertEqual(ax.yaxis.get_offset_text().get_text(), "")
        labels = [x.get_text() for x in ax.get_yticklabels() if x.get_text()]
        self.assertIn("12 M", labels)
        self.assertEqual({x.get_text() for x in ax.get_legend().get_texts()},
                         {"machine: EM-X", "machine: EM-4"})
        plt.close(fig)

    def test_crowded_bar_labels_are_slanted(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(4, 3))
        ax = fig.subplots()
        ax.bar(range(8), range(8))
        ax.set_xticks(range(8), [f"emx80-16mhz target {k}" for k in range(8)])
        self.assertTrue(report.slant_crowded_labels(fig))
        self.assertEqual({t.get_rotation() for t in ax.get_xticklabels()}, {30})
        fig2 = plt.figure(figsize=(8, 3))
        ax2 = fig2.subplots()
        ax2.bar(range(2), range(2))
        ax2.set_xticks(range(2), ["EM-4", "EM-X"])
        self.assertFalse(report.slant_crowded_labels(fig2))
        plt.close(fig)
        plt.close(fig2)

    def test_one_draw_gives_the_pixels_of_a_layout_draw_per_check_and_savefig(self):
        """figure_png measures its checks without drawing, pins empty axis labels and
        writes the one draw's pixels: the same picture as drawing the layout before each
        check and then savefig, here with a legend that must move, crowded labels that
        must slant, a title and a panel without axis labels."""
        import io
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        from PIL import Image

        def plot(t, fig):
            left, right = fig.subplots(1, 2)
            for k in range(8):              # lines everywhere: no empty corner
                left.plot([0, 1, 2, 3], [k, k + 1, k + 0.5, k + 2], marker="o",
                          label=f"line {k}")
            left.set_xlabel("keys")
            left.set_ylabel("speed")
            left.legend(loc="lower right", ncol=2)
            right.bar(range(8), range(8))
            right.set_xticks(range(8), [f"emx80-16mhz target {k}" for k in range(8)])
            right.set_title("targets")

        o = outcome(TABLE)
        o.experiment.plot = plot
        got = Image.open(io.BytesIO(report.figure_png(o)))
        self.assertEqual(got.mode, "RGB")                   # opaque: no alpha written
        fig = plt.figure(figsize=(8, 5), dpi=110)           # as figure_png drew before
        plot(TABLE, fig)
        for ax in fig.axes:
            report.plain_axes(ax)
        fig.suptitle(f"{o.experiment.name}: {o.experiment.title}", fontsize=8)
        fig.tight_layout()
        moved = report.legends_off_data(fig, report._layout(fig))
        if moved:
            fig.tight_layout()
        slanted = report.slant_crowded_labels(fig, report._layout(fig))
        if slanted:
            fig.tight_layout()
            self.assertFalse(report.slant_crowded_labels(fig, report._layout(fig)))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
        self.assertTrue(moved and slanted)
        want = np.asarray(Image.open(buf).convert("RGB"))
        self.assertEqual(want.shape, np.asarray(got).shape)
        self.assertEqual(int((want != np.asarray(got)).any(axis=2).sum()), 0)

    def test_a_transparent_figure_keeps_its_alpha(self):
        import io
        from PIL import Image
        o = outcome(TABLE)
        o.experiment.plot = lambda t, fig: (fig.patch.set_alpha(0),
                                            fig.add_subplot().plot(t["keys"], t["speed"]))
        png = Image.open(io.BytesIO(report.figure_png(o)))
        self.assertEqual(png.mode, "RGBA")
        self.assertEqual(png.getextrema()[3][0], 0)

    def test_pinned_panel_titles_are_where_matplotlib_places_them(self):
        """delay.patterns and acp_ompl.pingpong pin their panel titles at y=1.0 (placing
        them measures each panel's y axis again): matplotlib's own placement, turned back
        on here, puts every title at the same place."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from emx.experiments import delay
        exps = registry.all_experiments()
        patterns = pd.DataFrame(
            [{"pattern": p, "topology": topo, "method": m, "bytes": k,
              "makespan_us": (1 + i) * k * (2 if m == "ring" else 1)}
             for i, p in enumerate(["scatter", "gather", "ba4"])
             for topo in delay.TOPOLOGIES for m in ["ring", "proposed", "scatter"]
             for k in [16, 256, 1024]])
        pingpong = pd.DataFrame([{"bytes": b, "how": h, "T": t, "oneway_us": t * b * (1 + i)}
                                 for b in [4, 1024] for i, h in enumerate(["acp", "mpi"])
                                 for t in [1, 2, 4, 8]])
        for name, t in (("delay.patterns", patterns), ("acp_ompl.pingpong", pingpong)):
            fig = plt.figure(figsize=(8, 5), dpi=110)
            exps[name].plot(t, fig)
            for ax in fig.axes:
                report.plain_axes(ax)
            fig.tight_layout()
            fig.canvas.draw()
            titled = [ax for ax in fig.axes if ax.get_title()]
            pinned = [ax.title.get_window_extent().bounds for ax in titled]
            for ax in titled:
                ax._autotitlepos = True         # matplotlib's placement (private flag)
            fig.canvas.draw()
            self.assertEqual([ax.title.get_window_extent().bounds for ax in titled], pinned,
                             name)
            self.assertTrue(titled, name)
            plt.close(fig)

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

    def test_plots_name_their_axes_and_legends_as_the_tables_do(self):
        """The default plot's axes and legend, and the microbenchmarks' bars: "keys per
        second", "cycles per word", never the CSV's "keys_per_s"; one bar a point has no
        legend (its y label says what the bars are)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        t = pd.DataFrame({"clock_mhz": [10, 20, 10, 20], "pe_count": [1, 1, 2, 2],
                          "keys_per_s": [1.0, 2.0, 3.0, 4.0]})
        fig = plt.figure()
        report.default_plot(t, fig, ["clock_mhz", "pe_count"])
        ax = fig.axes[0]
        self.assertEqual((ax.get_xlabel(), ax.get_ylabel()), ("clock mhz", "keys per second"))
        self.assertEqual([x.get_text() for x in ax.get_legend().get_texts()],
                         ["pe count=1", "pe count=2"])
        plt.close(fig)
        exps = registry.all_experiments()
        rows = pd.DataFrame({"machine": ["em4", "emx80-16mhz"], "target": ["one", "one"],
                             "cycles_per_word": [5.1, 2.1], "min_us": [1.0, 2.0],
                             "mean_us": [1.5, 2.5], "max_us": [2.0, 3.0]})
        fig = plt.figure()
        exps["micro.remote_write"].plot(rows, fig)
        self.assertIsNone(fig.axes[0].get_legend())
        plt.close(fig)
        fig = plt.figure()
        exps["micro.invoke"].plot(rows, fig)
        self.assertEqual([x.get_text() for x in fig.axes[0].get_legend().get_texts()],
                         ["min µs", "mean µs", "max µs"])
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


    def test_tables_are_written_while_the_figures_are_drawn(self):
        """scripts/reproduce writes the tables and their text while the processes draw
        (`meanwhile`): called once, after the processes started and before any PNG is
        here, also without processes; the PNGs are those drawn without it, and
        write_data then write_png write the files write() writes."""
        def made(n):
            out = []
            for k in range(n):
                o = outcome(TABLE)
                o.experiment.name = f"paper.fig{k}"
                out.append(o)
            return out
        want = [report.figure_png(o) for o in made(3)]
        for jobs in (1, 2):
            got, seen = made(3), []
            report.render_figures(got, jobs, lambda: seen.append(
                [getattr(o, "png", None) for o in got]))
            self.assertEqual(seen, [[None, None, None]], jobs)
            self.assertEqual([o.png for o in got], want, jobs)
        together, apart = os.path.join(self.tmp, "w"), os.path.join(self.tmp, "split")
        for o in made(3):
            report.write(o, together, {"quick": False})
        for o in made(3):
            report.write_data(o, apart, {"quick": False})
            self.assertFalse(os.path.exists(os.path.join(apart, o.experiment.name + ".png")))
            report.write_png(o, apart)
        self.assertEqual(sorted(os.listdir(together)), sorted(os.listdir(apart)))
        for name in os.listdir(together):
            with open(os.path.join(together, name), "rb") as a, \
                    open(os.path.join(apart, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)

        def broken():
            raise OSError("the disk is full")
        with self.assertRaisesRegex(OSError, "the disk is full"):
            report.render_figures(made(2), 2, broken)

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
