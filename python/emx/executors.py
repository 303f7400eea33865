"""Where runs execute: a local pool of simulator processes, or a Dask cluster.

Both take (tag, Run) pairs, start them in the order given, and yield (tag, Result) as
runs finish, in any order. An experiment never sees which one ran it.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from . import sim
from .server import Server
from .sim import run as simulate
from .experiment import Run


class ClusterError(RuntimeError):
    """The Dask cluster cannot run the sweep: no workers, a worker that lacks what a run
    needs, runs that kill their workers. The message says which and why."""


def execute(run: Run, emx: str, build_dir: str, server=None):
    """Runs one Run here (the local pool), in `server` (emx.server.Server) if given."""
    return sim.Result.from_json(execute_plain(run.program, run.args, run.config,
                                              run.overrides, run.pes, run.options,
                                              run.timeout, emx, build_dir, server))


def execute_plain(program, args, config, overrides, pes, options, timeout, emx, build_dir,
                  server=None):
    """One run from plain values to a plain dict: what a Dask task carries both ways, so
    that neither the scheduler nor a worker needs the emx package to unpickle it. It names
    no emx module (`simulate`, not `sim.run`): a scheduler that has emx and pickles the task
    again for a worker would name a module by reference, which a worker without emx lacks."""
    os.environ["EMX"] = emx
    os.environ["EMX_BUILD_DIR"] = build_dir
    return simulate(program, args, config, overrides, pes, options, timeout, server).to_json()


class LocalExecutor:
    """N simulator processes at once (threads only wait for them), started in the order
    given. Each thread runs its simulations in an `emx serve` of its own (emx.server):
    forked from it, a run skips the process start-up."""

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self.name = f"local pool of {self.jobs}"

    def map(self, tagged_runs):
        emx, build = sim.binary(), sim.build_dir()
        servers, lock, mine = [], threading.Lock(), threading.local()

        def execute_here(run):
            if getattr(mine, "server", None) is None:
                mine.server = Server(emx)
                with lock:
                    servers.append(mine.server)
            return execute(run, emx, build, mine.server)
        try:
            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                futures = {pool.submit(execute_here, run): tag for tag, run in tagged_runs}
                try:
                    for f in as_completed(futures):
                        yield futures[f], f.result()
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
        finally:
            for s in servers:
                s.close()

    def close(self):
        pass


class DaskExecutor:
    """Runs on a Dask distributed cluster: ADDRESS of a running scheduler, or "local"
    for a LocalCluster in this process (threads: each run is its own process anyway).

    The code a run needs travels with each task (cloudpickle by value, see _ByValue): the
    scheduler and the workers need Python of the client's version and dask, not the emx
    package. Workers need the simulator and the programs at the client's paths (a shared
    checkout); at the start each worker is asked, and one that lacks them is named. With
    no worker for `wait` seconds (none joined, or all died) the client fails (ClusterError)
    instead of waiting."""

    def __init__(self, address: str, jobs: int, wait: float = 60.0):
        from distributed import Client, LocalCluster
        self.wait = wait
        if address == "local":
            self.cluster = LocalCluster(n_workers=1, threads_per_worker=max(1, jobs),
                                        processes=False, dashboard_address=None)
            self.client = Client(self.cluster)
            self.name = f"Dask LocalCluster ({max(1, jobs)} threads)"
        else:
            self.cluster = None
            try:
                self.client = Client(address, timeout=wait)
            except (OSError, TimeoutError, ValueError) as e:
                raise ClusterError(f"no scheduler at {address} ({_first_line(e)})")
            self.name = f"Dask scheduler {address}"
        self._run = _ByValue(execute_plain)
        _quiet_abandoned_gathers()
        self.workers = self._check_workers()

    def _check_workers(self) -> set:
        """The workers, each found to have this Python and the simulator and programs."""
        try:
            self.client.wait_for_workers(1, timeout=self.wait)
        except (TimeoutError, OSError) as e:
            raise ClusterError(f"no worker joined {self.name} within {self.wait:g} s "
                               f"({_first_line(e) or 'timeout'}); start one with "
                               "`dask worker ADDRESS`")
        want = {"python": list(sys.version_info[:2]), "emx": sim.binary(),
                "programs": os.path.join(sim.build_dir(), "programs")}
        try:
            found = self.client.run(_ByValue(_worker_facts), want["emx"], want["programs"])
        except Exception as e:          # a worker that cannot even run the probe
            raise ClusterError(f"asking the workers failed: {_first_line(e)}")
        lacks = []
        for worker, facts in sorted(found.items()):
            if facts["python"] != want["python"]:
                lacks.append(f"{worker} runs Python {'.'.join(map(str, facts['python']))}, "
                             f"this client {'.'.join(map(str, want['python']))} (the runs' "
                             "code is shipped as bytecode: use the same Python)")
            if not facts["emx"]:
                lacks.append(f"{worker} has no simulator at {want['emx']} (workers need "
                             "the checkout and its build at the client's path)")
            elif not facts["programs"]:
                lacks.append(f"{worker} has no programs at {want['programs']}")
        if lacks:
            raise ClusterError("; ".join(lacks))
        return set(found)

    def map(self, tagged_runs):
        from distributed import wait as dask_wait
        emx, build = sim.binary(), sim.build_dir()
        futures = {}
        tagged_runs = list(tagged_runs)
        for i, (tag, run) in enumerate(tagged_runs):
            # The given order is the order to start them in (the runner's longest first).
            f = self.client.submit(self._run, run.program, run.args, run.config,
                                   run.overrides, run.pes, run.options, run.timeout, emx,
                                   build, pure=False, priority=len(tagged_runs) - i)
            futures[f] = (tag, run)
        pending, alone_since = set(futures), None
        try:
            while pending:
                try:
                    done, pending = dask_wait(pending, timeout=2,
                                              return_when="FIRST_COMPLETED")
                except TimeoutError:    # nothing finished in 2 s: look at the workers
                    done = set()
                for f in done:
                    tag, run = futures[f]
                    if f.status == "error":
                        raise ClusterError(f"the run `{run.describe()}` failed on the cluster: "
                                           f"{_first_line(f.exception())}")
                    if f.status == "cancelled":
                        raise ClusterError(f"the run `{run.describe()}` was cancelled on the "
                                           "cluster")
                    value, alone_since = self._result(f, run, alone_since, len(pending) + 1)
                    yield tag, sim.Result.from_json(value)
                alone_since = self._watch(alone_since, len(pending))
        except BaseException:
            self.client.cancel(list(futures))
            raise

    def _result(self, f, run, alone_since, pending: int):
        """A finished run's result, fetched from its worker. A worker that dies between
        finishing a run and handing over its result makes Dask run it again, and the fetch
        waits for that: it waits in steps, watching the workers, so that with none left
        the client fails after `wait` seconds instead of hanging."""
        while True:
            try:
                return f.result(timeout=2), alone_since
            except TimeoutError:
                alone_since = self._watch(alone_since, pending)
            except Exception as e:      # its second run failed
                raise ClusterError(f"the run `{run.describe()}` failed on the cluster: "
                                   f"{_first_line(e)}")

    def _watch(self, alone_since, pending: int):
        """Says when workers leave; fails after `wait` seconds without any."""
        now = time.monotonic()
        try:
            workers = set(self.client.nthreads())
        except Exception:               # the scheduler is gone
            workers = set()
        for w in sorted(self.workers - workers):
            print(f"dask: worker {w} left the cluster; its runs go to the others",
                  file=sys.stderr)
        self.workers = workers
        if workers or not pending:
            return None
        if alone_since is None:
            return now
        if now - alone_since > self.wait:
            raise ClusterError(f"no worker on {self.name} for {self.wait:g} s with {pending} "
                               "runs unfinished (the workers died or left); finished runs "
                               "are cached: start workers and run again to resume")
        return alone_since

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


class _AbandonedGathers(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" for Dask's AllExit: the
    signal that ends the inner wait of a result fetch that `_result` gave up on (its worker
    died); it is expected, and its traceback would read as a crash."""

    def filter(self, record):
        exc = record.exc_info[1] if record.exc_info else None
        return type(exc).__name__ != "AllExit"


