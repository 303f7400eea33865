"""scripts/sweep: an experiment over a grid (or a list) of config keys, PE counts and
the experiment's parameters; one tidy table (a row per figure row of each run, a column
per swept key and per figure), a default plot, the same executors and cache.

    scripts/sweep mpi.latency --set clock_mhz=12.5,16,20 \\
        --set network.topology=circular_omega,torus2d --pes 16,80
    scripts/sweep --spec sweeps/latency.yaml
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time

from . import cache, inputs, registry, report
from . import commands
from .reproduce import common_arguments, make_runner
from .runner import plan, tabulate


def split_values(text: str, where: str = "value") -> list:
    """'12.5,16,20' -> [12.5, 16, 20]; each value JSON if it parses, else a word."""
    return [inputs.value(v.strip(), where) for v in text.split(",")]


def parse_axes(items, what) -> dict:
    return inputs.assignments(items, what, split=split_values)


class Spec:
    """What to sweep: the experiment, config axes, PE counts, parameter axes, and whether
    the axes form a grid (every combination) or a list (the i-th values together)."""

    def __init__(self, experiment, sets=None, pes=None, params=None, mode="grid",
                 figure=None, where=None, quick=False, source="the sweep"):
        if not isinstance(experiment, str) or not experiment:
            raise ValueError(f"{source}: 'experiment' must be an experiment's name "
                             f"(scripts/reproduce --list), not {inputs.scalar_text(experiment)}")
        self.experiment = experiment
        self.sets = _axes(sets, "set", source)
        self.params = _axes(params, "params", source)
        self.pes = _values(pes, "pes", source) if pes not in (None, []) else []
        for n in self.pes:
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1024:
                raise ValueError(f"{source}: pes {n!r}: a PE count is an integer 1..1024")
        if mode not in ("grid", "list"):
            raise ValueError(f"{source}: mode {inputs.scalar_text(mode)}: must be grid or list")
        if figure is not None and not isinstance(figure, str):
            raise ValueError(f"{source}: 'figure' must be a figure's name")
        if not isinstance(where or {}, dict):
            raise ValueError(f"{source}: 'where' must be a mapping KEY: VALUE, not "
                             f"{inputs.scalar_text(where)}")
        self.where = {str(k): inputs.scalar(v, f"{source}: where.{k}")
                      for k, v in (where or {}).items()}
        if not isinstance(quick, bool):
            raise ValueError(f"{source}: 'quick' must be true or false")
        self.mode, self.figure, self.quick = mode, figure, quick

    @classmethod
    def from_file(cls, path: str) -> "Spec":
        doc = inputs.read_spec(path)
        if not isinstance(doc, dict):
            raise ValueError(f"{path}: expected a mapping at the top")
        allowed = {"experiment", "set", "pes", "params", "mode", "figure", "where", "quick"}
        unknown = sorted(set(map(str, doc)) - allowed)
        if unknown:
            raise ValueError(f"{path}: unknown key {', '.join(unknown)} "
                             f"(allowed: {', '.join(sorted(allowed))})")
        if "experiment" not in doc:
            raise ValueError(f"{path}: key 'experiment' is missing")
        return cls(doc["experiment"], doc.get("set"), doc.get("pes"), doc.get("params"),
                   doc.get("mode", "grid"), doc.get("figure"), doc.get("where"),
                   doc.get("quick", False), source=path)

    def axes(self) -> list:
        """[(column, kind, key, values)] in declaration order (config keys, pes, params)."""
        ax = [(k, "set", k, v) for k, v in self.sets.items()]
        if self.pes:
            ax.append(("pes", "pes", "pes", self.pes))
        ax += [(k, "param", k, v) for k, v in self.params.items()]
        return ax

    def points(self) -> list:
        """Each grid point as {column: value}."""
        ax = self.axes()
        if not ax:
            return [{}]
        if self.mode == "list":
            n = {len(a[3]) for a in ax}
            if len(n) != 1:
                raise ValueError("a list sweep needs the same number of values on every axis "
                                 f"(got {', '.join(f'{a[0]}: {len(a[3])}' for a in ax)})")
            combos = zip(*[a[3] for a in ax])
        else:
            combos = itertools.product(*[a[3] for a in ax])
        return [dict(zip([a[0] for a in ax], c)) for c in combos]


def _values(v, where: str, source: str) -> list:
    """An axis's values: a list of numbers, words or true/false (one value alone is a
    list of one)."""
    items = v if isinstance(v, list) else [v]
    if not items:
        raise ValueError(f"{source}: {where} has no values")
    return [inputs.scalar(x, f"{source}: {where}") for x in items]


def _axes(v, what: str, source: str) -> dict:
    """set/params: a mapping KEY: [VALUES]."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ValueError(f"{source}: '{what}' must be a mapping KEY: [VALUES], not "
                         f"{inputs.scalar_text(v)}")
    return {str(k): _values(vals, f"{what}.{k}", source) for k, vals in v.items()}


