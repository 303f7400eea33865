"""How an experiment is declared: its runs, its figures, the published values, its plot.

An experiment module (python/emx/experiments/<paper>.py) exports EXPERIMENTS, a list of
Experiment. Nothing in it starts the simulator or parses output: the runner does that,
caches the runs, and builds the table from `figures`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence


def _frozen(mapping: Mapping[str, Any] | Sequence | None) -> tuple:
    """A mapping as a sorted tuple of (key, value), so a Run hashes and compares."""
    if not mapping:
        return ()
    items = mapping.items() if isinstance(mapping, Mapping) else mapping
    return tuple(sorted((str(k), v) for k, v in items))


@dataclass(frozen=True)
class Run:
    """One simulation: `emx run [--config C] [--set K=V]... [--pes N] [options] PROGRAM ARGS`."""
    program: str
    args: tuple = ()
    config: Optional[str] = None
    set: tuple = ()                   # ((key, value), ...); give a dict, it is frozen
    pes: Optional[int] = None
    options: tuple = ()               # extra `emx run` options, e.g. ("--trace-text",)
    timeout: Optional[float] = None   # host seconds

    def __post_init__(self):
        object.__setattr__(self, "args", tuple(str(a) for a in self.args))
        object.__setattr__(self, "set", _frozen(self.set))
        object.__setattr__(self, "options", tuple(self.options))

    @property
    def overrides(self) -> dict:
        return dict(self.set)

    def with_overrides(self, set: Mapping[str, Any] | None = None,
                       pes: Optional[int] = None, config: Optional[str] = None) -> "Run":
        """This run with more --set keys (they win), another PE count or config."""
        merged = dict(self.set)
        merged.update(set or {})
        return replace(self, set=_frozen(merged), pes=self.pes if pes is None else pes,
                       config=self.config if config is None else config)

    def describe(self) -> str:
        parts = []
        if self.config:
            parts.append(f"--config {self.config}")
        parts += [f"--set {k}={json.dumps(v) if not isinstance(v, str) else v}"
                  for k, v in self.set]
        if self.pes is not None:
            parts.append(f"--pes {self.pes}")
        parts += list(self.options)
        return " ".join(["emx run"] + parts + [self.program] + list(self.args))


@dataclass(frozen=True)
class Point:
    """A run and the parameters that name its row(s) in the experiment's table."""
    params: Mapping[str, Any]
    run: Run


@dataclass(frozen=True)
class Published:
    """A number the paper publishes (docs/papers.md records them all), matched to the rows
    whose parameters equal `where`; it holds when the simulated value is within
    `tolerance` per cent of it. `source` names the paper and its table or figure."""
    figure: str
    value: float
    where: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    unit: str = ""
    tolerance: float = 10.0


@dataclass(frozen=True)
class Check:
    """A statement of a paper in words (not a single number), checked on the experiment's
    table: `figures` picks the numbers the statement is about ({name: value}), `holds`
    says whether they bear it out, and `relation` says that test in words. A table that
    lacks the rows (a quick run without the size) leaves the check unmeasured."""
    statement: str                             # the paper's claim, in one sentence
    source: str                                # the paper and its figure: "radix paper, Fig. 4"
    figures: Callable[[Any], Mapping[str, float]]   # DataFrame -> {name: value}
    holds: Callable[[Mapping[str, float]], bool]
    relation: str                              # the test, e.g. "of ideal >= 0.8 from 1 M keys"

    def evaluate(self, table) -> dict:
        """{statement, source, relation, figures: {name: value}, holds: True/False/None,
        why: the reason when unmeasured}."""
        out = {"statement": self.statement, "source": self.source, "relation": self.relation,
               "figures": {}, "holds": None, "why": ""}
        if table is None or table.empty:
            out["why"] = "no rows"
            return out
        try:
            figs = {k: float(v) for k, v in self.figures(table).items()}
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as err:
            out["why"] = f"not measured: this run has no row at {str(err).strip(chr(39))}"
            return out
        out["figures"] = figs
        out["holds"] = bool(self.holds(figs))
        return out


def about(value: float, target: float, tolerance: float = 0.1) -> bool:
    """A paper's "about X": within `tolerance` (a fraction) of X."""
    return abs(value - target) <= tolerance * abs(target)


