"""What a person sees: tables on the terminal, results/<name>.{json,csv,png}, and one
self-contained results/report.html (figures embedded, opens offline)."""
from __future__ import annotations

import base64
import datetime
import html
import io
import json
import math
import multiprocessing
import os
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
    e, t = outcome.experiment, outcome.table
    if e.view is not None and t is not None and not t.empty:
        return e.view(t)
    return t


def fmt(x):
    """A table cell as a person reads it."""
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        a = abs(x)
        if x == int(x) and a < 1e15:
            return str(int(x))            # counts and sizes that a pivot made floats
        return f"{x:.0f}" if a >= 1e5 else f"{x:.2f}" if a >= 1 else f"{x:.3g}"
    return str(x)


def text(outcome) -> str:
    """The terminal form: the table, then the published values beside ours."""
    e = outcome.experiment
    lines = [f"== {e.name}: {e.title}"]
    t = view(outcome)
    if t is not None and not t.empty:
        lines.append(t.to_string(index=False, float_format=fmt))
    c = published(outcome)
    if c:
        lines.append("-- beside the published figures (docs/papers.md)")
        for r in c:
            sim_v = "no value" if r["simulated"] is None else fmt(r["simulated"])
            diff = "" if r["diff_%"] is None else f"  ({r['diff_%']:+.1f} %)"
            lines.append(f"   {r['figure']} [{r['where']}]: simulated {sim_v}, published "
                         f"{fmt(r['published'])} {r['unit']}{diff}  {VERDICT[r['holds']]}  "
                         f"{r['source']}")
    for r in checks(outcome):
        lines.append(f"-- {VERDICT[r['holds']]}: {r['statement']} ({r['source']})\n     "
                     f"{r['relation']}: {_figures_text(r)}")
    for f in outcome.failures:
        lines.append(f"!! failed: {f['command']}\n   " + f["fault"].replace("\n", "\n   "))
    n, c_n = len(outcome.results), sum(outcome.cached)
    lines.append(f"   ({n} runs, {c_n} from the cache, {outcome.host_seconds:.1f} s of "
                 f"simulator time)")
    return "\n".join(lines)


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
    fig = plt.figure(figsize=(8, 5))
    try:
        if e.plot is not None:
            e.plot(t, fig)
        else:
            default_plot(t, fig, [k for k in outcome.points[0].params] if outcome.points else [])
        if not fig.axes:
            return None
        for ax in fig.axes:
            plain_axes(ax)
        fig.suptitle(textwrap.fill(f"{e.name}: {e.title}", 100), fontsize=8)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        return buf.getvalue()
    finally:
        plt.close(fig)


def plain_number(x: float, _pos=None) -> str:
    """A tick label as a person writes it: 4, 0.5, 64 K, 2.5 M (no powers of ten)."""
    if x == 0:
        return "0"
    a = abs(x)
    for div, unit in ((1e9, " G"), (1e6, " M"), (1e3, " K")):
        if a >= div and (a >= 1e5 or x % div == 0 or a >= 10 * div):
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def plain_axes(ax, decades: float = 1.5) -> None:
    """A log axis only where the data span more than `decades` powers of ten, and then
    with plain tick labels (no "6x10^0" over a 3 % range)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    lim = ax.dataLim
    for axis, lo, hi in (("x", lim.x0, lim.x1), ("y", lim.y0, lim.y1)):
        which = ax.xaxis if axis == "x" else ax.yaxis
        if which.get_scale() != "log":
            continue
        if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)) or \
                math.log10(hi / lo) < decades:
            (ax.set_xscale if axis == "x" else ax.set_yscale)("linear")
            which.set_major_formatter(FuncFormatter(plain_number))
            continue
        which.set_major_formatter(FuncFormatter(plain_number))
        which.set_minor_formatter(NullFormatter())


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
        labels = [", ".join(f"{k}={r[k]}" for k in keys) for _, r in t.iterrows()]
        ax.bar(range(len(t)), t[y])
        ax.set_xticks(range(len(t)), labels, rotation=45, ha="right", fontsize=7)
    else:
        x = numeric[0]
        others = [k for k in keys if k != x and t[k].nunique() > 1]
        groups = t.groupby(others) if others else [((), t)]
        for name, g in groups:
            g = g.sort_values(x)
            name = name if isinstance(name, tuple) else (name,)
            label = ", ".join(f"{k}={v}" for k, v in zip(others, name)) or y
            ax.plot(g[x], g[y], marker="o", markersize=3, label=label)
        ax.set_xlabel(x)
        if t[x].min() > 0 and t[x].max() / max(t[x].min(), 1e-12) > 50:
            ax.set_xscale("log")         # plain_axes labels it
        if others:
            ax.legend(fontsize=7)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)


def render_figures(outcomes, jobs: int) -> None:
    """Sets each outcome's `png` (figure_png) in up to `jobs` forked processes. Matplotlib's
    layout and text take most of the layer's own CPU time (about 9 of 13 s of a full
    reproduction), and once the runs are done the cores are idle. Each process takes the
    next experiment not yet taken, those of the largest tables first, so that the
    processes end together (delay.patterns alone is a third of the drawing; a fixed share
    each left one process drawing twice as long as the other). What a process did not
    deliver (it failed) is drawn here, where the error surfaces as write() would show it."""
    jobs = min(jobs, len(outcomes))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for o in outcomes:
            o.png = figure_png(o)
        return
    ctx = multiprocessing.get_context("fork")     # the experiments' plots are closures
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
    for proc, receive in started:
        try:
            drawn.update(receive.recv())
        except EOFError:
            pass
        proc.join()
    for i, o in enumerate(outcomes):
        o.png = drawn[i] if i in drawn else figure_png(o)


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
           "failures": outcome.failures,
           "runs": [{"params": _jsonable(p.params), "command": p.run.describe(),
                     "status": r.status, "outcome": r.outcome, "cached": c,
                     "simulated_time_ns": r.simulated_time_ns,
                     "host_seconds": r.host_seconds}
                    for p, r, c in zip(outcome.points, outcome.results, outcome.cached)]}
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    paths["json"] = base + ".json"
    png = outcome.png if hasattr(outcome, "png") else figure_png(outcome)
    if png:
        with open(base + ".png", "wb") as f:
            f.write(png)
        paths["png"] = base + ".png"
    outcome.png = png
    return paths


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
details{margin:6px 0;font-size:12.5px} summary{cursor:pointer;color:#1d4fa3}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:11px;margin-left:6px;
 background:#e7ecf6;color:#1d2a44} .badge.q{background:#fbe3a4}
"""

