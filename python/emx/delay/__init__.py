"""Irregular many-to-many communication by delay insertion: patterns, schedules (Ring,
the proposed greedy), the LogGP prediction and its fit. docs/experiments/delay-insertion.md."""
from .patterns import (Pattern, alltoall, barabasi_albert, from_edge_list, gather, named,
                       read_edge_list, scatter, triangle)
from .schedules import SCHEDULERS, Schedule, from_text, proposed, ring
from .model import LogGP, predict
from .fit import fit

__all__ = ["Pattern", "alltoall", "barabasi_albert", "from_edge_list", "gather", "named",
           "read_edge_list", "scatter", "triangle", "SCHEDULERS", "Schedule", "from_text",
           "proposed", "ring", "LogGP", "predict", "fit"]
