"""Results on disk, keyed by what determines them: the simulator build, the program's
binary, its arguments and options, and the effective config. Re-running a report runs
only what changed; an interrupted sweep resumes from what it finished."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import stat
import threading
import typing
from contextlib import closing

from . import inputs, sim
from .experiment import Run
from .server import Server
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


def effective_config(run: Run, server=None) -> dict:
    """The run's effective config (one `emx config --show` per distinct config, in
    `server` if given: sim.effective_config)."""
    key = (run.config, run.set, run.pes)
    with _lock:
        if key in _configs:
            return _configs[key]
    cfg = sim.effective_config(run.config, run.overrides, run.pes, server)
    with _lock:
        _configs[key] = cfg
    return cfg


def config_server():
    """An `emx serve` to ask effective configs of (effective_config's `server`): a fork
    each instead of a process start. A context manager: closed at its end."""
    return closing(Server(sim.binary()))


def key(run: Run, config: dict | None = None, server=None) -> str:
    """`config`: the run's effective config if known (a result's own: `emx run` reports
    the config `emx config --show` prints for the same options), else asked of emx (in
    `server` if given)."""
    doc = {"emx": file_hash(sim.binary()), "program": file_hash(sim.program_path(run.program)),
           "args": list(run.args), "options": list(run.options),
           "config": effective_config(run, server) if config is None else config}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


# An entry: {"format": 1, "sha256": <of the result's canonical JSON>, "result": {...}}.
# Anything else -- another format, a wrong type, an edited value, a link, a directory, a
# device, a file over MAX_ENTRY_BYTES -- is a bad entry: a miss, run again and reported.
ENTRY_FORMAT = 1
MAX_ENTRY_BYTES = 64 << 20
# The fields an entry's result must have: Result's own, with their types (a float field
# may hold an int), so that a field added to Result needs nothing here.
RESULT_FIELDS = {name: ((int, float) if kind is float else kind)
                 for name, kind in typing.get_type_hints(Result).items()}


# How long each run took when last simulated (host CPU seconds, by the run's command
# line, whatever binary ran it; noted for runs taken from the cache too): only the order
# in which runs start (longest first) uses it, so a missing or damaged file costs that
# order, never a result.
COSTS_FILE = "costs.json"


class Cache:
    """A directory of <key>.json files; `read=False` (--force) reads no result but still
    writes. `bad` lists the entries found bad (path, why); they are run again. Beside
    them, `costs.json`: the host CPU seconds of each run the last time, read even with
    --force (see `costs`)."""

    def __init__(self, directory: str, read: bool = True):
        self.directory, self.read = inputs.directory(directory, "--cache"), read
        self.bad: list = []

    def _path(self, k: str) -> str:
        return os.path.join(self.directory, k[:2], k + ".json")

    def get(self, k: str):
        if not self.read:
            return None
        path = self._path(k)
        try:
            return Result.from_json(_read_result(path))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            self.bad.append((path, why))
            return None

    def put(self, k: str, result: Result) -> None:
        """Stores the result (not a host-side failure: a time-out, no binary, which are
        retried). A cache that cannot be written costs the caching, not the run."""
        if result.status < 0:
            return
        # The result is encoded once, canonically: its checksum's text is the entry's.
        body = _canonical(result.to_json())
        sha = hashlib.sha256(body.encode()).hexdigest()
        path = self._path(k)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "w") as f:
                f.write(f'{{"format": {ENTRY_FORMAT}, "sha256": "{sha}", "result": {body}}}')
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)    # a bad entry that is a directory
            os.replace(tmp, path)      # atomic: a killed sweep leaves no half file
        except OSError as e:
            self.bad.append((path, f"cannot write it ({e.strerror or e})"))
            try:
                os.unlink(tmp)
            except OSError:
                pass


    def costs(self) -> dict:
        """{run id: host CPU seconds} of the runs simulated before into this cache (any
        simulator binary); {} when there is none or it is unreadable."""
        try:
            doc = json.loads(_read_regular(os.path.join(self.directory, COSTS_FILE)))
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(doc, dict):
            return {}
        return {k: float(v) for k, v in doc.items()
                if isinstance(k, str) and isinstance(v, (int, float))
                and not isinstance(v, bool) and v >= 0}

    def note_costs(self, costs: dict) -> None:
        """Adds {run id: host CPU seconds} to costs.json (atomically; a cache that cannot
        be written loses only the order hint)."""
        if not costs:
            return
        merged = {**self.costs(), **costs}
        path = os.path.join(self.directory, COSTS_FILE)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(merged, f, sort_keys=True)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def run_id(run: Run) -> str:
    """A run's identity without the binary: its command line (hashed; a schedule argument
    can be kilobytes). What costs.json is keyed by."""
    return hashlib.sha256(run.describe().encode()).hexdigest()[:32]


def _read_regular(path: str) -> bytes:
    """A regular file (not a link, FIFO or device) of at most MAX_ENTRY_BYTES."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ValueError("a symbolic link, not an entry")
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES:
        os.close(fd)
        raise ValueError("a directory, not an entry" if stat.S_ISDIR(st.st_mode) else
                         "not a regular file" if not stat.S_ISREG(st.st_mode) else
                         f"larger than {MAX_ENTRY_BYTES >> 20} MiB")
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise ValueError(f"larger than {MAX_ENTRY_BYTES >> 20} MiB")
    return data