def value(table, column: str, **where) -> float:
    """The mean of `column` over the rows whose parameters equal `where`, e.g.
    value(t, "of_ideal", machine="EM-4", radix=256, keys=2500000). Raises KeyError when no
    row matches, which leaves a check unmeasured."""
    sel = table
    for k, v in where.items():
        sel = sel[sel[k] == v]
    if sel.empty or column not in sel.columns:
        raise KeyError(f"{column} at " + ", ".join(f"{k}={v}" for k, v in where.items()))
    return float(sel[column].mean())


@dataclass
class Options:
    """What an experiment's `runs` sees: quick (the CI-sized version) and its params."""
    quick: bool = False
    params: dict = field(default_factory=dict)

    def __getitem__(self, name):
        return self.params[name]


@dataclass
class Experiment:
    name: str                                  # "paper.what", e.g. "mpi.latency"
    paper: str                                 # the module's paper, e.g. "mpi"
    title: str
    runs: Callable[[Options], Iterable[Point]]
    figures: Callable[[Mapping[str, Any], Any], Any]   # (params, Result) -> dict | [dict]
    plot: Optional[Callable] = None            # (DataFrame, matplotlib Figure) -> None
    derive: Optional[Callable] = None          # DataFrame -> DataFrame (fits, ideal lines)
    view: Optional[Callable] = None            # DataFrame -> the table to print (a pivot)
    published: Sequence[Published] = ()
    params: Mapping[str, Any] = field(default_factory=dict)   # declared, with defaults
    ranges: Mapping[str, tuple] = field(default_factory=dict)  # {param: (lo, hi)}: see _check
    doc: str = ""                              # the page that explains it
    checks: Sequence[Check] = ()               # the paper's statements about these figures
    quick: str = ""                            # what --quick makes smaller, and what that changes

    def options(self, quick: bool = False, params: Mapping[str, Any] | None = None) -> Options:
        given = dict(params or {})
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            allowed = ", ".join(sorted(self.params)) or "none"
            raise ValueError(f"experiment {self.name} has no parameter "
                             f"{', '.join(unknown)} (its parameters: {allowed})")
        merged = dict(self.params)
        for k, v in given.items():
            where = f"parameter {k} of {self.name}"
            merged[k] = _check(_like(self.params[k], v, where), self.params[k],
                               self.ranges.get(k), where)
        return Options(quick=quick, params=merged)

    def points(self, opt: Options) -> list:
        pts = list(self.runs(opt))
        for p in pts:
            if not isinstance(p, Point):
                raise TypeError(f"experiment {self.name}: runs() must yield Point, not {p!r}")
        return pts


def _like(default: Any, value: Any, where: str) -> Any:
    """A parameter takes the type of its default (given as text or as a JSON value)."""
    if isinstance(default, (list, tuple)):
        items = value.split(",") if isinstance(value, str) else \
            list(value) if isinstance(value, (list, tuple)) else [value]
        return type(default)(_like(default[0], v, where) if default else v for v in items)
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return str(value).lower() in ("1", "true", "yes", "on")
        raise ValueError(f"{where}: {value!r} is not true or false")
    if isinstance(default, int):
        try:
            if isinstance(value, float) and value != int(value):
                raise ValueError
            return int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {value!r} is not an integer")
    if isinstance(default, float):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {value!r} is not a number")
    if isinstance(default, str) and not isinstance(value, str):
        return str(value)
    return value


# A numeric parameter without a declared range keeps its default's sign: a count, size or
# time whose default is positive must be positive (iterations=-5 measures nothing), one
# whose default is 0 must not be negative. A PE count is 1..1024, as for `emx run --pes`.
NAMED_RANGES = {"pes": (1, 1024)}


def _range(name: str, default: Any, declared) -> tuple:
    """(lo, hi, lo_included); None: no bound."""
    if declared:
        return declared[0], declared[1], True
    if name in NAMED_RANGES:
        return NAMED_RANGES[name] + (True,)
    if default > 0:
        return 0, None, False
    return (0, None, True) if default == 0 else (None, None, True)


def _check(value: Any, default: Any, declared, where: str) -> Any:
    """value, when it lies in the parameter's range (declared, named, or by its default)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            _check(v, default[0] if default else v, declared, where)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            isinstance(default, bool) or not isinstance(default, (int, float)):
        return value
    lo, hi, closed = _range(where.split()[1], default, declared)
    low = lo is not None and (value < lo if closed else value <= lo)
    if value != value or low or (hi is not None and value > hi):
        allowed = (f"{lo}..{hi}" if lo is not None and hi is not None else
                   f"{'>=' if closed else '>'} {lo}" if lo is not None else f"<= {hi}")
        raise ValueError(f"{where}: {value!r} is out of range (allowed: {allowed})")
    return value
