"""What a person sees: tables on the terminal, results/<name>.{json,csv,png}, and one
self-contained results/report.html (figures embedded, opens offline)."""
from __future__ import annotations

import base64
import datetime
import html
import io
import json
import math
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
    c = outcome.comparison
    if c is not None and not c.empty:
        lines.append("-- beside the published figures")
        for _, r in c.iterrows():
            sim_v = "no value" if r["simulated"] is None or _nan(r["simulated"]) \
                else fmt(float(r["simulated"]))
            diff = "" if r["diff_%"] is None or _nan(r["diff_%"]) else f"  ({r['diff_%']:+.1f} %)"
            lines.append(f"   {r['figure']} [{r['where']}]: simulated {sim_v}, published "
                         f"{fmt(float(r['published']))} {r['unit']}{diff}  {r['source']}")
    for f in outcome.failures:
        lines.append(f"!! failed: {f['command']}\n   " + f["fault"].replace("\n", "\n   "))
    n, c_n = len(outcome.results), sum(outcome.cached)
    lines.append(f"   ({n} runs, {c_n} from the cache, {outcome.host_seconds:.1f} s of "
                 f"simulator time)")
    return "\n".join(lines)


def _nan(x):
    return isinstance(x, float) and math.isnan(x)


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
        fig.suptitle(textwrap.fill(f"{e.name}: {e.title}", 100), fontsize=8)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        return buf.getvalue()
    finally:
        plt.close(fig)


