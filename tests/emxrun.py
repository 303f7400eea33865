"""Running the emx binary from Python tests (the EMX environment variable names it)."""
import json
import os
import subprocess
import tempfile

EMX = os.environ.get("EMX", "emx")


def emx(*args, timeout=600):
    """Runs `emx ARGS`; returns the CompletedProcess (text, stdout and stderr captured)."""
    return subprocess.run([EMX, *args], capture_output=True, text=True, timeout=timeout)


def run_stats(*args, timeout=600):
    """Runs `emx run -q --stats FILE ARGS`; returns (CompletedProcess, statistics dict)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats.json")
        r = emx("run", "-q", "--stats", path, *args, timeout=timeout)
        stats = None
        if os.path.exists(path):
            with open(path) as f:
                stats = json.load(f)
    return r, stats


def results(stats):
    """The program's result records as {name: value} (the last value of each name)."""
    return {r["name"]: r["value"] for r in stats["results"]}


def pe_sum(stats, key):
    """A per-PE statistic summed over PEs; key may be dotted (input_buffer.spills)."""
    total = 0
    for pe in stats["stats"]["pe"].values():
        v = pe
        for part in key.split("."):
            v = v[part]
        total += v
    return total
