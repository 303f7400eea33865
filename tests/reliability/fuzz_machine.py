#!/usr/bin/env python3
"""Fuzzes whole machines through the emx binary (docs/reliability.md):
  code:   random code (the ISA table's instructions, the EMC-Y custom opcodes included,
          and random words) on 1 and 4 PEs, each case run twice: the same output, and
          only emx's own statuses or the program's;
  config: a real program under random --set assignments of the documented keys.
Any signal, hang (timeout), unexpected status, unclean message or difference between
the two runs is a finding; the reproducer goes to the findings directory.

  fuzz_machine.py --emx build/sim/emx --fuzz build/tests/reliability/fuzz_inputs
                  [--seed S] [--scale X | --cases N] [--findings DIR]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

STATUSES = set(range(64)) | {64, 70, 71, 72}
VALUES = ["0", "1", "2", "3", "7", "64", "255", "256", "1024", "4096", "65536", "1048576",
          "16777216", "4294967296", "-1", "0.5", "1e400", "true", "false", '"all"', '"pe0"',
          '"ring"', '"torus2d"', '"crossbar"', '"single_switch"', '"cut_through"', '"hops"',
          '"datelines"', "[1]", "{}", "x" * 300]


def run(cmd, timeout=60):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


# ASan's warning that it lost SystemC's main stack (docs/reliability.md, Sanitizers): not
# a report; it precedes emx's message on stderr in the sanitizer build.
ASAN_LOST_STACK = re.compile(r"==\d+==WARNING: ASan is ignoring requested __asan_handle_no_return"
                             r".*\nFalse positive error reports may follow\n"
                             r"For details see \S+\n")


def problem(r):
    """What is wrong with one run, or None."""
    if r is not None:
        r.stderr = ASAN_LOST_STACK.sub("", r.stderr)
    if r is None:
        return "hang (no end within the timeout)"
    if r.returncode < 0:
        return f"killed by signal {-r.returncode}"
    if r.returncode not in STATUSES:
        return f"unexpected status {r.returncode}"
    for bad in ("terminate called", "Assertion", "runtime error:", "Sanitizer", "Error: (E"):
        if bad in r.stderr:
            return f"'{bad}' on stderr"
    if r.returncode >= 64 and not r.stderr.startswith("emx: "):
        return "a failure without an emx message"
    return None


def keys(emx):
    doc = subprocess.run([emx, "config", "--doc"], capture_output=True, text=True).stdout
    return [k for k, t in re.findall(r"^\| `([^`]+)` \| (\w+) ", doc, re.M) if t != "object"]


def arguments(ap, default_cases):
    """The options of every harness script (also fuzz_host_paths.py): the parsed
    arguments and the number of cases."""
    ap.add_argument("--emx", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--cases", type=int, default=0)
    ap.add_argument("--findings", default="fuzz-findings")
    a = ap.parse_args()
    # scripts/test --fuzz-scale X and --sanitize scale every harness's cases.
    return a, a.cases or int(default_cases * a.scale * float(os.environ.get("EMX_FUZZ_SCALE", "1")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fuzz", required=True)
    a, cases = arguments(ap, 300)
    known = keys(a.emx)
    hello = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(a.fuzz))),
                         "programs", "hello.elf")
    findings = 0
    counts = {"code": 0, "config": 0}
    statuses = {}
    with tempfile.TemporaryDirectory() as d:
        for k in range(cases):
            seed = a.seed + k
            rng = random.Random(seed)
            elf = os.path.join(d, f"case{seed}.elf")
            if k % 3 != 2:
                counts["code"] += 1
                subprocess.run([a.fuzz, "write-elf", str(seed), elf], check=True)
                pes = rng.choice(["1", "4"])
                cmd = [a.emx, "run", "-q", "--pes", pes, "--max-cycles", "20000",
                       "--set", f"sim.quantum_cycles={rng.choice([1, 7, 100, 1000])}", elf]
            else:
                counts["config"] += 1
                shutil.copy(hello, elf)
                cmd = [a.emx, "run", "-q", "--pes", rng.choice(["1", "2", "4"])]
                for _ in range(rng.randint(1, 2)):
                    value = rng.choice(VALUES) if rng.random() < 0.4 else \
                        str(rng.choice([1, 2, 3, 4, 8, 16, 32, 100]))
                    cmd += ["--set", f"{rng.choice(known)}={value}"]
                cmd += ["--max-cycles", "2000000", elf]
            first, second = run(cmd), run(cmd)
            what = problem(first) or problem(second)
            if not what and (first.returncode, first.stdout, first.stderr) != \
                    (second.returncode, second.stdout, second.stderr):
                what = "two runs of the same case differ"
            if first is not None:
                statuses[first.returncode] = statuses.get(first.returncode, 0) + 1
            if what:
                findings += 1
                os.makedirs(a.findings, exist_ok=True)
                keep = os.path.join(a.findings, f"machine-{seed}.elf")
                shutil.copy(elf, keep)
                print(f"fuzz machine: FINDING with seed {seed}: {what}\n  {' '.join(cmd)}\n"
                      f"  input saved as {keep}", file=sys.stderr)
                if first is not None:
                    print(first.stderr[-2000:], file=sys.stderr)
    shown = ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items()))
    print(f"fuzz machine: {cases} cases from seed {a.seed} ({counts['code']} random code, "
          f"{counts['config']} random configs, each run twice); statuses {shown}; "
          f"{findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
