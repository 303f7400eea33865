"""scripts/reproduce: run the papers' experiments, print them beside the published
figures, write results/<name>.{json,csv,png} and results/report.html."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from . import commands, executors, inputs, registry, report, sim
from .cache import Cache
from .runner import Runner, run_experiments


def common_arguments(ap: argparse.ArgumentParser) -> None:
    """The options reproduce and sweep share: executor, cache, output."""
    ap.add_argument("--quick", action="store_true",
                    help="the small version of each experiment (CI-sized)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="simulations at once (default: the number of cores)")
    ap.add_argument("--dask", metavar="ADDRESS",
                    help="run on a Dask cluster: a scheduler address (tcp://host:8786) or "
                         "'local' for a LocalCluster in this process")
    ap.add_argument("--dask-wait", type=float, default=60.0, metavar="SECONDS",
                    help="with --dask: how long to wait for a worker (to join, or after "
                         "the last one left) before failing (default 60)")
    ap.add_argument("--out", default=os.path.join(sim.TOP, "results"),
                    help="output directory (default: results/)")
    ap.add_argument("--cache", default=None,
                    help="cache directory (default: OUT/.cache)")
    ap.add_argument("--force", action="store_true",
                    help="run everything again, ignoring cached results")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


def make_runner(a):
    if not os.path.exists(sim.binary()):
        raise ValueError(f"no simulator at {sim.binary()} (run scripts/setup)")
    cache = Cache(a.cache or os.path.join(a.out, ".cache"), read=not a.force)
    if a.jobs < 1 or a.dask_wait <= 0:
        raise ValueError("--jobs and --dask-wait must be positive")
    ex = executors.make(a.jobs, a.dask, a.dask_wait)
    return Runner(ex, cache, progress=not a.no_progress), ex


def parse_params(items) -> dict:
    """--param EXPERIMENT.KEY=VALUE ... -> {experiment: {key: value}}"""
    out = {}
    for name, value in inputs.assignments(items, "--param").items():
        exp, dot, key = name.rpartition(".")
        if not dot:
            raise ValueError(f"--param {name}: expected EXPERIMENT.KEY=VALUE "
                             "(e.g. mpi.latency.iterations=50)")
        out.setdefault(exp, {})[key] = value
    return out


def parse_sets(items) -> dict:
    """--set KEY=VALUE ... -> {key: value}; the value JSON if it parses, else a word."""
    return inputs.assignments(items, "--set")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="scripts/reproduce", description=__doc__,
        epilog="Experiments are named paper.what (scripts/reproduce --list); a paper name "
               "(mpi) or a glob ('radix.*') selects several. docs/reproduce.md explains.")
    ap.add_argument("experiments", nargs="*", help="experiments to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the experiments and stop")
    ap.add_argument("--param", action="append", default=[], metavar="EXP.KEY=VALUE",
                    help="set a declared parameter of an experiment")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config key in every run (one value; scripts/sweep "
                         "for several)")
    ap.add_argument("--pes", type=int, help="PE count of every run")
    common_arguments(ap)
    a = ap.parse_args(argv)
    chosen = registry.select(a.experiments)
    params = parse_params(a.param)
    for name in params:
        if name not in {e.name for e in chosen}:
            raise ValueError(f"--param names experiment '{name}', which is not being run")
    for e in chosen:                           # unknown parameters fail before any run
        e.options(a.quick, params.get(e.name))
    overrides = parse_sets(a.set)
    if overrides or a.pes is not None:         # so do unknown keys and bad values
        sim.effective_config(None, overrides, a.pes)
    if a.list:
        for e in chosen:
            extra = f"  [params: {', '.join(f'{k}={v}' for k, v in e.params.items())}]" \
                if e.params else ""
            print(f"{e.name:28} {e.title}{extra}")
        return 0
    inputs.directory(a.out, "--out")
    runner, ex = make_runner(a)
    t0 = time.time()
    try:
        # pyplot is imported while the runs go on, not after them on one core.
        outcomes = run_experiments(chosen, runner, a.quick, params, overrides, a.pes,
                                   meanwhile=report.load_plotting)
    finally:
        ex.close()
    meta = report.meta(a.quick, ex.name)
    texts = []

    def tables():                              # while the figures are drawn
        for o in outcomes:
            report.write_data(o, a.out, meta)
            texts.append(report.text(o))
    report.render_figures(outcomes, a.jobs, tables)
    failed = 0
    for o, text in zip(outcomes, texts):
        report.write_png(o, a.out)
        print(text + "\n")
        failed += len(o.failures)
    path = report.html_report(outcomes, os.path.join(a.out, "report.html"), meta)
    print(f"{len(outcomes)} experiments, {runner.summary(failed)} in "
          f"{time.time() - t0:.1f} s with {ex.name}; wrote {a.out}/<experiment>.json/.csv/.png "
          f"and {path}")
    return 1 if failed else 0


def cli() -> None:
    """The console command emx-reproduce (pyproject.toml)."""
    commands.run(main, "reproduce")


if __name__ == "__main__":
    cli()
