"""What a person sees: tables on the terminal, results/<name>.{json,csv,png}, and one
self-contained results/report.html (figures embedded, opens offline)."""
from __future__ import annotations

import base64
import datetime
import gc
import html
import io
import json
import math
import multiprocessing
import os
import re
import shutil
import subprocess
import textwrap

from . import cache, sim


def version() -> dict:
    """The simulator's identity: its source commit (and whether it was modified) and
    the hash of the binary that ran."""
    commit, dirty = "unknown", False
    try:
        commit = subprocess.run(["git", "-C", sim.TOP, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", sim.TOP, "status", "--porcelain",
                                     "--untracked-files=no"],
                                    capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        pass
    return {"commit": commit + ("+modified" if dirty else ""),
            "binary_sha256": cache.file_hash(sim.binary())[:16]}


def view(outcome):
    """The experiment's view of its table (the table itself without one). Made once per
    table: the terminal text and the HTML report both show it (a pivot costs pandas
    tens of milliseconds)."""
    e, t = outcome.experiment, outcome.table
    if e.view is None or t is None or t.empty:
        return t
    made = getattr(outcome, "_view", None)
    if made is None or made[0] is not t:
        made = outcome._view = (t, e.view(t))
    return made[1]


def fmt(x, whole: bool = True):
    """A table cell as a person reads it. `whole`: a whole number is written as one (a
    count or size that a pivot made a float); a column that also holds fractions passes
    False, so that 2213.00 stands beside 2212.88, not "2213"."""
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        a = abs(x)
        if whole and x == int(x) and a < 1e15:
            return str(int(x))
        if not whole and 0.01 <= a < 1:
            return f"{x:.2f}"             # "0.21" beside "1.00" down a column
        return f"{x:.0f}" if a >= 1e5 else f"{x:.2f}" if a >= 1 else f"{x:.3g}"
    return str(x)


def column_formats(t) -> dict:
    """{column: formatter} for a table: fmt, with the whole numbers of a column that also
    holds fractions written with that column's decimals (none where the column reaches
    100000: "2217" beside "996237", not "2217.00"; three in a column of ratios below 1:
    "0.590" beside "0.908")."""
    out = {}
    for c in t.columns:
        v = t[c]
        fractions = str(v.dtype) == "float64" and bool(
            ((v != v.round()) & v.notna()).any())
        top = float(v.abs().max()) if fractions else 0.0
        if top >= 1e5:                  # whole numbers down the column
            out[c] = lambda x: f"{x:.0f}" if abs(x) >= 1 else fmt(x)
        elif 0 < top < 1:               # ratios: 0.590 beside 0.908
            out[c] = lambda x: "-" if math.isnan(x) else f"{x:.3f}"
        else:
            out[c] = (lambda x: fmt(x, False)) if fractions else fmt
    return out


def text(outcome) -> str:
    """The terminal form: the table, then the published values beside ours."""
    e = outcome.experiment
    lines = [f"== {e.name}: {e.title}"]
    width = terminal_width()
    if getattr(outcome, "quick", False):            # set by write() from the run's meta
        lines.append(textwrap.fill(f"   quick run: {quick_note(e)} (full figures: "
                                   f"scripts/reproduce {e.name})", width,
                                   subsequent_indent="   "))
    t = view(outcome)
    if t is not None and not t.empty:
        lines.append(text_table(t, *_lead(outcome), width=width,
                                csv=f"{e.name}.csv"))
    c = published(outcome)
    if c:
        lines.append("-- beside the published figures (docs/papers.md)")
        for r in c:
            unit = f" {r['unit']}" if r["unit"] else ""
            sim_v = "no value" if r["simulated"] is None else fmt(r["simulated"]) + unit
            diff = "" if r["diff_%"] is None else f"  ({r['diff_%']:+.1f} %)"
            lines.append(f"   {header(r['figure'])} [{r['where']}]: simulated {sim_v}, "
                         f"published {fmt(r['published'])}{unit}{diff}  "
                         f"{VERDICT[r['holds']]}  {r['source']}")
    for r in checks(outcome):
        lines.append(textwrap.fill(f"-- {VERDICT[r['holds']]}: {r['statement']} "
                                   f"({r['source']})", width, subsequent_indent="   "))
        lines.append(textwrap.fill(f"{r['relation']}: {_figures_text(r)}", width,
                                   initial_indent="     ", subsequent_indent="       "))
    for f in outcome.failures:
        lines.append(f"!! failed: {f['command']}\n   " + f["fault"].replace("\n", "\n   "))
    n, c_n = len(outcome.results), sum(outcome.cached)
    lines.append(f"   ({n} runs, {c_n} from the cache, {outcome.host_seconds:.1f} s of "
                 f"simulator time)")
    return "\n".join(lines)


def terminal_width() -> int:
    """The terminal's columns (120 when the output is not a terminal, as in a log)."""
    return max(60, shutil.get_terminal_size((120, 24)).columns)


def text_table(t, names=(), figures=(), width: int = 120, csv: str = "") -> str:
    """A table on the terminal, as the report writes it: columns by their names as a
    reader says them (header: "keys per second", "advance 4 B (µs)"), two spaces apart so
    that the spaces inside a name do not read as a column break, numbers right-aligned,
    words left-aligned, each column as wide as its widest cell. A table wider than `width`
    shows the columns that name a row and the declared figures first (lead_columns) and
    as many others as fit, and says how many more the CSV holds."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype
    formats = column_formats(t)
    cols = []
    for c in t.columns:
        cells = [formats[c](v) for v in t[c]]
        name = header(c)
        right = is_numeric_dtype(t[c]) and not is_bool_dtype(t[c])
        w = max([len(name)] + [len(x) for x in cells])
        cols.append((str(c), [name] + cells, w, right))
    by_name = {c[0]: c for c in cols}
    order = lead_columns(t.rename(columns=str), names, figures, most=len(cols))
    first = len(lead_columns(t.rename(columns=str), names, figures, most=0))
    shown, used = [], -2
    for i, c in enumerate(order):
        w = by_name[c][2] + 2
        if i >= max(first, 1) and used + w > width:
            break
        shown.append(by_name[c])
        used += w
    lines = ["  ".join(cells[r].rjust(w) if right else cells[r].ljust(w)
                       for _, cells, w, right in shown).rstrip()
             for r in range(len(t) + 1)]
    left = len(cols) - len(shown)
    if left:
        where = f" in {csv}" if csv else ""
        lines.append(textwrap.fill(
            f"   ({left} more column{'s' if left > 1 else ''}{where}: "
            + ", ".join(header(c[0]) for c in cols if c not in shown) + ")",
            max(width, 60), subsequent_indent="    "))
    return "\n".join(lines)


def _lead(outcome) -> tuple:
    """(names, figures): the experiment's parameters, which name a row, and the figures it
    declares (its published values' and what its derive adds): a wide table leads with them."""
    names = list(outcome.points[0].params) if outcome.points else []
    figures = [p.figure for p in outcome.experiment.published] + \
        list(getattr(outcome, "derived", []))
    return names, figures


def _nan(x):
    return isinstance(x, float) and math.isnan(x)


VERDICT = {True: "holds", False: "does not hold", None: "not measured"}


def published(outcome) -> list:
    """The experiment's published values beside the simulator's: dicts with figure, where,
    simulated, published, diff_%, unit, source, tolerance and holds (None: no value)."""
    c = outcome.comparison
    if c is None or c.empty:
        return []
    tolerance = {(p.figure, ", ".join(f"{k}={v}" for k, v in p.where.items()), p.value):
                 p.tolerance for p in outcome.experiment.published}
    rows = []
    for _, r in c.iterrows():
        d = r.to_dict()
        for k in ("simulated", "diff_%"):
            if d[k] is None or _nan(d[k]):
                d[k] = None
        d["published"] = float(d["published"])
        d["tolerance"] = tolerance.get((d["figure"], d["where"], d["published"]), 10.0)
        d["holds"] = None if d["diff_%"] is None else abs(d["diff_%"]) <= d["tolerance"]
        rows.append(d)
    return rows


def checks(outcome) -> list:
    """The paper's statements, each evaluated on the experiment's table (Check.evaluate)."""
    cached = getattr(outcome, "_checks", None)
    if cached is None:
        cached = [c.evaluate(outcome.table) for c in outcome.experiment.checks]
        outcome._checks = cached
    return cached


def _figures_text(r) -> str:
    return "; ".join(f"{k} {fmt(v)}" for k, v in r["figures"].items()) or r["why"]


def figure_png(outcome) -> bytes | None:
    """The experiment's plot as PNG bytes (None when it has none or no rows)."""
    e, t = outcome.experiment, outcome.table
    if t is None or t.empty:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(8, 5), dpi=110)
    try:
        if e.plot is not None:
            e.plot(t, fig)
        else:
            default_plot(t, fig, [k for k in outcome.points[0].params] if outcome.points else [])
        if not fig.axes:
            return None
        for ax in fig.axes:
            plain_axes(ax)
        _pin_empty_labels(fig)
        fig.suptitle(textwrap.fill(f"{e.name}: {e.title}", 100), fontsize=8)
        fig.tight_layout()
        renderer = _placed(fig)
        if legends_off_data(fig, renderer):
            fig.tight_layout()
            renderer = _placed(fig)
        for _ in range(3):                # fewer log labels, then slanted ones if need be
            if not slant_crowded_labels(fig, renderer):
                break
            fig.tight_layout()
            renderer = _placed(fig)
        return _png(fig)
    finally:
        plt.close(fig)


def _covered(ax, box, renderer) -> bool:
    """True when the display box `box` covers a point or a stretch of a line of ax."""
    import numpy as np
    for line in ax.get_lines():
        if not line.get_visible() or line.get_label().startswith("_"):
            continue                    # reference lines (axhline) may run under it
        xy = line.get_transform().transform(line.get_xydata())
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) > 1:                 # the segments too, not only the markers
            t = np.linspace(0, 1, 20)[:, None, None]
            xy = (xy[:-1] * (1 - t) + xy[1:] * t).reshape(-1, 2)
        if ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) &
                (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)).any():
            return True
    return False


