"""What users hand the layer (command-line values, spec files, output names and
directories), checked before anything runs. Every problem is a ValueError naming where
and why; the commands print it as one line and exit with status 2."""
from __future__ import annotations

import json
import os
import stat

SPEC_MAX_BYTES = 1 << 20            # a sweep spec is a few lines; refuse what is not


def value(text: str, where: str):
    """A value as text: JSON if it parses (12.5, true, "a b"), else the word itself. Only
    numbers, words and true/false are values (no config key takes a list)."""
    try:
        v = json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: a value nested too deeply")
    except ValueError:
        return text
    return scalar(v, where)


def scalar(v, where: str):
    """v itself when it is a number, a word or true/false."""
    if v is None or isinstance(v, (list, dict, tuple)):
        kind = "nothing" if v is None else "a list" if isinstance(v, (list, tuple)) else "a mapping"
        raise ValueError(f"{where}: {scalar_text(v)} is {kind}; a value is a number, a word or "
                         "true/false")
    if not isinstance(v, (str, int, float, bool)):
        raise ValueError(f"{where}: {scalar_text(v)} is not a number, a word or true/false")
    return v


def assignments(items, option: str, split=None) -> dict:
    """KEY=VALUE items of a repeatable option -> {key: value(s)}, each key once.
    `split`, if given, turns the text after '=' into the value (e.g. a list)."""
    out = {}
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key or not text:
            raise ValueError(f"{option} {scalar_text(item)}: expected KEY=VALUE")
        if key in out:
            raise ValueError(f"{option} {key} is given twice; give it once "
                             f"({option} {key}=V1,V2 for several values in a sweep)")
        out[key] = split(text, f"{option} {key}") if split else value(text, f"{option} {key}")
    return out


def read_spec(path: str):
    """A sweep spec's document: a regular file of at most SPEC_MAX_BYTES, JSON or YAML."""
    kind = "YAML" if path.endswith((".yaml", ".yml")) else "JSON"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise ValueError(f"--spec {path}: {e.strerror.lower()}")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ValueError(f"--spec {path}: {what}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(SPEC_MAX_BYTES + 1)
    if len(data) > SPEC_MAX_BYTES:
        raise ValueError(f"--spec {path}: larger than {SPEC_MAX_BYTES >> 10} KiB")
    try:
        text = data.decode("utf-8")
        if kind == "YAML":
            import yaml
            return yaml.safe_load(text)
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{path}: not valid {kind}: nested too deeply")
    except Exception as e:                      # the parsers' own error types
        raise ValueError(f"{path}: not valid {kind}: " + " ".join(str(e).split()))


def output_name(name: str) -> str:
    """An output file name (--name): a plain name in the output directory."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name \
            or name.startswith(".") or len(name) > 200:
        raise ValueError(f"--name {scalar_text(name)}: must be a plain file name "
                         "(no '/', not starting with '.', at most 200 characters)")
    return name


def directory(path: str, option: str) -> str:
    """A directory to write into, created if missing."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise ValueError(f"{option} {path}: exists and is not a directory")
    except OSError as e:
        raise ValueError(f"{option} {path}: cannot create the directory ({e.strerror})")
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: not writable")
    return path


def scalar_text(v) -> str:
    """v as a user wrote it, cut to 60 characters (for messages)."""
    text = v if isinstance(v, str) else json.dumps(v) if _jsonable(v) else repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonable(v) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError, RecursionError):
        return False