def plan_sweep(spec: Spec) -> tuple:
    """(experiment, [grid point dicts], [Point]); a bad key, value or parameter fails
    here, before any run."""
    exp = registry.select([spec.experiment])
    if len(exp) != 1:
        raise ValueError(f"sweep one experiment at a time; '{spec.experiment}' names "
                         f"{', '.join(e.name for e in exp)}")
    exp = exp[0]
    kinds = {a[0]: a[1] for a in spec.axes()}
    grid = spec.points()
    points = []
    with cache.config_server() as server:
        for g in grid:
            sets = {k: v for k, v in g.items() if kinds[k] == "set"}
            params = {k: v for k, v in g.items() if kinds[k] == "param"}
            pts = plan(exp, spec.quick, params, sets, g.get("pes"), columns=g)
            for p in pts:                  # remembered, so the cache key asks nothing twice
                cache.effective_config(p.run, server)
            points += pts
    named = {k for p in points for k in p.params}
    for k in spec.where:
        if k not in named:
            raise ValueError(f"--where {k}: not a parameter of this sweep "
                             f"(parameters: {', '.join(sorted(named))})")
    return exp, grid, points


def where_rows(table, where: dict):
    """The rows whose columns equal `where` (--where: table, CSV, pivot and plot alike)."""
    for k, v in where.items():
        table = table[table[k] == v] if k in table.columns else table.iloc[0:0]
    return table


def roles(out, spec, table) -> tuple:
    """(x, labels, figures): the first axis, the columns that name a row (the other axes,
    the experiment's parameters, and within a run's rows the keys that are not measured
    values, e.g. a throughput run's message sizes), and the figures (the rest that is
    numeric)."""
    axes = [a[0] for a in spec.axes()]
    own = [k for k in (out.points[0].params if out.points else {}) if k not in axes]
    named = [k for k in axes + own if k in table.columns]
    inner = []
    if not table.empty and named:
        spread = table.groupby(named, dropna=False).nunique()
        inner = [c for c in table.columns if c not in named and c in spread and
                 str(table[c].dtype) != "float64" and (spread[c] > 1).any()]
    figures = [c for c in table.columns if c not in named and c not in inner and
               str(table[c].dtype) in ("float64", "int64")]
    labels = [k for k in axes[1:] + own + inner if k in table.columns]
    return (axes[0] if axes else None), labels, figures


def pivot(table, x, labels, figure):
    """The figure as a table: a row per combination of the labels that vary, a column per
    value of the first axis (the mean where several rows share a cell)."""
    import pandas as pd
    if table.empty or x is None or figure not in table.columns:
        return pd.DataFrame()
    index = [k for k in labels if table[k].nunique(dropna=False) > 1]
    if not index:
        row = table.groupby(x, sort=False)[figure].mean().to_frame(figure).T
        row.columns.name = x
        return row
    return pd.pivot_table(table, index=index, columns=x, values=figure, aggfunc="mean",
                          sort=False, dropna=False)


def sweep_plot(table, x, labels, y, fig):
    """The figure against the first swept key, a line per combination of the other
    labels that vary."""
    others = [k for k in labels if table[k].nunique() > 1]
    ax = fig.subplots()
    groups = list(table.groupby(others)) if others else [((), table)]
    for name, g in groups[:12]:
        g = g.groupby(x, sort=True)[y].mean()
        name = name if isinstance(name, tuple) else (name,)
        ax.plot([str(i) for i in g.index] if g.index.dtype == object else g.index, g.values,
                marker="o", markersize=4,
                label=", ".join(f"{report.header(k)}: {v}" for k, v in zip(others, name))
                or report.header(y))
    if len(groups) > 12:
        ax.set_title(f"first 12 of {len(groups)} lines: narrow with --where", fontsize=8)
    ax.set_xlabel(report.header(x))
    ax.set_ylabel(report.header(y))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    report.plain_axes(ax)           # 12 M, not an offset "1e7"