def _layout(fig):
    """Places every artist as a draw would (a legend's best corner, the ticks and their
    labels) without painting any pixel, and returns the renderer that measures them."""
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def _placed(fig):
    """Puts each axes where a draw would (an aspect ratio, an inset's locator) and returns
    the renderer to measure with: ticks, their labels and a legend's best corner place
    themselves when measured, so figure_png's checks need no layout draw (those, one per
    check and one inside savefig, were over a quarter of the drawing)."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        locator = ax.get_axes_locator()
        ax.apply_aspect(locator(ax, renderer) if locator else None)
    return renderer


def _pin_empty_labels(fig) -> None:
    """Pins each empty axis label (panels under one figure-wide label): matplotlib places
    an axis label beyond the tick labels by measuring them again, in every layout pass
    and draw (15 % of delay.patterns' drawing), and an empty one shows nowhere."""
    for ax in fig.axes:
        for axis, xy in ((ax.xaxis, (0.5, 0.0)), (ax.yaxis, (0.0, 0.5))):
            if not axis.label.get_text():
                axis.set_label_coords(*xy)


def _png(fig) -> bytes:
    """The figure drawn once and encoded. savefig would draw twice (after tight_layout it
    lays the figure out again before it paints) and write RGBA at zlib's default level;
    an opaque figure is written as RGB at level 3: the same pixels, a file 8 % smaller,
    in two thirds of the encoding time."""
    from PIL import Image
    fig.canvas.draw()
    w, h = fig.canvas.get_width_height(physical=True)
    img = Image.frombuffer("RGBA", (w, h), fig.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    if img.getextrema()[3][0] == 255:
        img = img.convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format="png", compress_level=3, dpi=(fig.dpi, fig.dpi))
    return buf.getvalue()


def legends_off_data(fig, renderer=None) -> bool:
    """Moves a legend that covers the curves of its axes (there was no empty corner for
    it) out of the way, below the axes and their x labels; True when it moved any.
    `renderer`: _placed's (or _layout's), when nothing moved since it ran."""
    from matplotlib.transforms import ScaledTranslation
    renderer = renderer or _layout(fig)
    moved = False
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or not ax.axison or \
                not _covered(ax, leg.get_window_extent(renderer), renderer):
            continue
        below = (ax.get_window_extent(renderer).y0 -
                 ax.xaxis.get_tightbbox(renderer).y0) / fig.dpi + 0.05   # inches
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, loc="upper center", fontsize=leg.get_texts()[0].get_fontsize(),
                  ncol=min(len(labels), 2), frameon=False,
                  bbox_to_anchor=(0.5, 0), bbox_transform=ax.transAxes +
                  ScaledTranslation(0, -below, fig.dpi_scale_trans))
        moved = True
    return moved