PAPERS_DOC = "docs/papers.md"
QUICK_BADGE = "<span class='badge q'>quick</span>"
CLASS = {True: "good", False: "bad", None: "none"}


def _scroll(table_html: str) -> str:
    """A table that may be wider than the page scrolls inside its box."""
    return f"<div class=scroll>{table_html}</div>"


def _table_html(t, limit=60) -> str:
    if t is None or t.empty:
        return "<p class=sub>no rows</p>"
    more = ""
    if len(t) > limit:
        more = f"<p class=sub>first {limit} of {len(t)} rows (all in the CSV)</p>"
        t = t.head(limit)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in t.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(fmt(v))}</td>" for v in row) + "</tr>"
                   for row in t.itertuples(index=False))
    return _scroll(f"<table><tr>{head}</tr>{body}</table>") + more


def _source_html(source: str, papers_href: str) -> str:
    return f'<a href="{html.escape(papers_href)}">{html.escape(source)}</a>' if papers_href \
        else html.escape(source)


def _published_html(rows, papers_href="", experiment=False) -> str:
    """The published values beside the simulated ones, each with holds / does not hold."""
    out = []
    for r in rows:
        d = r["diff_%"]
        dtxt = "-" if d is None else f"{d:+.1f} %"
        simv = "-" if r["simulated"] is None else fmt(r["simulated"])
        lead = (f'<td class=nowrap><a href="#{html.escape(r["experiment"])}">'
                f'{html.escape(r["experiment"])}</a></td>') if experiment else ""
        out.append(f"<tr>{lead}<td>{html.escape(r['figure'])}</td>"
                   f"<td class=text>{html.escape(r['where'])}</td>"
                   f"<td>{simv}</td><td class=nowrap>{fmt(r['published'])} "
                   f"{html.escape(r['unit'])}</td><td>{dtxt}</td>"
                   f"<td class={CLASS[r['holds']]}>{VERDICT[r['holds']]}"
                   f"<br><small>within {fmt(r['tolerance'])} %</small></td>"
                   f"<td class=text>{_source_html(r['source'], papers_href)}</td></tr>")
    head = ("<tr>" + ("<th>experiment</th>" if experiment else "") +
            "<th>figure</th><th>where</th><th>simulated</th><th>published</th>"
            "<th>difference</th><th>verdict</th><th>source</th></tr>")
    return _scroll(f"<table>{head}{''.join(out)}</table>")


def _checks_html(rows, papers_href="", experiment=False) -> str:
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
                   f"<td class={CLASS[r['holds']]}>{VERDICT[r['holds']]}</td></tr>")
    head = ("<tr>" + ("<th>experiment</th>" if experiment else "") +
            "<th>the paper says</th><th>simulated figures</th><th>test</th><th>verdict</th></tr>")
    return _scroll(f"<table>{head}{''.join(out)}</table>")


