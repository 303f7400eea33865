"""Sweeps on a real Dask cluster: `dask scheduler` and `dask worker` as separate processes
on 127.0.0.1, reached through tcp://, with workers that have the emx package and workers
that do not; the table must equal the local pool's. A worker that dies makes the client
fail with a message within --dask-wait, and a missing scheduler is named."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A dask command (python -c NO_EMX MODULE ARGS) in an environment without emx: the same
# Python with every path entry that holds the package removed (the checkout's python/,
# an editable install's .pth entry).
NO_EMX = """
import os, runpy, sys
sys.path[:] = [p for p in sys.path
               if not os.path.isfile(os.path.join(p or ".", "emx", "__init__.py"))]
try:
    import emx
    sys.exit("emx is still importable from " + emx.__file__)
except ImportError:
    pass
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""

SWEEP = ["micro.remote_read", "--quick", "--set", "clock_mhz=16,20", "--no-progress"]

try:
    import distributed  # noqa: F401
    HAVE_DASK = True
except ImportError:
    HAVE_DASK = False


def sweep(out, *args, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"))
    return subprocess.run([sys.executable, "-m", "emx.sweep", *SWEEP, "--out", out, *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


@unittest.skipUnless(HAVE_DASK, "dask.distributed is not installed")
class Cluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="emx-cluster-")
        local = sweep(os.path.join(cls.tmp, "local"), "--jobs", "2")
        assert local.returncode == 0, local.stderr
        with open(os.path.join(cls.tmp, "local", "sweep-micro.remote_read.csv")) as f:
            cls.local_table = f.read()

    def setUp(self):
        self.procs, self.logs = [], []
        self.dir = tempfile.mkdtemp(prefix="run-", dir=self.tmp)

    def tearDown(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for log in self.logs:
            log.close()

    def start(self, name, argv, env=None):
        log = open(os.path.join(self.dir, name + ".log"), "w")
        self.logs.append(log)
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.dir,
                             env=env or os.environ, stdin=subprocess.DEVNULL)
        self.procs.append(p)
        return p

    def dask(self, name, module, args, with_emx):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if with_emx:
            env["PYTHONPATH"] = os.path.join(TOP, "python")
            argv = [sys.executable, "-m", module] + args
        else:
            argv = [sys.executable, "-c", NO_EMX, module] + args
        return self.start(name, argv, env)

    def scheduler(self, with_emx=True) -> str:
        path = os.path.join(self.dir, "scheduler.json")
        self.dask("scheduler", "distributed.cli.dask_scheduler",
                  ["--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                   "--scheduler-file", path], with_emx)
        for _ in range(600):
            if os.path.exists(path):
                try:
                    with open(path) as f:
                        return json.load(f)["address"]
                except ValueError:
                    pass                          # being written
            time.sleep(0.1)
        self.fail("the scheduler did not start")

    def worker(self, address, name, with_emx, nanny=True):
        return self.dask(name, "distributed.cli.dask_worker",
                         [address, "--nthreads", "1", "--no-dashboard", "--name", name] +
                         ([] if nanny else ["--no-nanny"]), with_emx)

    def wait_for_workers(self, address, n):
        from distributed import Client
        with Client(address, timeout=60) as c:
            c.wait_for_workers(n, timeout=120)
            return c.run(lambda: __import__("importlib").util.find_spec("emx") is not None)

    def cluster_sweep(self, with_emx, scheduler_with_emx):
        address = self.scheduler(scheduler_with_emx)
        self.worker(address, "w1", with_emx)
        self.worker(address, "w2", with_emx)
        found = self.wait_for_workers(address, 2)
        self.assertEqual(sorted(found.values()), [with_emx, with_emx])
        r = sweep(os.path.join(self.dir, "out"), "--dask", address)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn(f"with Dask scheduler {address}", r.stdout)
        self.assertIn("4 runs, 4 simulated, 0 from the cache", r.stdout)
        with open(os.path.join(self.dir, "out", "sweep-micro.remote_read.csv")) as f:
            self.assertEqual(f.read(), self.local_table)

    def test_workers_and_scheduler_without_the_package_give_the_local_pools_table(self):
        self.cluster_sweep(with_emx=False, scheduler_with_emx=False)

    def test_workers_without_the_package_and_a_scheduler_with_it(self):
        self.cluster_sweep(with_emx=False, scheduler_with_emx=True)

    def test_workers_with_the_package_give_the_local_pools_table(self):
        self.cluster_sweep(with_emx=True, scheduler_with_emx=True)

    def test_a_worker_that_dies_fails_the_client_within_the_wait(self):
        from distributed import Client
        address = self.scheduler(with_emx=False)
        w = self.worker(address, "w1", with_emx=False, nanny=False)
        self.wait_for_workers(address, 1)
        env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"))
        p = self.start("sweep", [sys.executable, "-m", "emx.sweep", "mpi.latency", "--quick",
                                 "--set", "clock_mhz=12.5,16,20,25", "--no-progress",
                                 "--out", os.path.join(self.dir, "out"),
                                 "--dask", address, "--dask-wait", "5"], env)
        with Client(address, timeout=60) as c:          # kill it while it runs a task
            for _ in range(1200):
                if any(c.processing().values()) or p.poll() is not None:
                    break
                time.sleep(0.05)
        self.assertIsNone(p.poll(), "the sweep ended before the worker was killed")
        w.kill()
        t0 = time.monotonic()
        p.wait(timeout=90)
        with open(os.path.join(self.dir, "sweep.log")) as f:
            log = f.read()
        self.assertEqual(p.returncode, 3, log)
        self.assertLess(time.monotonic() - t0, 60)
        self.assertIn("sweep: Dask: no worker on Dask scheduler", log)
        self.assertIn("for 5 s", log)
        self.assertNotIn("Traceback", log)

    def test_a_worker_that_lacks_the_simulator_or_the_python_is_named(self):
        sys.path.insert(0, os.path.join(TOP, "python"))
        from emx.executors import ClusterError, DaskExecutor

        class Workers:                 # what two workers answer to the start-up question
            def wait_for_workers(self, n, timeout):
                pass

            def run(self, fn, emx, programs):
                here = list(sys.version_info[:2])
                return {"tcp://10.0.0.7:4000": {"python": here, "emx": False, "programs": False},
                        "tcp://10.0.0.8:4000": {"python": [3, 1], "emx": True, "programs": True},
                        "tcp://10.0.0.9:4000": {"python": here, "emx": True, "programs": True}}
        ex = DaskExecutor.__new__(DaskExecutor)
        ex.client, ex.wait, ex.name = Workers(), 5, "Dask scheduler tcp://x:8786"
        with self.assertRaises(ClusterError) as e:
            ex._check_workers()
        msg = str(e.exception)
        self.assertIn("tcp://10.0.0.7:4000 has no simulator at ", msg)
        self.assertIn("workers need the checkout and its build at the client's path", msg)
        self.assertIn("tcp://10.0.0.8:4000 runs Python 3.1, this client ", msg)
        self.assertNotIn("10.0.0.9", msg)

    def test_a_result_lost_with_its_worker_fails_the_client_within_the_wait(self):
        # The race a real cluster hits now and then: the run finished, then its worker died
        # before the client fetched the result; Dask runs it again and the fetch waits.
        sys.path.insert(0, os.path.join(TOP, "python"))
        from emx.executors import ClusterError, DaskExecutor

        class Gone:                    # the scheduler, once the last worker has died
            def nthreads(self):
                return {}

        class Rescheduled:             # a future whose result has to be computed again
            status = "pending"

            def result(self, timeout=None):
                time.sleep(0.05)
                raise TimeoutError()

        class Run:
            def describe(self):
                return "hello"
        ex = DaskExecutor.__new__(DaskExecutor)
        ex.client, ex.wait, ex.name = Gone(), 0.5, "Dask scheduler tcp://x:8786"
        ex.workers = {"tcp://10.0.0.7:4000"}
        t0 = time.monotonic()
        with self.assertRaises(ClusterError) as e:
            ex._result(Rescheduled(), Run(), None, 1)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertIn("no worker on Dask scheduler tcp://x:8786 for 0.5 s with 1 runs "
                      "unfinished", str(e.exception))

    def test_an_abandoned_fetch_leaves_no_traceback_but_other_errors_do(self):
        # Giving up a fetch leaves Dask's inner wait to end with AllExit, which asyncio
        # would print as "Task exception was never retrieved" with a traceback.
        import io
        import logging
        sys.path.insert(0, os.path.join(TOP, "python"))
        from distributed.client import AllExit
        from emx.executors import _quiet_abandoned_gathers
        _quiet_abandoned_gathers()
        log, out = logging.getLogger("asyncio"), io.StringIO()
        handler = logging.StreamHandler(out)
        log.addHandler(handler)
        try:
            for exc in (AllExit(), ValueError("a real one")):
                try:
                    raise exc
                except Exception:
                    log.error("Task exception was never retrieved", exc_info=sys.exc_info())
        finally:
            log.removeHandler(handler)
        self.assertNotIn("AllExit", out.getvalue())
        self.assertIn("ValueError: a real one", out.getvalue())
        self.assertEqual(out.getvalue().count("Task exception was never retrieved"), 1)

    def test_no_scheduler_is_named(self):
        r = sweep(os.path.join(self.dir, "out"), "--dask", "tcp://127.0.0.1:9",
                  "--dask-wait", "2")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"^sweep: Dask: no scheduler at tcp://127.0.0.1:9 \(")
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
