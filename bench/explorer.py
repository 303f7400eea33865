#!/usr/bin/env python3
"""The explorer on a big run: 1 ms of simulated time on the 80-PE machine.

    bench/explorer.py [--pes 80] [--words 512] [--runs 3]

Every PE streams WORDS remote writes (bench_stream 1 WORDS) after a compute phase; the
explorer records the last 1 ms of the run (--trace-window), which holds the whole stream.
Prints the events recorded, the page's size, the simulator's CPU time with and without
--explore, and, in headless Chromium (the system's, through Playwright), the time until
the page is ready (parsed, indexed, drawn) and the time to draw one clock while scrubbing.
A benchmark, not a test: the figures depend on the host (medians of --runs runs).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
sys.path.insert(0, os.path.join(TOP, "tests", "explorer"))
from emx import sim  # noqa: E402
import pages  # noqa: E402


def cpu_run(cmd):
    """(CPU seconds, wall seconds) of one run of cmd."""
    t0 = time.time()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pes", type=int, default=80)
    ap.add_argument("--words", type=int, default=512)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    sim.ensure_built()
    args = ("1", str(a.words))
    r = sim.run("bench_stream", args, pes=a.pes).check()
    mhz = r.cycles / (r.simulated_time_ns / 1000)
    window = f"{max(0, r.cycles - round(1000 * mhz))}:{r.cycles + 1}"
    page = os.path.join(tempfile.mkdtemp(prefix="emx-bench-explorer-"), "run.html")
    plain = sim.command("bench_stream", args, pes=a.pes)
    explore = sim.command("bench_stream", args, pes=a.pes,
                          options=["--explore", page, "--trace-window", window])
    base = [cpu_run(plain) for _ in range(a.runs)]
    expl = [cpu_run(explore) for _ in range(a.runs)]
    d = pages.data(page)
    n = {k: len(d[k]) // d[f"{k.rstrip('s')}_fields" if k != "buffer" else "buffer_fields"]
         for k in ("packets", "threads", "cells", "buffer")}
    hops = len(d["hops"]) // 3
    print(f"bench_stream 1 {a.words} on {a.pes} PEs, {r.cycles} clocks; explorer window {window} "
          f"(1 ms); medians of {a.runs} runs")
    print(f"recorded: {n['packets']} packets, {hops} hops, {n['threads']} threads, "
          f"{n['cells']} cell changes, {n['buffer']} input-buffer events "
          f"({sum(n.values()) + hops} events); page {os.path.getsize(page) / 1e6:.1f} MB")
    print(f"simulator CPU s: {statistics.median(c for c, _ in base):.3f} without --explore, "
          f"{statistics.median(c for c, _ in expl):.3f} with (wall "
          f"{statistics.median(w for _, w in base):.3f} / {statistics.median(w for _, w in expl):.3f})")
    why = pages.browser_missing()
    if why:
        print(f"page load: not measured ({why})")
        return 0
    from playwright.sync_api import sync_playwright
    loads, ready, frames = [], [], []
    with sync_playwright() as p:
        browser = pages.launch(p)
        for _ in range(a.runs):
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            t0 = time.time()
            tab.goto("file://" + page)
            tab.wait_for_selector("body[data-ready='1']", timeout=120000)
            loads.append(time.time() - t0)
            ready.append(float(tab.get_attribute("body", "data-ready-ms")) / 1000)
            frames.append(tab.evaluate("""() => { const s = emx.state, t0 = performance.now();
                for (let k = 0; k < 50; ++k) emx.setTime(s.from + (s.to - s.from) * k / 50);
                return (performance.now() - t0) / 50; }"""))
            tab.close()
        browser.close()
    print(f"page load in Chromium: {statistics.median(loads):.2f} s to ready (page's own clock "
          f"{statistics.median(ready):.2f} s); {statistics.median(frames):.1f} ms to draw a clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
