#!/usr/bin/env python3
"""Fuzzes the confinement of host files (emx run --files DIR, docs/reliability.md): each
case builds a fresh tree (a deep chain of long names beyond PATH_MAX, links inside, links
climbing out by relative and absolute paths, loops, dangling links, a FIFO, a link to a
device) beside an outside directory, and runs rel_host_paths with 1-6 random operations
(read, write, exclusive create, remove, hold) on random paths made of the tree's names,
"..", ".", empty components, long names and random bytes.

A finding: any problem of fuzz_machine.problem (signal, hang, unexpected status, unclean
message), a read that returned an outside file's content, or any change outside DIR.

  fuzz_host_paths.py --emx build/sim/emx --program build/programs/rel_host_paths.elf
                     [--seed S] [--scale X | --cases N] [--findings DIR]
"""
import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile

from fuzz_machine import arguments, problem

LONG = "L" * 250  # 17 of them make a path beyond PATH_MAX; 10 fit in a link
OPS = ["read", "read", "read", "write", "write", "excl", "remove", "hold"]


def run(cmd, timeout=60):
    """One emx run with 256 descriptors (hold takes what it may: 256 - 64)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=limit, errors="replace")
    except subprocess.TimeoutExpired:
        return None


def chain(top_fd, names):
    """mkdir a chain below top_fd (by descriptors: beyond PATH_MAX); the deepest's fd."""
    fd = os.dup(top_fd)
    for n in names:
        os.mkdir(n, dir_fd=fd)
        nfd = os.open(n, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    return fd


def put(fd, name, text):
    with open(os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
        f.write(text)


def build(top, rng):
    """files/ (the --files root) and outside/ under top; names usable in paths."""
    root, outside = os.path.join(top, "files"), os.path.join(top, "outside")
    os.mkdir(root)
    os.mkdir(outside)
    r = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    o = os.open(outside, os.O_RDONLY | os.O_DIRECTORY)
    fds = [r, o]
    try:
        put(o, "secret", "outside\n")
        # Chains of 10 long names, then 7-10 more reached through a link "more" (a link's
        # target is at most 4095 bytes): the deepest are beyond PATH_MAX.
        depth = rng.randint(7, 10)
        part, rest = "/".join([LONG] * 10), "/".join([LONG] * depth)

        def deep_chain(top):
            mid = chain(top, [LONG] * 10)
            fds.append(mid)
            fds.append(chain(mid, [LONG] * depth))
            os.symlink(rest, "more", dir_fd=mid)
            return fds[-1]
        put(deep_chain(o), "secret", "outside deep\n")
        put(r, "f", "inside f\n")
        os.mkdir("d", dir_fd=r)
        d = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=r)
        fds.append(d)
        put(d, "g", "inside g\n")
        deep = deep_chain(r)
        put(deep, "h", "inside deep\n")
        os.mkfifo("fifo", dir_fd=r)
        up = "../" * (10 + depth + 1)  # from the deepest inside: out of root by one level
        links = {
            "in_rel": "f", "in_dir": "d", "in_dot": ".", "in_up": "d/../f",
            "deep": part, "loop": "loop", "loop2": "loop3",
            "loop3": "loop2", "dangling_in": "made", "dangling_out": "../outside/new",
            "out_rel": "../outside/secret", "out_dir": "../outside",
            "out_abs": os.path.join(outside, "secret"), "abs_in": os.path.join(root, "f"),
            "to_fifo": "fifo", "to_dev": "/dev/zero", "to_deep_out": "../outside/" + part,
        }
        for name, target in links.items():
            os.symlink(target, name, dir_fd=r)
        os.symlink("../f", "back", dir_fd=d)
        os.symlink("../../outside/secret", "out2", dir_fd=d)
        os.symlink(up + "outside/" + part + "/more", "climb", dir_fd=deep)
        os.symlink(up[3:] + "f", "home", dir_fd=deep)
        names = list(links) + ["f", "d", "g", "h", "fifo", "back", "out2", "climb", "home",
                               "secret", "made", "more", LONG, "..", ".", ""]
        # Whole ways through the deep tree, so that random paths reach its far end.
        names += ["deep/more", "deep/more/climb", "deep/more/climb/secret", "deep/more/home",
                  "to_deep_out/more", "to_deep_out/more/secret"] * 3
    finally:
        for fd in fds:
            os.close(fd)
    return root, outside, names


def snapshot(outside):
    """Every entry below outside with its content (descriptor-relative: beyond PATH_MAX)."""
    seen = {}
    for dirpath, dirs, files, dfd in os.fwalk(outside):
        for f in files:
            fd = os.open(f, os.O_RDONLY | os.O_NONBLOCK, dir_fd=dfd)
            with open(fd, "rb") as fh:
                seen[(len(dirpath), f)] = fh.read()
        for x in dirs:
            seen[(len(dirpath), x + "/")] = b""
    return seen


def random_path(rng, names):
    if rng.random() < 0.05:
        return "".join(chr(rng.randint(1, 255)) for _ in range(rng.randint(0, 40)))
    parts = [rng.choice(names) for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 6]))]
    if rng.random() < 0.1:
        parts.insert(0, "")  # absolute
    if rng.random() < 0.05:
        parts = ["d"] * 2100  # 4200 characters: beyond PATH_MAX
    return "/".join(parts) + ("/" if rng.random() < 0.05 else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", required=True)
    a, cases = arguments(ap, 100)
    findings = 0
    outcomes = {}
    for k in range(cases):
        seed = a.seed + k
        rng = random.Random(seed)
        top = tempfile.mkdtemp()
        try:
            root, outside, names = build(top, rng)
            before = snapshot(outside)
            words = []
            for _ in range(rng.randint(1, 6)):
                words += [rng.choice(OPS), random_path(rng, names)]
            words = [w.replace("\0", "") for w in words]
            cmd = [a.emx, "run", "-q", "--pes", "1", "--max-time", "30s", "--files", root,
                   a.program, *words]
            r = run(cmd)
            what = problem(r)
            if not what:
                for line in r.stdout.splitlines():
                    op = line.split(":", 1)[0].split()[-1]
                    kind = op if op == "hold" else op + (" ok" if ": ok" in line else " failed")
                    outcomes[kind] = outcomes.get(kind, 0) + 1
                    if "outside" in line:
                        what = f"read a file outside DIR: {line}"
                if r.stdout.count("\n") != len(words) // 2:
                    what = what or "not every operation reported"
            if not what and snapshot(outside) != before:
                what = "a change outside DIR"
        finally:
            shutil.rmtree(top)
        if what:
            findings += 1
            os.makedirs(a.findings, exist_ok=True)
            keep = os.path.join(a.findings, f"host-paths-{seed}.txt")
            with open(keep, "w") as f:
                f.write("\n".join(repr(w) for w in words) + "\n")
            print(f"fuzz host paths: FINDING with seed {seed}: {what}\n  operations saved as "
                  f"{keep}", file=sys.stderr)
            if r is not None:
                print(r.stderr[-2000:], file=sys.stderr)
    shown = ", ".join(f"{s}: {n}" for s, n in sorted(outcomes.items()))
    print(f"fuzz host paths: {cases} cases from seed {a.seed}; operations {shown}; "
          f"{findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
