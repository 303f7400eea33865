"""`emx` on the PATH of the environment the package is installed in (pyproject.toml's
console script): the simulator of the checkout the package was installed from.

It runs scripts/emx of that checkout (set-up check, a build when sources changed, then
build/sim/emx), or the binary $EMX names. A package installed without its checkout
(`pip install .` of a copy) has no simulator to run, and says so.
"""
from __future__ import annotations

import os
import sys

from .sim import TOP


def main() -> int:
    target = os.environ.get("EMX") or os.path.join(TOP, "scripts", "emx")
    if not os.path.isfile(target):
        print(f"emx: no simulator for the emx package at {os.path.dirname(__file__)}: "
              "install it from a checkout (pip install -e CHECKOUT, as scripts/setup does) "
              "or set EMX to the binary (build/sim/emx)", file=sys.stderr)
        return 127
    try:
        os.execv(target, [target] + sys.argv[1:])
    except OSError as e:
        print(f"emx: cannot run {target}: {e.strerror}", file=sys.stderr)
        return 127
