"""How emx-reproduce and emx-sweep end: a status and at most one line on stderr for
what went wrong, never a traceback for bad input.

    0 every run succeeded · 1 some runs failed (they are in the outputs) · 2 a bad name,
    key, value or file (nothing ran, or the outputs could not be written) · 3 the Dask
    cluster failed (no workers, a worker lacks something) · 70 a bug in emx (EMX_DEBUG=1
    shows the traceback) · 130 interrupted · 141 stdout closed early (| head)
"""
from __future__ import annotations

import os
import sys

from .executors import ClusterError


def run(main, name: str) -> None:
    """sys.exit(main()) with the statuses above."""
    try:
        code = main()
    except BrokenPipeError:                     # `emx-reproduce --list | head`: quiet,
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141                              # as a command killed by SIGPIPE
    except ValueError as e:
        code = _fail(name, e, 2)
    except RecursionError:
        code = _fail(name, "an input nested too deeply", 2)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        code = _fail(name, f"{where}{e.strerror or e or type(e).__name__}", 2)
    except ClusterError as e:
        code = _fail(name, f"Dask: {e}", 3)
    except KeyboardInterrupt:
        code = _fail(name, "interrupted; finished runs are cached, run again to resume", 130)
    except Exception as e:                      # a bug: say so in one line
        if os.environ.get("EMX_DEBUG"):
            raise
        code = _fail(name, f"internal error ({type(e).__name__}: {e}); "
                           "EMX_DEBUG=1 shows where", 70)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = code or 141
    sys.exit(code)


def _fail(name: str, why, code: int) -> int:
    text = " ".join(str(why).split()) if code != 2 else str(why).splitlines()[0] \
        if str(why) else ""
    print(f"\n{name}: {text}" if code == 130 else f"{name}: {text}", file=sys.stderr)
    return code