def _fewer_log_ticks(axis) -> bool:
    """A log axis labelled at 1, 2 and 5 of each decade (plain_axes) keeps 1 and 3, or
    the decades alone where they are three or more; True when it changed the ticks."""
    from matplotlib.ticker import LogLocator
    loc = axis.get_major_locator()
    subs = getattr(loc, "_subs", None)
    if not isinstance(loc, LogLocator) or subs is None or len(subs) < 2:
        return False
    lo, hi = sorted(axis.get_view_interval())
    fewer = (1.0,) if lo > 0 and math.log10(hi / lo) >= 2 or len(subs) == 2 else (1.0, 3.0)
    axis.set_major_locator(LogLocator(10, subs=fewer))
    return True


def slant_crowded_labels(fig, renderer=None) -> bool:
    """Slants the x tick labels of an axis where two of them overlap (bar labels such as
    "emx80-16mhz one" beside "emx80-16mhz all"); a log axis whose 1-2-5 labels touch
    gets fewer labels instead. True when it changed any. `renderer`: _placed's (or
    _layout's), when nothing moved since it ran."""
    renderer = renderer or _layout(fig)
    slanted = False
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_text() and t.get_visible()]
        if any(t.get_rotation() for t in labels):
            continue                      # the plot placed them itself
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        crowded = any(a.x1 + 4 > b.x0 for a, b in zip(boxes, boxes[1:]))
        if crowded and _fewer_log_ticks(ax.xaxis):
            slanted = True                # drawn again below, with fewer labels
            continue
        if any(a.x1 > b.x0 for a, b in zip(boxes, boxes[1:])):
            for t in ax.get_xticklabels():
                t.set_rotation(30)
                t.set_horizontalalignment("right")
            slanted = True
    return slanted


def plain_number(x: float, _pos=None) -> str:
    """A tick label as a person writes it: 4, 0.5, 1024, 2 K, 64 K, 2.5 M (no powers
    of ten: 1024 is "1024", not "1.02e+03")."""
    if x == 0:
        return "0"
    a = abs(x)
    for div, unit in ((1e9, " G"), (1e6, " M"), (1e3, " K")):
        if a >= div and (a >= 1e5 or x % div == 0 or a >= 10 * div):
            return f"{x / div:.3g}{unit}"
    if a >= 1e3 or x == int(x):
        return f"{x:.0f}"
    return f"{x:.3g}"


def plain_formatter():
    """plain_number for a whole axis: when its labels would repeat (a narrow range such
    as 1969..1983, where three digits give "1.97 K" four times) or mix "1.98 K" with
    "1982", every tick gets as many decimals as the step between ticks needs ("1968",
    "1970", ...), still without an offset or a power of ten."""
    from matplotlib.ticker import Formatter

    class Plain(Formatter):
        def __call__(self, x, pos=None):
            return plain_number(x)

        def format_ticks(self, values):
            locs = sorted(v for v in values if math.isfinite(v))
            labels = [plain_number(v) for v in locs]
            units = {lab[-1] in "KMG" for v, lab in zip(locs, labels) if abs(v) >= 1e3}
            if len(set(labels)) == len(locs) and len(units) <= 1:
                return [plain_number(v) for v in values]   # not "1.97 K" beside "1972"
            steps = [b - a for a, b in zip(locs, locs[1:]) if b > a]
            digits = max(0, -math.floor(math.log10(min(steps)))) if steps else 0
            return [f"{v:.{digits}f}" for v in values]
    return Plain()


def plain_axes(ax, decades: float = 1.5) -> None:
    """A log axis only where the data span more than `decades` powers of ten; plain tick
    labels on every numeric axis (no "6x10^0" over a 3 % range, no "1.02e+03", no
    offset). Axes with labels of their own (categories, a plot's formatter) keep them."""
    from matplotlib.ticker import LogFormatter, LogLocator, NullFormatter, ScalarFormatter
    lim = ax.dataLim
    for axis, lo, hi in (("x", lim.x0, lim.x1), ("y", lim.y0, lim.y1)):
        which = ax.xaxis if axis == "x" else ax.yaxis
        if which.get_scale() == "log":
            if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)) or \
                    math.log10(hi / lo) < decades:
                (ax.set_xscale if axis == "x" else ax.set_yscale)("linear")
            else:
                which.set_minor_formatter(NullFormatter())
                if getattr(which.get_transform(), "base", 10) == 10 and \
                        math.log10(hi / lo) < 3:
                    # decades alone label one or two ticks over so short a range
                    which.set_major_locator(LogLocator(10, subs=(1, 2, 5)))
            which.set_major_formatter(plain_formatter())
        elif isinstance(which.get_major_formatter(), (ScalarFormatter, LogFormatter)):
            which.set_major_formatter(plain_formatter())