# How put() lays an entry out: the checksum, then the result's canonical text.
_AS_PUT = re.compile(rb'\{"format": %d, "sha256": "([0-9a-f]{64})", "result": ' % ENTRY_FORMAT)


def _read_result(path: str) -> dict:
    """The result of the entry at `path` (a regular file, not a link, of at most
    MAX_ENTRY_BYTES) whose format, checksum and types are right."""
    data = _read_regular(path)
    laid = _AS_PUT.match(data)
    if laid and data.endswith(b"}"):
        # As put() wrote it: the checksum is of the text that follows, hashed as read
        # (encoding the parsed result again to check it took a third of a cached
        # reproduction's reading). Anything else is checked the long way.
        text = data[laid.end():-1]
        if hashlib.sha256(text).hexdigest().encode() == laid.group(1):
            return _result_fields(_parse(text))
    return _entry_result(_parse(data))


def _parse(data: bytes):
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"not JSON ({e})")


def _entry_result(doc) -> dict:
    """The result of an entry whose format, checksum and types are right."""
    if not isinstance(doc, dict) or doc.get("format") != ENTRY_FORMAT:
        raise ValueError(f"not an entry of format {ENTRY_FORMAT}")
    body = doc.get("result")
    if not isinstance(body, dict) or doc.get("sha256") != _digest(body):
        raise ValueError("its checksum does not match its content (edited or damaged)")
    return _result_fields(body)


def _result_fields(body) -> dict:
    """body, if it has a result's fields with their types."""
    if not isinstance(body, dict) or set(body) != set(RESULT_FIELDS):
        raise ValueError("its fields are not a result's")
    for name, kind in RESULT_FIELDS.items():
        v = body[name]
        if isinstance(v, bool) or not isinstance(v, kind):
            raise ValueError(f"field {name} has the wrong type")
    for r in body["records"]:
        if not isinstance(r, dict) or not isinstance(r.get("name"), str) or "value" not in r:
            raise ValueError("a record is not {name, value}")
    if not all(isinstance(c, str) for c in body["command"]):
        raise ValueError("field command is not a list of strings")
    return body


def _canonical(body: dict) -> str:
    """The JSON text an entry's checksum is of (json.dumps encodes in C; json.dump in
    Python, 5x slower)."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def _digest(body: dict) -> str:
    return hashlib.sha256(_canonical(body).encode()).hexdigest()
