"""Running the simulator: one `emx run --stats` process, its statistics parsed.

    from emx.sim import run
    r = run("mpi_pingpong", ("advance", 4, 10), pes=2)
    r.results["oneway_us"], r.simulated_time_ns, r.pe[1]["instructions"]

This is the one place that builds an `emx run` command line and reads what it writes
(the `--stats` contract of docs/simulator.md); the experiment layer, the scripts and the
benchmarks all go through it.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# `emx run`'s own exit statuses (emx --help, docs/reliability.md): 64 and above; below 64
# the status is the program's exit code (codes outside 0..63 give 63: see exit_code).
STATUS = {64: "usage, config or program-file error", 70: "fault or machine error",
          71: "deadlock", 72: "time limit (sim.max_cycles)", 73: "host time limit (--max-time)",
          74: "an output (--stats, --trace, --profile, stdout) could not be written"}


def binary() -> str:
    """The emx binary: $EMX if set, else the build's (set up by scripts/setup)."""
    return os.environ.get("EMX") or os.path.join(build_dir(), "sim", "emx")


def ensure_built() -> None:
    """scripts/setup --quiet (cheap when nothing changed), unless $EMX names a binary."""
    if not os.environ.get("EMX"):
        subprocess.run([os.path.join(TOP, "scripts", "setup"), "--quiet"], check=True)


def build_dir() -> str:
    return os.environ.get("EMX_BUILD_DIR") or os.path.join(TOP, "build")


def program_path(program: str) -> str:
    """An ELF path as emx resolves it: a path as given, a bare name from the build."""
    if os.sep in program or program.endswith(".elf"):
        return os.path.abspath(program)
    return os.path.join(build_dir(), "programs", program + ".elf")


def set_value(value: Any) -> str:
    """A --set value as emx parses it: JSON, or a bare word for strings."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def command(program: str, args: Sequence[Any] = (), config: str | None = None,
            set: Mapping[str, Any] | None = None, pes: int | None = None,
            options: Sequence[str] = (), stats: str | None = None) -> list[str]:
    cmd = [binary(), "run", "-q"] + (["--stats", stats] if stats else [])
    return cmd + machine_options(config, set, pes) + list(options) + [program] + \
        [str(a) for a in args]


def machine_options(config: str | None, set: Mapping[str, Any] | None,
                    pes: int | None) -> list[str]:
    """--config, --set and --pes as `emx run` and `emx config --show` both take them."""
    out = ["--config", config] if config else []
    for k, v in (set or {}).items():
        out += ["--set", f"{k}={set_value(v)}"]
    return out + (["--pes", str(pes)] if pes is not None else [])


@dataclass
class Result:
    """What one run produced. `ok` is a clean exit with status 0."""
    status: int
    outcome: str                      # exited, fault, deadlock, time limit, ... or "error"
    stdout: str
    stderr: str
    simulated_time_ns: float = 0.0
    cycles: int = 0
    instructions: int = 0
    host_seconds: float = 0.0         # wall time of the simulation
    host_cpu_seconds: float = 0.0     # its CPU time (speed figures: a loaded host's wall clock lies)
    records: list = field(default_factory=list)   # every emx_result record, in order
    config: dict = field(default_factory=dict)    # the effective config
    stats: dict = field(default_factory=dict)     # per-PE and network statistics
    command: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == 0 and self.outcome == "exited"

    @property
    def results(self) -> dict:
        """{name: value} of the program's emx_result records (the last value of each)."""
        return {r["name"]: r["value"] for r in self.records}

    def series(self, name: str) -> list:
        """Every value of one result name, in the order the program reported them."""
        return [r["value"] for r in self.records if r["name"] == name]

    @property
    def clock_mhz(self) -> float:
        return float(self.config.get("clock_mhz", 0.0))

    @property
    def pe(self) -> dict:
        """Per-PE statistics by PE number."""
        return {int(k): v for k, v in self.stats.get("pe", {}).items()}

    @property
    def network(self) -> dict:
        return self.stats.get("network", {})

    @property
    def fault(self) -> str:
        """Why the run failed ('' for a clean run): the program's own exit status with the
        end of its output, or the simulator's report (fault, deadlock, limit, bad input)."""
        if self.ok:
            return ""
        text = self.stderr.strip()
        if self.outcome == "exited":        # the program ran and chose its exit status
            out = "\n".join(self.stdout.strip().splitlines()[-8:])
            return (f"the program exited with status {self.status}" +
                    (f":\n{out}" if out else "") + (f"\n{text}" if text else ""))
        if self.outcome == "error":         # no statistics: the simulator refused to start
            why = STATUS.get(self.status, f"exit status {self.status}")
            return f"emx did not run the program ({why})" + (f":\n{text}" if text else "")
        return self.outcome + (f":\n{text}" if text else "")

    def pe_sum(self, key: str) -> float:
        """A per-PE statistic summed over PEs; key may be dotted (input_buffer.spills)."""
        total = 0
        for v in self.pe.values():
            for part in key.split("."):
                v = v[part]
            total += v
        return total

    def check(self) -> "Result":
        """This result, or RuntimeError with the fault report when the run failed."""
        if not self.ok:
            raise RuntimeError(f"{' '.join(self.command)}: {self.fault}")
        return self

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        return cls(**d)


