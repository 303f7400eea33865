"""The experiments: every python/emx/experiments/<paper>.py module's EXPERIMENTS list."""
from __future__ import annotations

import fnmatch
import importlib
import pkgutil

from . import experiments as _package
from .experiment import Experiment


# The papers in the order a reader meets them (README); other modules follow by name.
PAPER_ORDER = ["mpi", "radix", "acp_ompl", "delay", "micro"]


def _rank(name: str):
    return (PAPER_ORDER.index(name) if name in PAPER_ORDER else len(PAPER_ORDER), name)


def all_experiments() -> dict:
    """{name: Experiment}, papers in PAPER_ORDER, then declaration order."""
    found = {}
    for info in sorted(pkgutil.iter_modules(_package.__path__), key=lambda m: _rank(m.name)):
        module = importlib.import_module(f"{_package.__name__}.{info.name}")
        for e in getattr(module, "EXPERIMENTS", []):
            if not isinstance(e, Experiment):
                raise TypeError(f"{module.__name__}.EXPERIMENTS holds {e!r}, not an Experiment")
            if e.name in found:
                raise ValueError(f"experiment {e.name} is declared twice")
            found[e.name] = e
    return found


def select(names) -> list:
    """The experiments named (a name, a paper, or a glob such as 'mpi.*'); all if none.
    An unknown name raises ValueError listing what exists."""
    every = all_experiments()
    if not names:
        return list(every.values())
    chosen = []
    for name in names:
        hits = [e for n, e in every.items()
                if n == name or e.paper == name or fnmatch.fnmatchcase(n, name)]
        if not hits:
            raise ValueError(f"no experiment '{name}'; there are: {', '.join(every)}")
        chosen += [e for e in hits if e not in chosen]
    return chosen
