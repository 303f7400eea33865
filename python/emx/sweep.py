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

from . import cache, registry, report, sim
from .reproduce import common_arguments, make_runner
from .runner import plan, tabulate


def split_values(text: str) -> list:
    """'12.5,16,20' -> [12.5, 16, 20]; each value JSON if it parses, else a word."""
    out = []
    for v in text.split(","):
        v = v.strip()
        try:
            out.append(json.loads(v))
        except ValueError:
            out.append(v)
    return out


def parse_axes(items, what) -> dict:
    axes = {}
    for item in items:
        key, eq, values = item.partition("=")
        if not eq or not key or not values:
            raise ValueError(f"{what} {item}: expected KEY=VALUE[,VALUE...]")
        axes[key.strip()] = split_values(values)
    return axes


class Spec:
    """What to sweep: the experiment, config axes, PE counts, parameter axes, and whether
    the axes form a grid (every combination) or a list (the i-th values together)."""

    def __init__(self, experiment, sets=None, pes=None, params=None, mode="grid",
                 figure=None, where=None, quick=False):
        self.experiment, self.sets, self.pes = experiment, sets or {}, pes or []
        self.params, self.mode, self.figure = params or {}, mode, figure
        self.where, self.quick = where or {}, quick
        if mode not in ("grid", "list"):
            raise ValueError(f"sweep mode '{mode}': must be grid or list")

    @classmethod
    def from_file(cls, path: str) -> "Spec":
        with open(path) as f:
            text = f.read()
        try:
            if path.endswith((".yaml", ".yml")):
                import yaml
                doc = yaml.safe_load(text)
            else:
                doc = json.loads(text)
        except Exception as e:
            raise ValueError(f"{path}: not valid {'YAML' if path.endswith(('.yaml', '.yml')) else 'JSON'}: {e}")
        if not isinstance(doc, dict):
            raise ValueError(f"{path}: expected a mapping at the top")
        allowed = {"experiment", "set", "pes", "params", "mode", "figure", "where", "quick"}
        unknown = sorted(set(doc) - allowed)
        if unknown:
            raise ValueError(f"{path}: unknown key {', '.join(unknown)} "
                             f"(allowed: {', '.join(sorted(allowed))})")
        if "experiment" not in doc:
            raise ValueError(f"{path}: key 'experiment' is missing")

        def listed(key, v):
            if isinstance(v, list):
                return v
            raise ValueError(f"{path}: key '{key}' must be a list of values")
        return cls(doc["experiment"],
                   {k: listed(f"set.{k}", v) for k, v in (doc.get("set") or {}).items()},
                   listed("pes", doc.get("pes", [])) if "pes" in doc else [],
                   {k: listed(f"params.{k}", v) for k, v in (doc.get("params") or {}).items()},
                   doc.get("mode", "grid"), doc.get("figure"), doc.get("where"),
                   bool(doc.get("quick", False)))

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


def run_sweep(spec: Spec, runner) -> tuple:
    """Returns (Outcome over all grid points, [grid point dicts])."""
    exp = registry.select([spec.experiment])
    if len(exp) != 1:
        raise ValueError(f"sweep one experiment at a time; '{spec.experiment}' names "
                         f"{', '.join(e.name for e in exp)}")
    exp = exp[0]
    kinds = {a[0]: a[1] for a in spec.axes()}
    grid = spec.points()
    points = []
    for g in grid:
        sets = {k: v for k, v in g.items() if kinds[k] == "set"}
        params = {k: v for k, v in g.items() if kinds[k] == "param"}
        pes = g.get("pes")
        pts = plan(exp, spec.quick, params, sets, pes, columns=g)
        for p in pts:                      # a bad key or value fails before any run;
            cache.effective_config(p.run)  # remembered, so the cache key asks nothing twice
        points += pts
    results, cached = runner.execute([(exp.name, p) for p in points])
    out = tabulate(exp, points, results, cached)
    return out, grid


