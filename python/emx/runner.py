"""Runs experiments: plans their points, takes what the cache has, executes the rest,
and turns results into tables beside the published values."""
from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import cache as cache_mod
from .experiment import Experiment, Point


@dataclass
class Outcome:
    """One experiment's results (for one grid point of a sweep, or the whole sweep)."""
    experiment: Experiment
    points: list                       # [Point]
    results: list                      # [Result], one per point
    cached: list                       # [bool]
    table: Any = None                  # pandas DataFrame: params + figures, one row each
    failures: list = field(default_factory=list)    # [{params, command, fault}]
    comparison: Any = None             # DataFrame: figure, where, simulated, published, diff_%
    derived: list = field(default_factory=list)     # the columns the experiment's derive added

    @property
    def host_seconds(self) -> float:
        return sum(r.host_seconds for r, c in zip(self.results, self.cached) if not c)


def plan(exp: Experiment, quick: bool = False, params: Mapping[str, Any] | None = None,
         set: Mapping[str, Any] | None = None, pes: int | None = None,
         columns: Mapping[str, Any] | None = None) -> list:
    """The experiment's points, with config overrides applied to every run and the
    swept values added as columns."""
    opt = exp.options(quick, params)
    points = exp.points(opt)
    if set or pes is not None or columns:
        points = [Point({**p.params, **(columns or {})},
                        p.run.with_overrides(set=set, pes=pes)) for p in points]
    return points


def _cost(result) -> float:
    """A run's host CPU seconds (its wall seconds from an entry older than the CPU clock)."""
    return result.host_cpu_seconds or result.host_seconds


def longest_first(runs: list, costs: dict) -> list:
    """The runs in the order to start them so that N workers finish together: those whose
    cost (host CPU seconds when last simulated, by cache.run_id) is known, longest first,
    after those never run before (their cost unknown, they start early, in declared order).
    Started in declared order, a reproduction could end on one worker with its longest
    sort (radix.scalability's 64-PE sorts are declared last of their experiment)."""
    def rank(run):
        c = costs.get(cache_mod.run_id(run))
        return (0, 0.0) if c is None else (1, -c)
    return sorted(runs, key=rank)      # stable: ties keep the declared order


class Runner:
    def __init__(self, executor, cache: cache_mod.Cache | None, progress: bool = True):
        self.executor, self.cache, self.progress = executor, cache, progress
        self.counts = {"runs": 0, "distinct": 0, "cached": 0, "simulated": 0, "bad": 0}

    def execute(self, labelled_points, on_result=None) -> tuple:
        """labelled_points: [(label, Point)]. Returns ([Result], [cached]) in that order;
        a run that fails is a Result with its fault, never an exception. on_result(run,
        result, cached), if given, is called once per distinct run as soon as its result
        is known (from the cache first), while the other runs go on."""
        runs = [p.run for _, p in labelled_points]
        unique = list(dict.fromkeys(runs))
        keys = {}
        if self.cache is not None and self.cache.read:
            # The configs asked of one `emx serve`: a fork each instead of a process
            # start (29 distinct configs in a reproduction: 0.4 s before the first run).
            with cache_mod.config_server() as server:
                keys = {run: self._key(run, server=server) for run in unique}
        # A cache that is not read (--force) needs a run's key only to store its result:
        # made from the result's own config as it comes, not before the first run starts
        # (an `emx config --show` per distinct config: half a second before the first).
        done, cached = {}, set()
        bad_before = list(self.cache.bad) if self.cache is not None else []
        for run in unique:
            k = keys.get(run)
            hit = self.cache.get(k) if (self.cache is not None and k) else None
            if hit is not None:
                done[run] = hit
                cached.add(run)
        todo = longest_first([r for r in unique if r not in done],
                             self.cache.costs() if self.cache is not None else {})
        bad = self.cache.bad[len(bad_before):] if self.cache is not None else []
        for path, why in bad[:3]:
            print(f"cache: bad entry {path} ({why}): running it again", file=sys.stderr)
        if len(bad) > 3:
            print(f"cache: {len(bad) - 3} more bad entries run again", file=sys.stderr)
        self.counts = {"runs": len(runs), "distinct": len(unique), "cached": len(cached),
                       "simulated": len(todo), "bad": len(bad)}
        label_of = {}
        for label, p in labelled_points:
            label_of.setdefault(p.run, label)
        bar = self._bar(len(todo))
        costs = {cache_mod.run_id(r): _cost(done[r]) for r in cached}
        try:
            if on_result is not None:
                for run in cached:
                    on_result(run, done[run], True)
            for run, result in self.executor.map((r, r) for r in todo):
                done[run] = result
                if self.cache is not None and result.status >= 0:   # (else not stored)
                    k = keys[run] if run in keys else self._key(run, result.config or None)
                    if k:
                        self.cache.put(k, result)
                if result.status >= 0:
                    costs[cache_mod.run_id(run)] = _cost(result)
                if bar is not None:
                    bar.set_postfix_str(label_of[run], refresh=False)
                    bar.update(1)
                if on_result is not None:
                    on_result(run, result, False)
        finally:
            if bar is not None:
                bar.close()
            if self.cache is not None:
                self.cache.note_costs(costs)
        return [done[r] for r in runs], [r in cached for r in runs]

    def summary(self, failed: int) -> str:
        """The last execute's runs as the progress bar counted them: 'N runs (D distinct:
        S shared ... once), X simulated, C from the cache, F failed'."""
        c = self.counts
        text = f"{c['runs']} runs"
        if c["runs"] != c["distinct"]:
            text += (f" ({c['distinct']} distinct: {c['runs'] - c['distinct']} are shared "
                     "between experiments or points and run once)")
        text += f", {c['simulated']} simulated, {c['cached']} from the cache"
        if c["bad"]:
            text += f" ({c['bad']} bad cache entries run again)"
        return text + f", {failed} failed"

    def _key(self, run, config=None, server=None):
        try:
            return cache_mod.key(run, config, server)
        except ValueError:
            return None                # a bad config: the run itself reports it

    def _bar(self, total):
        if not self.progress or total == 0 or not sys.stderr.isatty():
            return None
        from tqdm import tqdm
        return tqdm(total=total, unit="run", file=sys.stderr, dynamic_ncols=True,
                    bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} simulations "
                               "[{elapsed}<{remaining}] {postfix}")