def default_plot(t, fig, keys, y=None):
    """The first figure against the first numeric parameter, a line per other key; with
    no numeric parameter, a bar per point."""
    keys = [k for k in keys if k in t.columns]
    figures = [c for c in t.columns if c not in keys and
               str(t[c].dtype) in ("float64", "int64")]
    if not figures:
        return
    y = y or figures[0]
    numeric = [k for k in keys if str(t[k].dtype) in ("float64", "int64") and t[k].nunique() > 1]
    ax = fig.subplots()
    if not numeric:
        # A bar per point: its first row (a point with several rows, such as a list of
        # steps, would otherwise give hundreds of bars whose labels no one can read).
        t = t.drop_duplicates(keys) if keys else t
        labels = [", ".join(f"{header(k)}={r[k]}" for k in keys) for _, r in t.iterrows()]
        ax.bar(range(len(t)), t[y])
        ax.set_xticks(range(len(t)), labels, rotation=45, ha="right", fontsize=7)
    else:
        x = numeric[0]
        others = [k for k in keys if k != x and t[k].nunique() > 1]
        groups = t.groupby(others) if others else [((), t)]
        for name, g in groups:
            g = g.sort_values(x)
            name = name if isinstance(name, tuple) else (name,)
            label = ", ".join(f"{header(k)}={v}" for k, v in zip(others, name)) or header(y)
            ax.plot(g[x], g[y], marker="o", markersize=3, label=label)
        ax.set_xlabel(header(x))
        if t[x].min() > 0 and t[x].max() / max(t[x].min(), 1e-12) > 50:
            ax.set_xscale("log")         # plain_axes labels it
        if others:
            ax.legend(fontsize=7)
    ax.set_ylabel(header(y))
    ax.grid(True, alpha=0.3)


def load_plotting() -> None:
    """Imports matplotlib's pyplot with the Agg backend (half a second of CPU): what
    render_figures needs before it forks. scripts/reproduce calls it while the runs go
    on (run_experiments' `meanwhile`), so that the import is not part of the serial end."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def render_figures(outcomes, jobs: int, meanwhile=None) -> None:
    """Sets each outcome's `png` (figure_png) in up to `jobs` forked processes. Matplotlib's
    layout and text take most of the layer's own CPU time (about 5 of 10 s of a full
    reproduction), and once the runs are done the cores are idle. Each process takes the
    next experiment not yet taken, those of the largest tables first, so that the
    processes end together (delay.patterns alone is a quarter of the drawing; a fixed share
    each left one process drawing twice as long as the other). What a process did not
    deliver (it failed) is drawn here, where the error surfaces as write() would show it.
    `meanwhile`, if given, is called once here while the processes draw (writing the
    tables and their text: otherwise a serial step after the figures), before any figure
    is drawn here."""
    jobs = min(jobs, len(outcomes))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        if meanwhile is not None:
            meanwhile()
        for o in outcomes:
            o.png = figure_png(o)
        return
    ctx = multiprocessing.get_context("fork")     # the experiments' plots are closures
    load_plotting()                               # once, here, not in each process
    # The processes share this one's memory until they write to it, and the collector
    # writes to every object it visits: the runs' results are left out of its visits,
    # which would copy them into each process.
    gc.freeze()
    try:
        drawn = _render_forked(ctx, outcomes, jobs, meanwhile)
    finally:
        gc.unfreeze()
    for i, o in enumerate(outcomes):
        o.png = drawn[i] if i in drawn else figure_png(o)


def _render_forked(ctx, outcomes, jobs: int, meanwhile=None) -> dict:
    """{index: PNG} drawn by `jobs` forked processes (_render_taken); `meanwhile()` runs
    here once they are started."""
    order = sorted(range(len(outcomes)), key=lambda i: -_rows(outcomes[i]))
    taken = ctx.Value("i", 0)                     # how many of `order` are taken
    started = []
    for _ in range(jobs):
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_render_taken, args=(outcomes, order, taken, send),
                           daemon=True)
        proc.start()
        send.close()
        started.append((proc, receive))
    drawn = {}
    try:
        if meanwhile is not None:
            meanwhile()
    finally:                                      # (its error after the processes end)
        for proc, receive in started:
            try:
                drawn.update(receive.recv())
            except EOFError:
                pass
            proc.join()
    return drawn


def _rows(outcome) -> int:
    return 0 if outcome.table is None else len(outcome.table)


def _render_taken(outcomes, order, taken, send) -> None:
    """In a forked process: {index: PNG} of the outcomes it took, until none is left or
    one fails (that one is left to the parent)."""
    pngs = {}
    try:
        while True:
            with taken.get_lock():
                k = taken.value
                taken.value = k + 1
            if k >= len(order):
                break
            pngs[order[k]] = figure_png(outcomes[order[k]])
    except BaseException:
        pass
    send.send(pngs)
    send.close()


def write(outcome, out_dir: str, meta: dict) -> dict:
    """results/<name>.json, .csv and .png; returns {kind: path}."""
    paths = write_data(outcome, out_dir, meta)
    paths.update(write_png(outcome, out_dir))
    return paths


def write_data(outcome, out_dir: str, meta: dict) -> dict:
    """results/<name>.json and .csv (write without the figure); returns {kind: path}."""
    import pandas as pd
    os.makedirs(out_dir, exist_ok=True)
    e, base = outcome.experiment, os.path.join(out_dir, outcome.experiment.name)
    paths = {}
    t = outcome.table if outcome.table is not None else pd.DataFrame()
    t.to_csv(base + ".csv", index=False)
    paths["csv"] = base + ".csv"
    doc = {"experiment": e.name, "paper": e.paper, "title": e.title, "doc": e.doc, **meta,
           "rows": json.loads(t.to_json(orient="records")),
           "published": published(outcome),
           "checks": checks(outcome),
           "quick_means": e.quick if meta.get("quick") else "",
           "quick_smaller": (quick_difference(e) or []) if meta.get("quick") else [],
           "failures": outcome.failures,
           "runs": [{"params": _jsonable(p.params), "command": p.run.describe(),
                     "status": r.status, "outcome": r.outcome, "cached": c,
                     "simulated_time_ns": r.simulated_time_ns,
                     "host_seconds": r.host_seconds}
                    for p, r, c in zip(outcome.points, outcome.results, outcome.cached)]}
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    paths["json"] = base + ".json"
    outcome.quick = bool(meta.get("quick"))
    return paths


def write_png(outcome, out_dir: str) -> dict:
    """results/<name>.png, drawn here unless render_figures drew it; {"png": path} or {}."""
    png = outcome.png if hasattr(outcome, "png") else figure_png(outcome)
    outcome.png = png
    if not png:
        return {}
    path = os.path.join(out_dir, outcome.experiment.name + ".png")
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "wb") as f:
        f.write(png)
    return {"png": path}


def _jsonable(d):
    return json.loads(json.dumps(dict(d), default=str))


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;
 color:#1d2330;background:#f6f7f9}
header{background:#1d2a44;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:22px} header p{margin:4px 0 0;opacity:.8;font-size:13px}
main{padding:18px 28px;max-width:1150px}
nav{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:10px 16px;margin-bottom:18px}
nav a{margin-right:14px;font-size:13px;color:#1d4fa3;text-decoration:none;white-space:nowrap}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:16px 20px;margin-bottom:18px;
 overflow:hidden}
section h2{margin:0 0 4px;font-size:18px} h3{font-size:15px;margin:14px 0 4px}
.sub{color:#5b6475;font-size:13px;margin-bottom:10px}
img{max-width:100%;border:1px solid #eef0f3;border-radius:4px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0}
th,td{border-bottom:1px solid #e6e9ee;padding:3px 9px;text-align:right;vertical-align:top}
th{background:#f0f2f6;text-align:center} td:first-child,th:first-child{text-align:left}
td.text{text-align:left;max-width:460px} td.nowrap,td small{white-space:nowrap}
.good{color:#17803d;font-weight:600} .off{color:#b35c00;font-weight:600} .bad{color:#c0262d;font-weight:600}
.none{color:#5b6475;font-weight:600}
.fail{background:#fdecec;border:1px solid #f3b6b9;border-radius:6px;padding:8px 12px;margin:8px 0}
.quick{background:#fff7e0;border:1px solid #f0d48a;border-radius:6px;padding:6px 12px;margin:8px 0;
 font-size:13px}
pre{white-space:pre-wrap;font-size:11.5px;margin:4px 0}
td code{overflow-wrap:anywhere}
details{margin:6px 0;font-size:12.5px} summary{cursor:pointer;color:#1d4fa3}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:11px;margin-left:6px;
 background:#e7ecf6;color:#1d2a44;white-space:nowrap} .badge.q{background:#fbe3a4}
"""