def sweep_plot(out, spec, fig):
    """The figure against the first swept key, a line per combination of the others and
    of the experiment's own parameters that vary (filtered by spec.where)."""
    t = out.table
    for k, v in spec.where.items():
        if k in t.columns:
            t = t[t[k] == v]
    axes = [a[0] for a in spec.axes()]
    own = [k for k in (out.points[0].params if out.points else {}) if k not in axes]
    figures = [c for c in t.columns if c not in axes and c not in own and
               str(t[c].dtype) in ("float64", "int64")]
    y = spec.figure or (figures[0] if figures else None)
    if y is None or t.empty or not axes:
        return None
    if y not in t.columns:
        raise ValueError(f"--figure {y}: no such figure (figures: {', '.join(figures)})")
    x = axes[0]
    others = [k for k in axes[1:] + own if k in t.columns and t[k].nunique() > 1]
    ax = fig.subplots()
    groups = list(t.groupby(others)) if others else [((), t)]
    for name, g in groups[:12]:
        g = g.groupby(x, sort=True)[y].mean()
        name = name if isinstance(name, tuple) else (name,)
        ax.plot([str(i) for i in g.index] if g.index.dtype == object else g.index, g.values,
                marker="o", markersize=4,
                label=", ".join(f"{k}={v}" for k, v in zip(others, name)) or y)
    if len(groups) > 12:
        ax.set_title(f"first 12 of {len(groups)} lines: narrow with --where", fontsize=8)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return y


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
    ap.add_argument("--figure", help="the figure to plot (default: the first)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="plot only rows with this value (repeatable)")
    ap.add_argument("--name", help="output name (default: sweep-EXPERIMENT)")
    common_arguments(ap)
    a = ap.parse_args(argv)
    try:
        if a.spec:
            spec = Spec.from_file(a.spec)
            spec.quick = spec.quick or a.quick
        else:
            if not a.experiment:
                raise ValueError("name an experiment or give --spec")
            spec = Spec(a.experiment, parse_axes(a.set, "--set"),
                        split_values(a.pes) if a.pes else [], parse_axes(a.param, "--param"),
                        "list" if a.list_mode else "grid", a.figure,
                        {k: v[0] for k, v in parse_axes(a.where, "--where").items()}, a.quick)
        if a.experiment and a.spec and a.experiment != spec.experiment:
            raise ValueError(f"--spec sweeps {spec.experiment}, not {a.experiment}")
        if not os.path.exists(sim.binary()):
            raise ValueError(f"no simulator at {sim.binary()} (run scripts/setup)")
        runner, ex = make_runner(a)
        t0 = time.time()
        try:
            out, grid = run_sweep(spec, runner)
        finally:
            ex.close()
    except ValueError as err:
        print(f"sweep: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nsweep: interrupted; finished runs are cached, run again to resume",
              file=sys.stderr)
        return 130
    name = a.name or f"sweep-{out.experiment.name}"
    os.makedirs(a.out, exist_ok=True)
    base = os.path.join(a.out, name)
    t = out.table
    t.to_csv(base + ".csv", index=False)
    written = [base + ".csv"]
    try:
        t.to_parquet(base + ".parquet", index=False)
        written.append(base + ".parquet")
    except (ImportError, ValueError) as e:
        print(f"sweep: no Parquet file ({e})", file=sys.stderr)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(8, 5))
    try:
        y = sweep_plot(out, spec, fig)
    except ValueError as err:
        print(f"sweep: {err}", file=sys.stderr)
        return 2
    if y:
        fig.suptitle(f"{out.experiment.name}: {y}", fontsize=9)
        fig.tight_layout()
        fig.savefig(base + ".png", dpi=110)
        written.append(base + ".png")
    plt.close(fig)
    meta = report.meta(spec.quick, ex.name)
    with open(base + ".json", "w") as f:
        json.dump({**meta, "experiment": out.experiment.name,
                   "axes": [{"column": c, "kind": k, "values": v} for c, k, _, v in spec.axes()],
                   "mode": spec.mode, "failures": out.failures,
                   "rows": json.loads(t.to_json(orient="records"))}, f, indent=1)
    written.append(base + ".json")
    print(t.to_string(index=False, float_format=report.fmt) if not t.empty else "(no rows)")
    for f in out.failures:
        print(f"!! failed: {f['command']}\n   " + f["fault"].replace("\n", "\n   "))
    n, c = len(out.results), sum(out.cached)
    print(f"\n{len(grid)} grid points, {n} runs ({c} cached, {len(out.failures)} failed) in "
          f"{time.time() - t0:.1f} s with {ex.name}; wrote {', '.join(written)}")
    return 1 if out.failures else 0


def cli() -> None:
    """The console command emx-sweep (pyproject.toml)."""
    sys.exit(main())


if __name__ == "__main__":
    cli()