def _quiet_abandoned_gathers():
    log = logging.getLogger("asyncio")
    if not any(isinstance(f, _AbandonedGathers) for f in log.filters):
        log.addFilter(_AbandonedGathers())


class _ByValue:
    """A function of this package pickled with its code (cloudpickle by value). Dask
    pickles a task with plain pickle, which names a function by module, so the scheduler
    (which unpickles tasks) and the workers would need the emx package; unpickling this
    gives back the function itself without importing emx."""

    def __init__(self, fn):
        import cloudpickle
        import emx
        cloudpickle.register_pickle_by_value(emx)
        self.fn, self.blob = fn, cloudpickle.dumps(fn)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __reduce__(self):
        import cloudpickle
        return cloudpickle.loads, (self.blob,)


def _worker_facts(emx: str, programs: str) -> dict:
    """What a worker has, asked at the start (runs on the worker)."""
    import os as os_
    import sys as sys_
    return {"python": list(sys_.version_info[:2]),
            "emx": os_.access(emx, os_.X_OK), "programs": os_.path.isdir(programs)}


def _first_line(e) -> str:
    text = f"{type(e).__name__}: {e}" if isinstance(e, BaseException) else str(e)
    return " ".join(text.split())[:300]


def make(jobs: int, dask: str | None, wait: float = 60.0):
    return DaskExecutor(dask, jobs, wait) if dask else LocalExecutor(jobs)