PAPERS_DOC = "docs/papers.md"
QUICK_BADGE = "<span class='badge q'>quick</span>"
CLASS = {True: "good", False: "bad", None: "none"}


def _scroll(table_html: str) -> str:
    """A table that may be wider than the page scrolls inside its box."""
    return f"<div class=scroll>{table_html}</div>"


# Abbreviations in figure names, as a reader says them ("count clocks per key", "MB/s").
WORDS = {"clk": "clocks", "instr": "instructions", "oneway": "one-way",
         "preissue": "pre-issue", "mb s": "MB/s", "mbps": "MB/s", "mbytes per s": "MB/s",
         "host s": "host seconds", "us": "µs"}


def header(column) -> str:
    """A column's name as the report writes it: words apart ("keys per second", not
    "keys_per_s", "network topology", not "network.topology"), abbreviations spelled out
    ("count clocks per key", "MB/s") and microseconds as µs, not "us"."""
    words = re.sub(r"(?<=[A-Za-z])\.(?=[A-Za-z])", " ", str(column).replace("_", " "))
    for short, long in WORDS.items():
        words = re.sub(rf"(?<![A-Za-z]){short}(?![A-Za-z])", long, words)
    return re.sub(r"(?<![A-Za-z])per s(?![A-Za-z])", "per second", words)


def lead_columns(t, names=(), figures=(), most: int = 10) -> list:
    """The columns a wide table shows first: those that name a row (`names`, the
    experiment's parameters), the figures the experiment declares (its published values'
    and what its derive adds for the paper's figure: an ideal line, a ratio), then the
    others in order, `most` in all."""
    cols = [str(c) for c in t.columns]
    first = [c for c in cols if c in names]
    first = list(dict.fromkeys(first + [f for f in figures if f in cols]))
    rest = [c for c in cols if c not in first]
    return (first + rest)[:max(most, len(first))]


def _rows_html(t) -> str:
    formats = column_formats(t)
    head = "".join(f"<th>{html.escape(header(c))}</th>" for c in t.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(formats[c](v))}</td>"
                                    for c, v in zip(t.columns, row)) + "</tr>"
                   for row in t.itertuples(index=False))
    return _scroll(f"<table><tr>{head}</tr>{body}</table>")


def _table_html(t, limit=60, names=(), figures=(), most: int = 10) -> str:
    """A table as the report shows it: its first `limit` rows; one wider than `most`
    columns shows its lead_columns, with the whole table (every column, as in the CSV)
    a click away."""
    if t is None or t.empty:
        return "<p class=sub>no rows</p>"
    more = ""
    if len(t) > limit:
        more = f"<p class=sub>first {limit} of {len(t)} rows (all in the CSV)</p>"
        t = t.head(limit)
    t = t.rename(columns=str)
    if len(t.columns) <= most:
        return _rows_html(t) + more
    lead = lead_columns(t, names, figures, most)
    return (_rows_html(t[lead]) + more +
            f"<details><summary>all {len(t.columns)} columns</summary>{_rows_html(t)}"
            f"</details>")


def _figures_html(outcome) -> str:
    """An experiment's table: its parameters and declared figures lead."""
    names, figures = _lead(outcome)
    return _table_html(view(outcome), names=names, figures=figures)


def _command_html(command: str, name: str, limit: int = 240) -> str:
    """A run's command line; one that carries a whole pattern (thousands of characters)
    is cut, so that the runs' table stays a page wide, and says where the rest is."""
    if len(command) <= limit:
        return f"<code>{html.escape(command)}</code>"
    return (f"<code>{html.escape(command[:limit])} ...</code><br><small>{len(command)} "
            f"characters, all in {html.escape(name)}.json</small>")


def _source_html(source: str, papers_href: str) -> str:
    return f'<a href="{html.escape(papers_href)}">{html.escape(source)}</a>' if papers_href \
        else html.escape(source)