def _tally(rows) -> str:
    n = {v: sum(1 for r in rows if r["holds"] is v) for v in (True, False, None)}
    parts = [f"<span class=good>{n[True]} hold</span>",
             f"<span class=bad>{n[False]} do not hold</span>"]
    if n[None]:
        parts.append(f"<span class=none>{n[None]} not measured in this run</span>")
    return ", ".join(parts)


def config_names(configs) -> list:
    """A name for each effective config (dicts), by what it differs in: its `name` (the
    config file) and, among configs of the same name, the keys whose values differ
    ("emx-thread-write, clock_mhz=20, pes=64"), never a number."""
    flat = [_flatten(c) for c in configs]
    names = []
    for f in flat:
        same = [g for g in flat if g.get("name") == f.get("name")]
        keys = sorted(k for k in set().union(*same) if k != "name" and
                      len({json.dumps(g.get(k), sort_keys=True) for g in same}) > 1)
        label = [str(f.get("name", "config"))] + [f"{k}={_short(f.get(k))}" for k in keys]
        names.append(", ".join(label))
    return names


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def _short(v):
    return fmt(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def _quick_html(e, quick: bool) -> str:
    if not quick:
        return ""
    what = e.quick or ("the experiment's small version: fewer iterations and sizes than the "
                       "full run, so the figures show its shape, not the paper's values")
    return (f"<div class=quick><b>Quick run.</b> {html.escape(what)} "
            f"<code>scripts/reproduce {html.escape(e.name)}</code> gives the full figures."
            f"</div>")


def find_sweeps(out_dir: str) -> list:
    """The sweeps written into out_dir by scripts/sweep (results/sweep-*.json)."""
    import glob
    return sorted(glob.glob(os.path.join(out_dir, "sweep-*.json")))


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
    body = (f'<section id="{html.escape(sid)}"><h2>{html.escape(title)}</h2>'
            f'<div class=sub><code>{html.escape(os.path.basename(path))}</code> · axes: '
            f'{html.escape(axes_txt)} · simulator {html.escape(str(sim_v.get("commit", "?")))}'
            f' · {html.escape(str(doc.get("date", "")))}'
            f'{QUICK_BADGE if doc.get("quick") else ""}'
            f'<span class=badge>{len(doc.get("rows", []))} rows</span></div>{img}'
            + "".join(f'<div class=fail><b>failed:</b> <code>{html.escape(str(x.get("command", "")))}'
                      f'</code><pre>{html.escape(str(x.get("fault", "")))}</pre></div>' for x in fails)
            + f'<h3>Table</h3>{_table_html(pd.DataFrame(doc.get("rows", [])))}</section>')
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
            runs.append(f"<tr><td><code>{html.escape(p.run.describe())}</code></td>"
                        f"<td>{html.escape(r.outcome)}</td><td class=text>{html.escape(name)}</td>"
                        f"<td>{r.simulated_time_ns / 1e3:.1f}</td>"
                        f"<td>{'cache' if c else f'{r.host_seconds:.2f} s'}</td></tr>")
        href = os.path.relpath(os.path.join(sim.TOP, e.doc), out_dir)
        doc = f' · <a href="{html.escape(href)}">{html.escape(e.doc)}</a>' if e.doc else ""
        beside = []
        if pub:
            beside.append(f"<h3>Published values</h3>{_published_html(pub, papers_href)}")
        if chk:
            beside.append(f"<h3>The paper's statements</h3>{_checks_html(chk, papers_href)}")
        if not beside:
            beside.append('<p class=sub>The paper publishes no value or statement that this '
                          'experiment checks: the figures are reported as measured '
                          f'(<a href="{html.escape(papers_href)}">docs/papers.md</a> says what '
                          'the paper measured).</p>')
        sections.append(
            f'<section id="{html.escape(e.name)}"><h2>{html.escape(e.title)}</h2>'
            f'<div class=sub><code>{html.escape(e.name)}</code>{doc}'
            f'<span class=badge>{len(o.results)} runs</span>'
            f'{QUICK_BADGE if quick else ""}</div>'
            f'{_quick_html(e, quick)}{img}{"".join(beside)}{fails}'
            f'<h3>Figures</h3>{_table_html(view(o))}'
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
                   'which); statements about sizes it does not run are not measured.'
                   if quick else '') + '</p>']
    if pub_all:
        overview.append(f"<h3>Published values: {_tally(pub_all)}</h3>"
                        f"{_published_html(pub_all, papers_href, experiment=True)}")
    if chk_all:
        overview.append(f"<h3>Statements: {_tally(chk_all)}</h3>"
                        f"{_checks_html(chk_all, papers_href, experiment=True)}")
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
