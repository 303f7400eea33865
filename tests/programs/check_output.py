#!/usr/bin/env python3
"""Runs a program on the simulator and checks its console output and exit status.

    check_output.py --emx EMX --elf PROG.elf --expected FILE [options] [-- ARGS...]

stdout of `emx run -q [EMX_OPTIONS] PROG.elf ARGS` must equal FILE exactly (a unified
diff is shown otherwise). The exit status must be --exit-code (default 0). With
--fault-in FUNC the run must instead fail: non-zero status, and stderr must say "fault"
and give a PC inside FUNC, naming it (the address range comes from the ELF's symbols).
With --result NAME=VALUE the run writes --stats, which must hold result records NAME
(emx_result, emx_result_int), all with that value.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile


def function_range(nm, elf, name):
    """[start, end) of function `name` in `elf`, from `nm -S`."""
    out = subprocess.run([nm, "-S", "--defined-only", elf], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[3] == name and fields[2] in "tT":
            start = int(fields[0], 16)
            return start, start + int(fields[1], 16)
    sys.exit(f"FAIL: no function {name} in {elf}")


def check_fault(args, result):
    problems = []
    if result.returncode == 0:
        problems.append("the run succeeded (exit status 0) but should have faulted")
    if "fault" not in result.stderr.lower():
        problems.append('stderr does not say "fault"')
    if args.fault_in not in result.stderr:
        problems.append(f"stderr does not name the function {args.fault_in}")
    start, end = function_range(args.nm, args.elf, args.fault_in)
    numbers = [int(h, 16) for h in re.findall(r"0x([0-9a-fA-F]+)", result.stderr)]
    if not any(start <= n < end for n in numbers):
        problems.append(f"stderr gives no PC inside {args.fault_in} [{start:#x}, {end:#x})")
    return problems


def check_results(wanted, stats_file):
    if not os.path.exists(stats_file):
        return ["the run wrote no statistics"]
    with open(stats_file) as f:
        stats = json.load(f)
    problems = []
    for item in wanted:
        name, value = item.split("=", 1)
        records = [r for r in stats.get("results", []) if r["name"] == name]
        if not records:
            problems.append(f"no result record {name}")
        for r in records:
            if r["value"] != json.loads(value):
                problems.append(f"result {name} of PE {r['pe']} is {r['value']}, expected {value}")
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--emx", required=True)
    p.add_argument("--elf", required=True)
    p.add_argument("--expected", required=True)
    p.add_argument("--emx-option", action="append", default=[], dest="emx_options",
                   help="option for `emx run` (repeatable), e.g. --emx-option=--pes=4")
    p.add_argument("--exit-code", type=int, default=0)
    p.add_argument("--fault-in", metavar="FUNC")
    p.add_argument("--nm", default="riscv64-unknown-elf-nm")
    p.add_argument("--sort", action="store_true",
                   help="compare sorted lines (several PEs print in an order of their own)")
    p.add_argument("--result", action="append", default=[], metavar="NAME=VALUE",
                   help="expected result record (repeatable)")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("args", nargs="*")
    args = p.parse_args()

    options = [o for opt in args.emx_options for o in opt.split("=", 1)]
    with tempfile.TemporaryDirectory() as tmp:
        stats_file = os.path.join(tmp, "stats.json")
        if args.result:
            options += ["--stats", stats_file]
        command = [args.emx, "run", "-q", *options, args.elf, *args.args]
        print("running:", " ".join(command))
        result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
        problems = check_results(args.result, stats_file) if args.result else []

    with open(args.expected) as f:
        expected = f.read()
    actual = result.stdout
    if args.sort:
        expected = "".join(sorted(expected.splitlines(keepends=True)))
        actual = "".join(sorted(actual.splitlines(keepends=True)))

    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(keepends=True),
                                    actual.splitlines(keepends=True),
                                    fromfile=args.expected, tofile="console output")
        problems.append("console output differs:\n" + "".join(diff))
    if args.fault_in:
        problems += check_fault(args, result)
    elif result.returncode != args.exit_code:
        problems.append(f"exit status {result.returncode}, expected {args.exit_code}")

    if problems:
        print("stderr of the run:\n" + result.stderr)
        for problem in problems:
            print("FAIL:", problem)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