def _published_html(rows, papers_href="", experiment=False, quick=False) -> str:
    """The published values beside the simulated ones, each with holds / does not hold."""
    out = []
    for r in rows:
        d = r["diff_%"]
        dtxt = "-" if d is None else f"{d:+.1f} %"
        unit = f" {html.escape(r['unit'])}" if r["unit"] else ""
        simv = "-" if r["simulated"] is None else fmt(r["simulated"]) + unit
        lead = (f'<td class=nowrap><a href="#{html.escape(r["experiment"])}">'
                f'{html.escape(r["experiment"])}</a></td>') if experiment else ""
        out.append(f"<tr>{lead}<td class=text>{html.escape(header(r['figure']))}</td>"
                   f"<td class=text>{html.escape(r['where'])}</td>"
                   f"<td class=nowrap>{simv}</td><td class=nowrap>{fmt(r['published'])}"
                   f"{unit}</td><td>{dtxt}</td>"
                   f"<td class={CLASS[r['holds']]}>{VERDICT[r['holds']]}"
                   f"<br><small>within {fmt(r['tolerance'])} %</small>{_quick_mark(quick)}</td>"
                   f"<td class=text>{_source_html(r['source'], papers_href)}</td></tr>")
    head = ("<tr>" + ("<th>experiment</th>" if experiment else "") +
            "<th>figure</th><th>where</th><th>simulated</th><th>published</th>"
            "<th>difference</th><th>verdict</th><th>source</th></tr>")
    return _scroll(f"<table>{head}{''.join(out)}</table>")


def _checks_html(rows, papers_href="", experiment=False, quick=False) -> str:
    """The paper's statements: the claim, the figures it is about, the test, the verdict."""
    out = []
    for r in rows:
        figs = "<br>".join(f"{html.escape(k)}: <b>{html.escape(fmt(v))}</b>"
                           for k, v in r["figures"].items()) or html.escape(r["why"])
        lead = (f'<td class=nowrap><a href="#{html.escape(r["experiment"])}">'
                f'{html.escape(r["experiment"])}</a></td>') if experiment else ""
        out.append(f"<tr>{lead}<td class=text>{html.escape(r['statement'])}<br><small>"
                   f"{_source_html(r['source'], papers_href)}</small></td>"
                   f"<td class=text>{figs}</td><td class=text>{html.escape(r['relation'])}</td>"
                   f"<td class={CLASS[r['holds']]}>{VERDICT[r['holds']]}{_quick_mark(quick)}"
                   f"</td></tr>")
    head = ("<tr>" + ("<th>experiment</th>" if experiment else "") +
            "<th>the paper says</th><th>simulated figures</th><th>test</th><th>verdict</th></tr>")
    return _scroll(f"<table>{head}{''.join(out)}</table>")


def _quick_mark(quick: bool) -> str:
    """A verdict of a quick run says so: it is about the quick run's smaller sizes."""
    return "<br><span class='badge q'>quick run</span>" if quick else ""


def _tally(rows) -> str:
    n = {v: sum(1 for r in rows if r["holds"] is v) for v in (True, False, None)}
    parts = [f"<span class=good>{n[True]} hold</span>",
             f"<span class=bad>{n[False]} do not hold</span>"]
    if n[None]:
        parts.append(f"<span class=none>{n[None]} not measured in this run</span>")
    return ", ".join(parts)


def config_names(configs, files=None) -> list:
    """A name for each effective config (dicts), by what it differs in: its `name` (the
    config file) and, among configs of the same name, the keys whose values differ from
    the usual one ("emx-thread-write, clock_mhz=20, pes=64"), never a number. The usual
    value is the config file's (`files`: name -> its flattened keys; default: read from
    configs/), else the one most of those configs have; a config that is its file as
    written is just the file's name. Two different configs never get the same name: of
    two values of a key, at most one is the usual one."""
    flat = [_flatten(c) for c in configs]
    files = {} if files is None else files
    names = []
    for f in flat:
        name = f.get("name", "config")
        same = [g for g in flat if g.get("name") == name]
        if name not in files:
            files[name] = _config_file(str(name))
        label = [str(name)]
        for k in sorted(set().union(*same) - {"name"}):
            values = [json.dumps(g.get(k), sort_keys=True) for g in same]
            if len(set(values)) < 2:
                continue
            usual = json.dumps(files[name][k], sort_keys=True) if k in files[name] else \
                max(dict.fromkeys(values), key=values.count)
            if json.dumps(f.get(k), sort_keys=True) != usual:
                label.append(f"{k}={_short(f.get(k))}")
        names.append(", ".join(label))
    return names


def _config_file(name: str) -> dict:
    """configs/<name>.json with what it extends, flattened ({} when there is none)."""
    path = os.path.join(sim.TOP, "configs", name + ".json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    base = {}
    if isinstance(doc.get("extends"), str):
        base = _config_file(os.path.splitext(os.path.basename(doc["extends"]))[0])
    return {**base, **{k: v for k, v in _flatten(doc).items() if k != "extends"}}


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def _short(v):
    """A value as written in a config or a parameter list: 20, 12.5, 1.5, 16777216."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return str(int(v)) if v == int(v) else f"{v:.6g}"


def _values_text(values) -> str:
    """A parameter's values as a person reads them: "4, 64, 1024" or "4 ... 1.6 M (20
    values)"."""
    vs = list(values)
    if len(vs) <= 4:
        return ", ".join(_short(v) for v in vs)
    return f"{_short(vs[0])} ... {_short(vs[-1])} ({len(vs)} values)"


def _sorted_values(values) -> list:
    vs = list(dict.fromkeys(v for v in values if v is not None))
    try:
        return sorted(vs)
    except TypeError:
        return vs


def _args_text(args) -> str:
    return " ".join(args) if len(args) <= 8 else \
        f"{' '.join(args[:3])} ... {' '.join(args[-2:])} ({len(args)} arguments)"


