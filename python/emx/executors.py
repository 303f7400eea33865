"""Where runs execute: a local pool of simulator processes, or a Dask cluster.

Both take (tag, Run) pairs and yield (tag, Result) as runs finish, in any order. An
experiment never sees which one ran it.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed

from . import sim
from .experiment import Run


def execute(run: Run, emx: str, build_dir: str):
    """Runs one Run; a plain function so that Dask can ship it to a worker."""
    os.environ["EMX"] = emx
    os.environ["EMX_BUILD_DIR"] = build_dir
    return sim.run(run.program, run.args, run.config, run.overrides, run.pes,
                   run.options, run.timeout)


class LocalExecutor:
    """N simulator processes at once (threads only wait for them)."""

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self.name = f"local pool of {self.jobs}"

    def map(self, tagged_runs):
        emx, build = sim.binary(), sim.build_dir()
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {pool.submit(execute, run, emx, build): tag for tag, run in tagged_runs}
            try:
                for f in as_completed(futures):
                    yield futures[f], f.result()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise

    def close(self):
        pass


class DaskExecutor:
    """Runs on a Dask distributed cluster: ADDRESS of a running scheduler, or "local"
    for a LocalCluster in this process (threads: each run is its own process anyway).
    Workers need the emx binary and programs at the same paths (a shared checkout);
    the emx package itself is shipped with the task."""

    def __init__(self, address: str, jobs: int):
        import cloudpickle
        from distributed import Client, LocalCluster
        import emx
        cloudpickle.register_pickle_by_value(emx)   # workers need not import emx
        if address == "local":
            self.cluster = LocalCluster(n_workers=1, threads_per_worker=max(1, jobs),
                                        processes=False, dashboard_address=None)
            self.client = Client(self.cluster)
            self.name = f"Dask LocalCluster ({max(1, jobs)} threads)"
        else:
            self.cluster = None
            self.client = Client(address)
            self.name = f"Dask scheduler {address}"

    def map(self, tagged_runs):
        from distributed import as_completed as dask_completed
        emx, build = sim.binary(), sim.build_dir()
        futures = {}
        for tag, run in tagged_runs:
            futures[self.client.submit(execute, run, emx, build, pure=False)] = tag
        try:
            for f in dask_completed(list(futures)):
                yield futures[f], f.result()
        except BaseException:
            self.client.cancel(list(futures))
            raise

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make(jobs: int, dask: str | None):
    return DaskExecutor(dask, jobs) if dask else LocalExecutor(jobs)