def run(program: str, args: Sequence[Any] = (), config: str | None = None,
        set: Mapping[str, Any] | None = None, pes: int | None = None,
        options: Sequence[str] = (), timeout: float | None = None, server=None) -> Result:
    """Runs one simulation and returns its Result; never raises for a failing program
    (its status, outcome and fault report are in the Result). `server`: an
    emx.server.Server of this binary to run it in (else its own process)."""
    with tempfile.TemporaryDirectory(prefix="emx-") as d:
        path = os.path.join(d, "stats.json")
        cmd = command(program, args, config, set, pes, options, stats=path)
        try:
            p = _execute(cmd, d, timeout, server)
        except subprocess.TimeoutExpired as e:
            return Result(status=-1, outcome="host timeout",
                          stdout=_text(e.stdout), command=cmd,
                          stderr=f"no result after {timeout} s of host time")
        except OSError as e:
            return Result(status=-1, outcome="error", stdout="", stderr=str(e), command=cmd)
        stats = {}
        if os.path.exists(path):
            with open(path) as f:
                stats = json.load(f)
    return Result(status=p.returncode, outcome=stats.get("outcome", "error"),
                  stdout=p.stdout, stderr=p.stderr,
                  simulated_time_ns=stats.get("simulated_time_ns", 0.0),
                  cycles=stats.get("cycles", 0), instructions=stats.get("instructions", 0),
                  host_seconds=stats.get("host_seconds", 0.0),
                  host_cpu_seconds=stats.get("host_cpu_seconds", 0.0),
                  records=stats.get("results", []), config=stats.get("config", {}),
                  stats=stats.get("stats", {}), command=cmd)


def _execute(cmd, directory: str, timeout, server):
    """The finished command (returncode, stdout, stderr) from the server if it runs, else
    from a process of its own."""
    if server is not None:
        from .server import ServerGone
        try:
            return subprocess.CompletedProcess(cmd, *server.run(cmd[1:], directory, timeout))
        except ServerGone:
            pass
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _text(b) -> str:
    if b is None:
        return ""
    return b.decode(errors="replace") if isinstance(b, bytes) else b


def effective_config(config: str | None = None, set: Mapping[str, Any] | None = None,
                     pes: int | None = None, server=None) -> dict:
    """The effective config (`emx config --show`, in `server`, an emx.server.Server of
    this binary, if given); raises ValueError with emx's message for an unknown key or a
    bad value."""
    cmd = [binary(), "config", "--show"] + machine_options(config, set, pes)
    with tempfile.TemporaryDirectory(prefix="emx-") as d:
        p = _execute(cmd, d, None, server)
    if p.returncode != 0:
        raise ValueError(p.stderr.strip() or f"emx config --show failed ({p.returncode})")
    return json.loads(p.stdout)