def quick_difference(e) -> list | None:
    """What the experiment's --quick version makes smaller than its full run, found from
    the two plans (nothing is simulated): the parameters with fewer or smaller values,
    the PE counts, the programs' arguments (iterations, sizes) and the number of runs."""
    from .runner import plan
    try:
        quick, full = plan(e, True), plan(e, False)
    except Exception:                       # a plan that needs what is not built here
        return None
    out = []
    for k in dict.fromkeys(k for p in full for k in p.params):
        q = _sorted_values(p.params.get(k) for p in quick)
        f = _sorted_values(p.params.get(k) for p in full)
        if q != f and q:
            out.append(f"{k} {_values_text(q)} instead of {_values_text(f)}")
    q_pes = _sorted_values(p.run.pes for p in quick)
    f_pes = _sorted_values(p.run.pes for p in full)
    pes = f"{_values_text(q_pes)} instead of {_values_text(f_pes)}"
    if q_pes != f_pes and q_pes and not any(o.endswith(" " + pes) for o in out):
        out.append(f"PEs {pes}")
    full_of = {json.dumps(_jsonable(p.params), sort_keys=True): p for p in full}
    for p in quick:                         # the same point, other arguments
        f = full_of.get(json.dumps(_jsonable(p.params), sort_keys=True))
        if f is None or f.run.program != p.run.program or f.run.args == p.run.args:
            continue
        if len(f.run.args) == len(p.run.args):
            diff = [(a, b) for a, b in zip(p.run.args, f.run.args) if a != b]
            out.append(f"{p.run.program}'s arguments " +
                       ", ".join(f"{a} instead of {b}" for a, b in diff[:3]))
        else:                               # a list of sizes: the part that differs
            q_a, f_a = list(p.run.args), list(f.run.args)
            while q_a and f_a and q_a[0] == f_a[0]:
                q_a, f_a = q_a[1:], f_a[1:]
            while q_a and f_a and q_a[-1] == f_a[-1]:
                q_a, f_a = q_a[:-1], f_a[:-1]
            out.append(f"{p.run.program}'s arguments {_args_text(q_a) or 'none'} where the "
                       f"full run has {_args_text(f_a)}")
        break
    if len(quick) != len(full):
        out.append(f"{len(quick)} runs instead of {len(full)}")
    return out


QUICK_WHY = ("A quick figure differs from the full run's: with fewer iterations and "
             "smaller sizes the fixed costs (start-up, the first message, the global steps) "
             "weigh more, and a published value or statement about a size or machine the "
             "quick run leaves out is not measured.")


def quick_note(e) -> str:
    """What a quick run of `e` makes smaller (the experiment's own words, then what the
    plans show) and why its figures differ from the full run's: the page's and the
    terminal's note alike."""
    said = e.quick.strip()
    if said and not said.endswith("."):
        said += "."
    found = quick_difference(e)
    smaller = (f"Smaller than the full run: {'; '.join(found)}. " if found else
               "The quick run is the full run here (the same runs and arguments): its "
               "figures are the full run's. " if found == [] else "")
    why = "" if said or found == [] else QUICK_WHY     # the same runs: nothing differs
    return " ".join(filter(None, [said, smaller.strip(), why]))


def _quick_html(e, quick: bool, full: str = "") -> str:
    """A quick run's note (quick_note) and the command that gives the full figures."""
    if not quick:
        return ""
    note = quick_note(e)
    full = html.escape(full) or f"<code>scripts/reproduce {html.escape(e.name)}</code>"
    return (f"<div class=quick><b>Quick run.</b> {html.escape(note)} {full} gives the full "
            f"figures.</div>")


def find_sweeps(out_dir: str) -> list:
    """The sweeps written into out_dir by scripts/sweep (results/sweep-*.json)."""
    import glob
    return sorted(glob.glob(os.path.join(out_dir, "sweep-*.json")))


def _sweep_quick_html(doc) -> str:
    """A quick sweep's note: its experiment's quick version, as in that section."""
    if not doc.get("quick"):
        return ""
    from . import registry
    e = registry.all_experiments().get(doc.get("experiment"))
    full = "The same scripts/sweep without --quick"
    if e is None:
        return (f"<div class=quick><b>Quick run.</b> Each point is the experiment's small "
                f"version: fewer iterations and sizes than the full run. {QUICK_WHY} "
                f"{full} gives the full figures.</div>")
    return _quick_html(e, True, full)


def _sweep_section(path: str) -> tuple:
    """(id, title, html) of one sweep: its axes, its plot and its table."""
    import pandas as pd
    with open(path) as f:
        doc = json.load(f)
    base = os.path.splitext(path)[0]
    sid = os.path.basename(base)
    img = ""
    if os.path.exists(base + ".png"):
        with open(base + ".png", "rb") as f:
            img = (f'<img alt="{html.escape(sid)}" src="data:image/png;base64,'
                   f'{base64.b64encode(f.read()).decode()}">')
    axes = doc.get("axes") or {}
    axes_txt = "; ".join(f"{k} = {', '.join(map(str, v)) if isinstance(v, list) else v}"
                         for k, v in axes.items()) if isinstance(axes, dict) else str(axes)
    fails = doc.get("failures") or []
    sim_v = doc.get("simulator", {})
    title = f"Sweep of {doc.get('experiment', '?')}"
    table = _table_html(pd.DataFrame(doc.get("rows", [])), figures=[doc.get("figure")],
                        names=list(axes) if isinstance(axes, dict) else [])
    body = (f'<section id="{html.escape(sid)}"><h2>{html.escape(title)}</h2>'
            f'<div class=sub><code>{html.escape(os.path.basename(path))}</code> · axes: '
            f'{html.escape(axes_txt)} · simulator {html.escape(str(sim_v.get("commit", "?")))}'
            f' · {html.escape(str(doc.get("date", "")))}'
            f'{QUICK_BADGE if doc.get("quick") else ""}'
            f'<span class=badge>{len(doc.get("rows", []))} rows</span></div>'
            f'{_sweep_quick_html(doc)}{img}'
            + "".join(f'<div class=fail><b>failed:</b> <code>{html.escape(str(x.get("command", "")))}'
                      f'</code><pre>{html.escape(str(x.get("fault", "")))}</pre></div>' for x in fails)
            + f'<h3>Table</h3>{table}</section>')
    return sid, title, body