def write(out, spec, base: str, meta: dict) -> tuple:
    """Writes BASE.csv/.parquet (the tidy rows --where keeps), .png (the plot), .json (axes,
    rows, the pivot, failures: what report.py shows) and returns (pivot, [paths])."""
    t = where_rows(out.table, spec.where)
    x, labels, figures = roles(out, spec, t)
    y = spec.figure or (figures[0] if figures else None)
    if spec.figure and not t.empty and spec.figure not in figures:
        raise ValueError(f"--figure {spec.figure}: no such figure "
                         f"(figures: {', '.join(figures) or 'none'})")
    table = pivot(t, x, labels, y)
    written = [base + ".csv"]
    t.to_csv(base + ".csv", index=False)
    try:
        t.to_parquet(base + ".parquet", index=False)
        written.append(base + ".parquet")
    except (ImportError, ValueError) as e:
        print(f"sweep: no Parquet file ({e})", file=sys.stderr)
    if not table.empty:
        table.to_csv(base + ".pivot.csv")
        written.append(base + ".pivot.csv")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(8, 5))
        sweep_plot(t, x, labels, y, fig)
        fig.suptitle(f"{out.experiment.name}: {report.header(y)}", fontsize=9)
        fig.tight_layout()
        if report.legends_off_data(fig):
            fig.tight_layout()
        fig.savefig(base + ".png", dpi=110)
        plt.close(fig)
        written.append(base + ".png")
    with open(base + ".json", "w") as f:
        json.dump({**meta, "experiment": out.experiment.name,
                   "axes": {c: v for c, _, _, v in spec.axes()},
                   "axis_kinds": {c: k for c, k, _, _ in spec.axes()},
                   "mode": spec.mode, "where": spec.where, "figure": y,
                   "pivot": json.loads(table.to_json(orient="split")) if not table.empty
                   else None,
                   "failures": out.failures,
                   "rows": json.loads(t.to_json(orient="records"))}, f, indent=1)
    written.append(base + ".json")
    return table, y, written


def readable_names(table):
    """The pivot with its axes named as the report names columns ("clock mhz", "network
    topology", not "clock_mhz", "network.topology")."""
    table = table.copy()
    table.index.names = [report.header(n) if n is not None else None for n in table.index.names]
    table.columns.names = [report.header(n) if n is not None else None
                           for n in table.columns.names]
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/sweep", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", nargs="?", help="the experiment (scripts/reproduce --list)")
    ap.add_argument("--spec", help="a JSON or YAML file giving the sweep (docs/sweeps.md)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2",
                    help="a config key and its values (repeatable: a grid)")
    ap.add_argument("--pes", help="PE counts, e.g. 16,80")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2",
                    help="an experiment parameter and its values")
    ap.add_argument("--list-mode", action="store_true",
                    help="take the i-th value of every axis together instead of a grid")
    ap.add_argument("--figure", help="the figure of the table and the plot (default: the first)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="keep only rows with this value, in the table, the files and the "
                         "plot (repeatable)")
    ap.add_argument("--name", help="output name (default: sweep-EXPERIMENT)")
    common_arguments(ap)
    a = ap.parse_args(argv)
    if a.spec:
        spec = Spec.from_file(a.spec)
        spec.quick = spec.quick or a.quick
    else:
        if not a.experiment:
            raise ValueError("name an experiment or give --spec")
        spec = Spec(a.experiment, parse_axes(a.set, "--set"),
                    split_values(a.pes, "--pes") if a.pes else [],
                    parse_axes(a.param, "--param"), "list" if a.list_mode else "grid",
                    a.figure, inputs.assignments(a.where, "--where"), a.quick)
    if a.experiment and a.spec and a.experiment != spec.experiment:
        raise ValueError(f"--spec sweeps {spec.experiment}, not {a.experiment}")
    name = inputs.output_name(a.name or f"sweep-{spec.experiment}")
    exp, grid, points = plan_sweep(spec)
    inputs.directory(a.out, "--out")
    runner, ex = make_runner(a)
    t0 = time.time()
    try:
        results, cached = runner.execute([(exp.name, p) for p in points])
    finally:
        ex.close()
    out = tabulate(exp, points, results, cached)
    table, y, written = write(out, spec, os.path.join(a.out, name),
                              report.meta(spec.quick, ex.name))
    if table.empty:
        print("(no rows" + (" match --where)" if spec.where else ")"))
    else:
        where = ", ".join(f"{k}={v}" for k, v in spec.where.items())
        print(f"{out.experiment.name}: {report.header(y)}" +
              (f" where {where}" if where else "") + f" (every row: {written[0]})")
        print(readable_names(table).to_string(float_format=report.fmt))
    for f in out.failures:
        print(f"!! failed: {f['command']}\n   " + f["fault"].replace("\n", "\n   "))
    print(f"\n{len(grid)} grid points, {runner.summary(len(out.failures))} in "
          f"{time.time() - t0:.1f} s with {ex.name}; wrote {', '.join(written)}")
    return 1 if out.failures else 0


def cli() -> None:
    """The console command emx-sweep (pyproject.toml)."""
    commands.run(main, "sweep")


if __name__ == "__main__":
    cli()
