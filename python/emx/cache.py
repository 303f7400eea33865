"""Results on disk, keyed by what determines them: the simulator build, the program's
binary, its arguments and options, and the effective config. Re-running a report runs
only what changed; an interrupted sweep resumes from what it finished."""
from __future__ import annotations

import hashlib
import json
import os
import threading

from . import sim
from .experiment import Run
from .sim import Result

_file_hashes: dict = {}
_configs: dict = {}
_lock = threading.Lock()


def file_hash(path: str) -> str:
    """sha256 of a file, remembered per (path, size, mtime)."""
    try:
        st = os.stat(path)
    except OSError:
        return "missing:" + path       # emx reports the missing file; nothing to cache on
    key = (path, st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _file_hashes:
            return _file_hashes[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    with _lock:
        _file_hashes[key] = h.hexdigest()
    return h.hexdigest()


def effective_config(run: Run) -> dict:
    """The run's effective config (one `emx config --show` per distinct config)."""
    key = (run.config, run.set, run.pes)
    with _lock:
        if key in _configs:
            return _configs[key]
    cfg = sim.effective_config(run.config, run.overrides, run.pes)
    with _lock:
        _configs[key] = cfg
    return cfg


def key(run: Run) -> str:
    doc = {"emx": file_hash(sim.binary()), "program": file_hash(sim.program_path(run.program)),
           "args": list(run.args), "options": list(run.options),
           "config": effective_config(run)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class Cache:
    """A directory of <key>.json files; `read=False` (--force) reads nothing but still writes."""

    def __init__(self, directory: str, read: bool = True):
        self.directory, self.read = directory, read
        os.makedirs(directory, exist_ok=True)

    def _path(self, k: str) -> str:
        return os.path.join(self.directory, k[:2], k + ".json")

    def get(self, k: str):
        if not self.read:
            return None
        try:
            with open(self._path(k)) as f:
                return Result.from_json(json.load(f))
        except (OSError, ValueError, TypeError):
            return None

    def put(self, k: str, result: Result) -> None:
        if result.status < 0:          # a host-side failure (time-out, no binary): retry it
            return
        path = self._path(k)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w") as f:
            json.dump(result.to_json(), f)
        os.replace(tmp, path)          # atomic: a killed sweep leaves no half file