def html_report(outcomes, path: str, meta: dict, sweeps=None) -> str:
    """The report: the overview of every published value and statement with its verdict,
    then a section per experiment, then the sweeps (paths of sweep-*.json; default: those
    in the report's directory), then the machine configurations."""
    out_dir = os.path.dirname(os.path.abspath(path))
    papers_href = os.path.relpath(os.path.join(sim.TOP, PAPERS_DOC), out_dir)
    quick = bool(meta.get("quick"))
    runs_of = [(o, p, r, c) for o in outcomes for p, r, c in zip(o.points, o.results, o.cached)]
    cfg_keys = list(dict.fromkeys(json.dumps(r.config, sort_keys=True) for _, _, r, _ in runs_of))
    cfg_name = dict(zip(cfg_keys, config_names([json.loads(k) for k in cfg_keys])))
    sections, pub_all, chk_all = [], [], []
    for o in outcomes:
        e = o.experiment
        pub = [r | {"experiment": e.name} for r in published(o)]
        chk = [r | {"experiment": e.name} for r in checks(o)]
        pub_all += pub
        chk_all += chk
        png = getattr(o, "png", None)
        img = (f'<img alt="{html.escape(e.name)}" src="data:image/png;base64,'
               f'{base64.b64encode(png).decode()}">') if png else ""
        fails = "".join(f'<div class=fail><b>failed:</b> <code>{html.escape(f["command"])}</code>'
                        f'<pre>{html.escape(f["fault"])}</pre></div>' for f in o.failures)
        runs = []
        for p, r, c in zip(o.points, o.results, o.cached):
            name = cfg_name[json.dumps(r.config, sort_keys=True)]
            runs.append(f"<tr><td>{_command_html(p.run.describe(), e.name)}</td>"
                        f"<td>{html.escape(r.outcome)}</td><td class=text>{html.escape(name)}</td>"
                        f"<td>{r.simulated_time_ns / 1e3:.1f}</td>"
                        f"<td>{'cache' if c else f'{r.host_seconds:.2f} s'}</td></tr>")
        href = os.path.relpath(os.path.join(sim.TOP, e.doc), out_dir)
        doc = f' · <a href="{html.escape(href)}">{html.escape(e.doc)}</a>' if e.doc else ""
        beside = []
        if pub:
            beside.append(f"<h3>Published values</h3>{_published_html(pub, papers_href, quick=quick)}")
        if chk:
            beside.append(f"<h3>The paper's statements</h3>"
                          f"{_checks_html(chk, papers_href, quick=quick)}")
        if not beside:
            beside.append('<p class=sub>No published value or statement is checked here: '
                          'the project records none of the paper\'s numbers for this '
                          'experiment, so its figures are reported as measured '
                          f'(<a href="{html.escape(papers_href)}">docs/papers.md</a> says what '
                          'the paper measured and which of its numbers are recorded).</p>')
        sections.append(
            f'<section id="{html.escape(e.name)}"><h2>{html.escape(e.title)}</h2>'
            f'<div class=sub><code>{html.escape(e.name)}</code>{doc}'
            f'<span class=badge>{len(o.results)} runs</span>'
            f'{QUICK_BADGE if quick else ""}</div>'
            f'{_quick_html(e, quick)}{img}{"".join(beside)}{fails}'
            f'<h3>Figures</h3>{_figures_html(o)}'
            f'<details><summary>the runs ({len(o.results)})</summary>'
            f'{_scroll("<table><tr><th>command</th><th>outcome</th><th>machine configuration</th><th>simulated µs</th><th>host</th></tr>" + "".join(runs) + "</table>")}'
            f'</details></section>')
    sweep_parts = [_sweep_section(s) for s in (find_sweeps(out_dir) if sweeps is None else sweeps)]
    cfg_html = "".join(f"<details><summary>{html.escape(cfg_name[c])}</summary><pre>"
                       f"{html.escape(json.dumps(json.loads(c), indent=1))}</pre></details>"
                       for c in cfg_keys)
    nav = " ".join([f'<a href="#overview">overview</a>'] +
                   [f'<a href="#{html.escape(o.experiment.name)}">{html.escape(o.experiment.name)}'
                    f'{" ⚠" if o.failures else ""}</a>' for o in outcomes] +
                   [f'<a href="#{html.escape(sid)}">{html.escape(sid)}</a>'
                    for sid, _, _ in sweep_parts])
    overview = ['<section id=overview><h2>Beside the papers</h2>'
                f'<p class=sub>Every published value and statement of the papers that these '
                f'experiments cover, with the simulated figures; '
                f'<a href="{html.escape(papers_href)}">docs/papers.md</a> records the papers. '
                'A value holds when the simulated one is within the stated tolerance; a '
                'statement holds when its test does.'
                + (' <b>Quick run:</b> smaller sizes and fewer iterations (each section says '
                   'which), so each verdict below is about the quick figures: fixed costs '
                   'weigh more at small sizes, and values and statements about sizes or '
                   'machines it does not run are not measured. The full run '
                   '(<code>scripts/reproduce</code>) decides.'
                   if quick else '') + '</p>']
    in_quick = " of this quick run" if quick else ""
    if pub_all:
        overview.append(f"<h3>Published values{in_quick}: {_tally(pub_all)}</h3>"
                        f"{_published_html(pub_all, papers_href, True, quick)}")
    if chk_all:
        overview.append(f"<h3>Statements{in_quick}: {_tally(chk_all)}</h3>"
                        f"{_checks_html(chk_all, papers_href, True, quick)}")
    overview.append("</section>")
    v = meta.get("simulator", {})
    page = (f"<!doctype html><html><head><meta charset=utf-8><title>emx reproduction report"
            f"</title><style>{CSS}</style></head><body><header><h1>emx: the papers' experiments"
            f" on the simulated EM-X</h1><p>simulator {html.escape(str(v.get('commit')))} "
            f"(binary {html.escape(str(v.get('binary_sha256')))}) · "
            f"{html.escape(meta.get('date', ''))} · {len(outcomes)} experiments · "
            f"{html.escape(meta.get('executor', ''))}"
            f"{' · quick run (smaller sizes, fewer iterations)' if quick else ''}"
            f"</p></header><main><nav>{nav}</nav>{''.join(overview)}{''.join(sections)}"
            f"{''.join(body for _, _, body in sweep_parts)}"
            f"<section><h2>Machine configurations of the runs</h2>{cfg_html}</section>"
            f"</main></body></html>")
    with open(path, "w") as f:
        f.write(page)
    return path


def meta(quick: bool, executor_name: str) -> dict:
    return {"simulator": version(), "quick": quick, "executor": executor_name,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