def default_plot(t, fig, keys, y=None):
    """The first figure against the first numeric parameter, a line per other key."""
    keys = [k for k in keys if k in t.columns]
    figures = [c for c in t.columns if c not in keys and
               str(t[c].dtype) in ("float64", "int64")]
    if not figures:
        return
    y = y or figures[0]
    numeric = [k for k in keys if str(t[k].dtype) in ("float64", "int64") and t[k].nunique() > 1]
    ax = fig.subplots()
    if not numeric:
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
            ax.set_xscale("log")
        if others:
            ax.legend(fontsize=7)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)


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
           "published": json.loads(outcome.comparison.to_json(orient="records"))
           if outcome.comparison is not None else [],
           "failures": outcome.failures,
           "runs": [{"params": _jsonable(p.params), "command": p.run.describe(),
                     "status": r.status, "outcome": r.outcome, "cached": c,
                     "simulated_time_ns": r.simulated_time_ns,
                     "host_seconds": r.host_seconds}
                    for p, r, c in zip(outcome.points, outcome.results, outcome.cached)]}
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    paths["json"] = base + ".json"
    png = figure_png(outcome)
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
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:16px 20px;margin-bottom:18px}
section h2{margin:0 0 4px;font-size:18px} .sub{color:#5b6475;font-size:13px;margin-bottom:10px}
img{max-width:100%;border:1px solid #eef0f3;border-radius:4px}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0}
th,td{border-bottom:1px solid #e6e9ee;padding:3px 9px;text-align:right}
th{background:#f0f2f6;text-align:center} td:first-child,th:first-child{text-align:left}
.good{color:#17803d;font-weight:600} .off{color:#b35c00;font-weight:600} .bad{color:#c0262d;font-weight:600}
.fail{background:#fdecec;border:1px solid #f3b6b9;border-radius:6px;padding:8px 12px;margin:8px 0}
pre{white-space:pre-wrap;font-size:11.5px;margin:4px 0}
details{margin:6px 0;font-size:12.5px} summary{cursor:pointer;color:#1d4fa3}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:11px;margin-left:6px;
 background:#e7ecf6;color:#1d2a44}
"""


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
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def _comparison_html(c) -> str:
    if c is None or c.empty:
        return ("<p class=sub>The brief gives no published value for this experiment: "
                "the figures are reported as measured.</p>")
    rows = []
    for _, r in c.iterrows():
        d = r["diff_%"]
        if d is None or _nan(d):
            cls, dtxt = "bad", "no value"
        else:
            cls = "good" if abs(d) <= 5 else "off" if abs(d) <= 20 else "bad"
            dtxt = f"{d:+.1f} %"
        simv = "-" if r["simulated"] is None or _nan(r["simulated"]) else fmt(float(r["simulated"]))
        rows.append(f"<tr><td>{html.escape(r['figure'])}</td><td>{html.escape(r['where'])}</td>"
                    f"<td>{simv}</td><td>{fmt(float(r['published']))} {html.escape(r['unit'])}</td>"
                    f"<td class={cls}>{dtxt}</td><td>{html.escape(r['source'])}</td></tr>")
    return ("<table><tr><th>figure</th><th>where</th><th>simulated</th><th>published</th>"
            "<th>difference</th><th>source</th></tr>" + "".join(rows) + "</table>")


def html_report(outcomes, path: str, meta: dict) -> str:
    configs, sections = {}, []
    for o in outcomes:
        e = o.experiment
        png = getattr(o, "png", None)
        img = (f'<img alt="{html.escape(e.name)}" src="data:image/png;base64,'
               f'{base64.b64encode(png).decode()}">') if png else ""
        fails = "".join(f'<div class=fail><b>failed:</b> <code>{html.escape(f["command"])}</code>'
                        f'<pre>{html.escape(f["fault"])}</pre></div>' for f in o.failures)
        runs = []
        for p, r, c in zip(o.points, o.results, o.cached):
            cid = json.dumps(r.config, sort_keys=True)
            num = configs.setdefault(cid, len(configs) + 1)
            runs.append(f"<tr><td><code>{html.escape(p.run.describe())}</code></td>"
                        f"<td>{html.escape(r.outcome)}</td><td>config {num}</td>"
                        f"<td>{r.simulated_time_ns / 1e3:.1f}</td>"
                        f"<td>{'cache' if c else f'{r.host_seconds:.2f} s'}</td></tr>")
        href = os.path.relpath(os.path.join(sim.TOP, e.doc), os.path.dirname(os.path.abspath(path)))
        doc = f' · <a href="{html.escape(href)}">{html.escape(e.doc)}</a>' if e.doc else ""
        sections.append(
            f'<section id="{html.escape(e.name)}"><h2>{html.escape(e.title)}</h2>'
            f'<div class=sub><code>{html.escape(e.name)}</code>{doc}'
            f'<span class=badge>{len(o.results)} runs</span>'
            f'{"<span class=badge>quick</span>" if meta.get("quick") else ""}</div>'
            f'{img}<h3>Beside the paper</h3>{_comparison_html(o.comparison)}{fails}'
            f'<h3>Figures</h3>{_table_html(view(o))}'
            f'<details><summary>the runs ({len(o.results)})</summary><table><tr><th>command</th>'
            f'<th>outcome</th><th>config</th><th>simulated µs</th><th>host</th></tr>'
            f'{"".join(runs)}</table></details></section>')
    cfg_html = "".join(f"<details><summary>config {n}</summary><pre>"
                       f"{html.escape(json.dumps(json.loads(c), indent=1))}</pre></details>"
                       for c, n in configs.items())
    nav = " ".join(f'<a href="#{html.escape(o.experiment.name)}">{html.escape(o.experiment.name)}'
                  f'{" ⚠" if o.failures else ""}</a>' for o in outcomes)
    overview = []
    for o in outcomes:
        c = o.comparison
        if c is None or c.empty:
            continue
        for _, r in c.iterrows():
            overview.append(r.to_dict() | {"experiment": o.experiment.name})
    if overview:
        import pandas as pd
        ov = pd.DataFrame(overview)
        rows = _comparison_html(ov).replace("<tr><th>figure</th>", "<tr><th>experiment</th><th>figure</th>", 1)
        # one row per published value, each led by its experiment's link
        links = iter(f'<tr><td><a href="#{html.escape(n)}">{html.escape(n)}</a></td>'
                     for n in ov["experiment"])
        parts = rows.split("<tr><td>")
        rows = parts[0] + "".join(next(links) + "<td>" + p for p in parts[1:])
        overview_html = (f"<section id=overview><h2>Beside the papers: every published value"
                         f"</h2>{rows}</section>")
    else:
        overview_html = ""
    v = meta.get("simulator", {})
    page = (f"<!doctype html><html><head><meta charset=utf-8><title>emx reproduction report"
            f"</title><style>{CSS}</style></head><body><header><h1>emx: the papers' experiments"
            f" on the simulated EM-X</h1><p>simulator {html.escape(str(v.get('commit')))} "
            f"(binary {html.escape(str(v.get('binary_sha256')))}) · "
            f"{html.escape(meta.get('date', ''))} · {len(outcomes)} experiments · "
            f"{html.escape(meta.get('executor', ''))}{' · quick' if meta.get('quick') else ''}"
            f"</p></header><main><nav>{nav}</nav>{overview_html}{''.join(sections)}"
            f"<section><h2>Machine configurations of the runs</h2>{cfg_html}</section>"
            f"</main></body></html>")
    with open(path, "w") as f:
        f.write(page)
    return path


def meta(quick: bool, executor_name: str) -> dict:
    return {"simulator": version(), "quick": quick, "executor": executor_name,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