def tabulate(exp: Experiment, points, results, cached) -> Outcome:
    """Figures of each successful run as rows; failures with their fault reports."""
    import pandas as pd
    rows, failures = [], []
    for p, r in zip(points, results):
        if not r.ok:
            failures.append({"params": dict(p.params), "command": p.run.describe(),
                             "fault": r.fault or f"status {r.status}"})
            continue
        try:
            fig = exp.figures(p.params, r)
        except Exception:
            failures.append({"params": dict(p.params), "command": p.run.describe(),
                             "fault": "computing the figures failed:\n" +
                             traceback.format_exc(limit=3) + "\nprogram output (tail):\n" +
                             r.stdout[-2000:]})
            continue
        for f in ([fig] if isinstance(fig, Mapping) else list(fig)):
            rows.append({**p.params, **f})
    table = pd.DataFrame(rows)
    measured = list(table.columns)
    if exp.derive is not None and not table.empty:
        table = exp.derive(table)
    out = Outcome(exp, list(points), list(results), list(cached), table, failures,
                  derived=[c for c in table.columns if c not in measured])
    out.comparison = compare(exp, table)
    return out


def compare(exp: Experiment, table):
    """Each published value beside the simulator's (mean over matching rows)."""
    import pandas as pd
    rows = []
    for pub in exp.published:
        sel = table
        if not table.empty:
            for k, v in pub.where.items():
                sel = sel[sel[k] == v] if k in sel.columns else sel.iloc[0:0]
        simulated = None
        if not table.empty and pub.figure in sel.columns and len(sel):
            vals = pd.to_numeric(sel[pub.figure], errors="coerce").dropna()
            simulated = float(vals.mean()) if len(vals) else None
        diff = None if simulated is None or pub.value == 0 else \
            100.0 * (simulated - pub.value) / pub.value
        where = ", ".join(f"{k}={v}" for k, v in pub.where.items())
        rows.append({"figure": pub.figure, "where": where, "simulated": simulated,
                     "published": pub.value, "diff_%": diff, "unit": pub.unit,
                     "source": pub.source})
    return pd.DataFrame(rows, columns=["figure", "where", "simulated", "published",
                                       "diff_%", "unit", "source"])


def run_experiments(experiments, runner: Runner, quick=False, params=None, set=None,
                    pes=None, meanwhile=None) -> list:
    """Runs several experiments in one batch (the executor sees every run at once);
    `set` and `pes` override every run's config. `meanwhile()`, if given, is called once
    when the first simulation ends (not for a result from the cache, which comes before
    the first simulation starts): work to do while the others run."""
    planned = [(e, plan(e, quick, (params or {}).get(e.name), set, pes)) for e in experiments]
    labelled = [(e.name, p) for e, pts in planned for p in pts]
    early = _EarlyTables(planned, meanwhile)
    results, cached = runner.execute(labelled, early.result)
    outcomes, i = [], 0
    for k, (e, pts) in enumerate(planned):
        n = len(pts)
        outcomes.append(early.outcomes[k] if k in early.outcomes else
                        tabulate(e, pts, results[i:i + n], cached[i:i + n]))
        i += n
    return outcomes


class _EarlyTables:
    """Tabulates each experiment as soon as its last run is simulated, while the others'
    runs go on: after the runs only one core would be busy with it (the delay model's
    predictions alone take about half a second). One whose runs all come from the cache waits
    for the end, as before: the cache is read before the first simulation starts, which
    must not wait. One that fails here is tabulated again after the runs, where its error
    surfaces as it always did."""

    def __init__(self, planned, meanwhile=None):
        self.planned, self.outcomes, self.done = planned, {}, {}
        self.meanwhile = meanwhile              # called at the first simulated result
        distinct = [{p.run for p in pts} for _, pts in planned]
        self.left = [len(runs) for runs in distinct]   # runs not done yet, by experiment
        self.waiting = {}                       # run -> the experiments that need it
        for k, runs in enumerate(distinct):
            for run in runs:
                self.waiting.setdefault(run, []).append(k)

    def result(self, run, result, cached):
        self.done[run] = (result, cached)
        if not cached and self.meanwhile is not None:
            work, self.meanwhile = self.meanwhile, None
            try:
                work()
            except Exception:
                pass                            # (its caller does it again, and fails there)
        for k in self.waiting.pop(run, ()):
            self.left[k] -= 1
            if self.left[k] == 0 and not cached:
                e, pts = self.planned[k]
                try:
                    self.outcomes[k] = tabulate(e, pts, [self.done[p.run][0] for p in pts],
                                                [self.done[p.run][1] for p in pts])
                except Exception:
                    pass
