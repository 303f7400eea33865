"""The experiment layer (python/emx): running, declaring, caching, executing, reporting
and sweeping. The runs are small; the simulated values asserted are deterministic."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "python"))

from emx import registry, sim  # noqa: E402
from emx.cache import Cache  # noqa: E402
from emx.executors import DaskExecutor, LocalExecutor  # noqa: E402
from emx.experiment import Experiment, Point, Published, Run  # noqa: E402
from emx.runner import Runner, run_experiments  # noqa: E402
from emx.server import Server  # noqa: E402


def cli(module, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"))
    return subprocess.run([sys.executable, "-m", f"emx.{module}", *args, "--no-progress"],
                          capture_output=True, text=True, env=env, timeout=600)


class TmpDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="emx-layer-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class SimRun(unittest.TestCase):
    def test_a_clean_run_is_parsed(self):
        r = sim.run("hello", pes=2)
        self.assertTrue(r.ok)
        self.assertEqual((r.status, r.outcome), (0, "exited"))
        self.assertGreater(r.instructions, 0)
        self.assertAlmostEqual(r.simulated_time_ns, r.cycles * 1e3 / r.clock_mhz, delta=1e3 / r.clock_mhz)
        self.assertEqual(sorted(r.pe), [0, 1])
        self.assertEqual(r.fault, "")

    def test_a_fault_is_reported_not_raised(self):
        r = sim.run("fault_null", pes=2)
        self.assertFalse(r.ok)
        self.assertEqual((r.status, r.outcome), (70, "fault"))
        self.assertIn("store outside local memory", r.fault)
        self.assertIn("PE 0", r.fault)
        with self.assertRaisesRegex(RuntimeError, "null-pointer guard"):
            r.check()

    def test_a_program_exit_status_is_the_programs_with_its_output(self):
        r = sim.run("radix_seq", (1000, 3, 1), pes=1)
        self.assertFalse(r.ok)
        self.assertEqual(r.outcome, "exited")
        self.assertTrue(r.fault.startswith(f"the program exited with status {r.status}:"), r.fault)
        self.assertIn("radix", r.fault)              # the program's own message

    def test_a_bad_key_names_what_is_allowed(self):
        r = sim.run("hello", set={"foo": 1})
        self.assertEqual(r.status, 64)
        self.assertIn("unknown key; allowed here", r.fault)

    def test_series_keeps_the_order_of_records(self):
        r = sim.run("mpi_throughput", ("raw", 64, 128), pes=2).check()
        self.assertEqual(r.series("bytes"), [64, 128])
        self.assertEqual(len(r.series("mbps")), 2)


class Served(unittest.TestCase):
    """emx serve (python/emx/server.py): a run in a copy forked from the server gives what
    its own process gives, byte for byte, failures and time-outs included."""

    @staticmethod
    def comparable(r):
        d = r.to_json()
        for k in ("host_seconds", "host_cpu_seconds", "command"):
            d.pop(k)
        return d

    def test_runs_give_what_their_own_process_gives(self):
        server = Server(sim.binary())
        try:
            for program, args, kw in (("hello", (), {"pes": 2}),
                                      ("fault_null", (), {"pes": 2}),
                                      ("radix_seq", (1000, 3, 1), {"pes": 1}),
                                      ("hello", (), {"set": {"foo": 1}}),
                                      ("nope", (), {}),
                                      ("mpi_throughput", ("raw", 64, 128), {"pes": 2})):
                alone = sim.run(program, args, **kw)
                served = sim.run(program, args, server=server, **kw)
                self.assertEqual(self.comparable(served), self.comparable(alone), program)
                self.assertNotEqual(alone.status, -1)
            self.assertIn("hello", sim.run("hello", pes=2, server=server).stdout.lower())
        finally:
            server.close()
        self.assertEqual(server.proc.returncode, 0)   # ended by the closed socket

    def test_a_time_out_kills_the_copy_and_the_server_goes_on(self):
        server = Server(sim.binary())
        try:
            r = sim.run("radix_fine", (1 << 20, 64, 1), pes=64, timeout=0.2, server=server)
            self.assertEqual((r.status, r.outcome), (-1, "host timeout"))
            self.assertTrue(sim.run("hello", pes=2, server=server).ok)
        finally:
            server.close()

    def test_a_binary_without_serve_falls_back_to_its_own_process(self):
        d = tempfile.mkdtemp(prefix="emx-serve-")
        try:
            fake = os.path.join(d, "emx")
            with open(fake, "w") as f:   # refuses `serve` as an emx without it does
                f.write(f"#!/bin/sh\n[ \"$1\" = serve ] && exit 64\nexec {sim.binary()} \"$@\"\n")
            os.chmod(fake, 0o755)
            server = Server(fake)
            r = sim.run("hello", pes=2, server=server)
            self.assertTrue(r.ok)
            self.assertTrue(server.gone)
            self.assertTrue(sim.run("hello", pes=2, server=server).ok)
            server.close()
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_bad_requests_are_refused_and_the_server_goes_on(self):
        server = Server(sim.binary())
        try:
            server.sock.send(b"no descriptors")
            self.assertTrue(server._reply(10).startswith("error:"))
            self.assertTrue(sim.run("hello", pes=2, server=server).ok)
        finally:
            server.close()


class Declarations(unittest.TestCase):
    def test_unknown_experiment_lists_the_known(self):
        with self.assertRaisesRegex(ValueError, "no experiment 'nope'; there are: .*mpi.latency"):
            registry.select(["nope"])

    def test_names_papers_and_globs_select(self):
        self.assertEqual([e.name for e in registry.select(["micro.*"])],
                         ["micro.remote_read", "micro.remote_write", "micro.block_read", "micro.invoke",
                          "micro.suspend", "micro.match"])
        self.assertIn("mpi.latency", [e.name for e in registry.select(["mpi"])])

    def test_unknown_parameter_is_refused(self):
        e = registry.select(["mpi.latency"])[0]
        with self.assertRaisesRegex(ValueError, r"no parameter x \(its parameters: iterations, options\)"):
            e.options(params={"x": 1})
        self.assertEqual(e.options(params={"iterations": "7"}).params["iterations"], 7)

    def test_every_declared_run_names_a_built_program(self):
        for e in registry.all_experiments().values():
            for quick in (True, False):
                pts = e.points(e.options(quick))
                self.assertTrue(pts, e.name)
                for p in pts:
                    self.assertTrue(os.path.exists(sim.program_path(p.run.program)),
                                    f"{e.name}: {p.run.program}")

    def test_runs_of_one_measurement_are_declared_once(self):
        """The experiments that reuse another's measurements declare the very same runs
        (program, arguments, config), so that a reproduction simulates them once: the
        radix model fits radix.parallel's and radix.scalability's sorts, the delay model
        predicts delay.patterns' schedules, the delta sweep and the breakdown include a
        point of the patterns and of the parallel sorts."""
        from emx.runner import plan
        every = registry.all_experiments()

        def runs(name, quick):
            return {p.run for p in plan(every[name], quick)}
        for quick in (False, True):
            sorts = runs("radix.parallel", quick) | runs("radix.scalability", quick)
            self.assertLessEqual(runs("radix.model", quick), sorts)
            self.assertEqual(len(runs("radix.breakdown", quick) & sorts), 2)  # EM-X, EM-4
            cases = {p.run for p in plan(every["delay.model"], quick)
                     if p.params["kind"] == "case"}
            self.assertTrue(cases)
            self.assertLessEqual(cases, runs("delay.patterns", quick))
            self.assertTrue(runs("delay.delta", quick) & runs("delay.patterns", quick))


def _match_experiment(published=()):
    def runs(opt):
        yield Point({"case": "good"}, Run("micro_match", pes=2))
        yield Point({"case": "faults"}, Run("fault_null", pes=2))

    def figures(params, r):
        return {"invoke1": r.results["invoke1_self_cycles"]}
    return Experiment("test.match", "test", "test", runs, figures, published=published)


class RunnerAndCache(TmpDir):
    def test_second_run_comes_from_the_cache_and_force_runs_again(self):
        exp = registry.select(["micro.match"])
        first = run_experiments(exp, Runner(LocalExecutor(2), Cache(self.tmp), False), quick=True)[0]
        again = run_experiments(exp, Runner(LocalExecutor(2), Cache(self.tmp), False), quick=True)[0]
        forced = run_experiments(exp, Runner(LocalExecutor(2), Cache(self.tmp, read=False), False),
                                 quick=True)[0]
        self.assertEqual(first.cached, [False, False])
        self.assertEqual(again.cached, [True, True])
        self.assertEqual(forced.cached, [False, False])
        self.assertTrue(first.table.equals(again.table))
        self.assertTrue(first.table.equals(forced.table))

    def test_force_stores_under_the_keys_the_next_reproduction_looks_up(self):
        """With --force a result is stored under a key made from the config the run
        reported, without asking emx for it: the same key a cache that is read makes."""
        from unittest import mock
        from emx import cache as cache_mod
        exp = registry.select(["micro.match"])
        with mock.patch.object(cache_mod, "effective_config",
                               wraps=cache_mod.effective_config) as asked:
            forced = run_experiments(exp, Runner(LocalExecutor(2), Cache(self.tmp, read=False),
                                                 False), quick=True)[0]
            self.assertEqual(asked.call_count, 0)
            cache_mod._configs.clear()          # (remembered from other tests)
            # A cache that is read asks for the configs through one `emx serve`, not a
            # process each.
            with mock.patch.object(sim.subprocess, "run", wraps=sim.subprocess.run) as started:
                again = run_experiments(exp, Runner(LocalExecutor(2), Cache(self.tmp), False),
                                        quick=True)[0]
            self.assertGreater(asked.call_count, 0)
            self.assertEqual([c for c in started.call_args_list if "config" in c.args[0]], [])
        self.assertEqual(forced.cached, [False, False])
        self.assertEqual(again.cached, [True, True])
        self.assertTrue(forced.table.equals(again.table))

    def test_the_key_sees_config_arguments_and_program(self):
        from emx.cache import key
        base = Run("micro_match", pes=2)
        keys = {key(base), key(base.with_overrides(set={"clock_mhz": 20})),
                key(Run("micro_match", ("x",), pes=2)), key(Run("micro_invoke", pes=2))}
        self.assertEqual(len(keys), 4)
        self.assertEqual(key(base), key(Run("micro_match", pes=2, set={})))

    def test_a_failing_run_is_reported_and_the_rest_goes_on(self):
        o = run_experiments([_match_experiment()], Runner(LocalExecutor(2), None, False))[0]
        self.assertEqual(list(o.table["case"]), ["good"])
        self.assertEqual(len(o.failures), 1)
        self.assertEqual(o.failures[0]["params"], {"case": "faults"})
        self.assertIn("store outside local memory", o.failures[0]["fault"])

    def test_published_values_are_compared(self):
        exp = _match_experiment([Published("invoke1", 10.0, {"case": "good"}, "made up")])
        o = run_experiments([exp], Runner(LocalExecutor(1), None, False))[0]
        c = o.comparison.iloc[0]
        sim_v = float(o.table["invoke1"].iloc[0])
        self.assertEqual(c["simulated"], sim_v)
        self.assertAlmostEqual(c["diff_%"], 100 * (sim_v - 10) / 10)

    def test_dask_local_cluster_gives_the_same_table(self):
        exp = registry.select(["micro.match"])
        local = run_experiments(exp, Runner(LocalExecutor(2), None, False), quick=True)[0]
        dask = DaskExecutor("local", 2)
        try:
            remote = run_experiments(exp, Runner(dask, None, False), quick=True)[0]
        finally:
            dask.close()
        self.assertTrue(local.table.equals(remote.table))


class _Recording:
    """An executor that simulates nothing: it records the runs in the order it is given
    them and answers each with a clean result whose host CPU time is `cpu[args[0]]`."""

    def __init__(self, cpu=None):
        self.started, self.cpu, self.name = [], cpu or {}, "recording"

    def map(self, tagged_runs):
        for tag, run in tagged_runs:
            self.started.append(run)
            yield tag, sim.Result(status=0, outcome="exited", stdout="", stderr="",
                                  host_cpu_seconds=self.cpu.get(run.args[0], 0.0),
                                  records=[{"name": "case", "value": run.args[0]}])


def _cases_experiment(name, cases):
    """An experiment of runs that differ only in their first argument (no simulation)."""
    return Experiment(name, "test", "test",
                      lambda opt: (Point({"case": c}, Run("micro_match", (c,), pes=2))
                                   for c in cases),
                      lambda params, r: {"arg": r.results["case"]})


class Scheduling(TmpDir):
    def test_a_run_shared_by_experiments_is_simulated_once(self):
        ex = _Recording()
        runner = Runner(ex, Cache(self.tmp, read=False), False)
        a, b = run_experiments([_cases_experiment("test.a", ["x", "y"]),
                                _cases_experiment("test.b", ["y", "z"])], runner)
        self.assertEqual(sorted(r.args[0] for r in ex.started), ["x", "y", "z"])
        self.assertEqual(list(a.table["arg"]), ["x", "y"])
        self.assertEqual(list(b.table["arg"]), ["y", "z"])
        self.assertIn("4 runs (3 distinct: 1 are shared", runner.summary(0))

    def test_an_experiment_is_tabulated_as_soon_as_its_runs_are_done(self):
        """While the other experiments' runs go on (after the runs, one core would do it
        alone); the tables are those of tabulating after all the runs."""
        ex = _Recording()
        seen = []                               # runs started when test.a was tabulated
        a_exp = _cases_experiment("test.a", ["x", "y"])
        a_exp.derive = lambda t: (seen.append(len(ex.started)), t)[1]
        a, b = run_experiments([a_exp, _cases_experiment("test.b", ["y", "z", "w"])],
                               Runner(ex, Cache(self.tmp, read=False), False))
        self.assertEqual(seen, [2])             # x and y done, z and w not yet started
        self.assertEqual(list(a.table["arg"]), ["x", "y"])
        self.assertEqual(list(b.table["arg"]), ["y", "z", "w"])

    def test_tables_from_the_cache_wait_for_the_end(self):
        """Made before the first simulation, they would delay it: an experiment whose runs
        all come from the cache is tabulated after the runs, one completed by a simulated
        run at once."""
        run_experiments([_cases_experiment("test.a", ["x", "y"])],
                        Runner(_Recording(), Cache(self.tmp), False))
        ex, seen = _Recording(), {}
        a_exp, b_exp = _cases_experiment("test.a", ["x", "y"]), _cases_experiment("test.b", ["z"])
        for e in (a_exp, b_exp):
            e.derive = lambda t, name=e.name: (seen.setdefault(name, len(seen)), t)[1]
        a, b = run_experiments([a_exp, b_exp], Runner(ex, Cache(self.tmp), False))
        self.assertEqual([r.args[0] for r in ex.started], ["z"])
        self.assertEqual(seen, {"test.b": 0, "test.a": 1})   # b as z ended, a after
        self.assertEqual(list(a.table["arg"]), ["x", "y"])

    def test_meanwhile_runs_once_at_the_first_simulated_result(self):
        """Work to do while the runs go on (scripts/reproduce imports pyplot there):
        called once, when the first simulation ends, not for results from the cache
        (they come before the first simulation starts), and not at all when every run
        comes from the cache. A failing one costs nothing (its caller does it again)."""
        run_experiments([_cases_experiment("test.a", ["x", "y"])],
                        Runner(_Recording(), Cache(self.tmp), False))
        ex, calls = _Recording(), []
        run_experiments([_cases_experiment("test.a", ["x", "y", "z", "w"])],
                        Runner(ex, Cache(self.tmp), False),
                        meanwhile=lambda: calls.append([r.args[0] for r in ex.started]))
        self.assertEqual(calls, [["z"]])        # after z, the first simulated, before w
        calls.clear()
        run_experiments([_cases_experiment("test.a", ["x", "y"])],
                        Runner(_Recording(), Cache(self.tmp), False),
                        meanwhile=lambda: calls.append("called"))
        self.assertEqual(calls, [])

        def fails():
            calls.append("failed")
            raise RuntimeError("no plotting here")
        o = run_experiments([_cases_experiment("test.b", ["u", "v"])],
                            Runner(_Recording(), Cache(self.tmp), False), meanwhile=fails)[0]
        self.assertEqual(calls, ["failed"])
        self.assertEqual(list(o.table["arg"]), ["u", "v"])

    def test_force_keys_each_result_as_it_comes(self):
        """A cache that is not read (--force) needs a run's key only to store its result:
        no key (an `emx config --show` per config) delays the first run. A result that
        reports no config (these) is keyed by asking emx, and read back as well."""
        ex = _Recording()
        runner = Runner(ex, Cache(self.tmp, read=False), False)
        keyed, key = [], runner._key
        runner._key = lambda *a: (keyed.append(len(ex.started)), key(*a))[1]
        exp = [_cases_experiment("test.a", ["x", "y"])]
        run_experiments(exp, runner)
        self.assertEqual(keyed, [1, 2])         # each after its own run, none before
        again = _Recording()
        o = run_experiments(exp, Runner(again, Cache(self.tmp), False))[0]
        self.assertEqual(again.started, [])
        self.assertEqual(o.cached, [True, True])
        self.assertEqual(list(o.table["arg"]), ["x", "y"])

    def test_a_table_that_fails_early_fails_after_the_runs_as_before(self):
        ex = _Recording()
        bad = _cases_experiment("test.a", ["x"])
        bad.derive = lambda t: 1 / 0
        with self.assertRaises(ZeroDivisionError):
            run_experiments([bad, _cases_experiment("test.b", ["y", "z"])],
                            Runner(ex, Cache(self.tmp, read=False), False))
        self.assertEqual(sorted(r.args[0] for r in ex.started), ["x", "y", "z"])

    def test_runs_start_longest_first_after_those_never_timed(self):
        exp = [_cases_experiment("test.a", ["a", "b", "c", "d", "e"])]
        first = _Recording({"a": 1.0, "b": 30.0, "c": 0.5, "d": 7.0})
        run_experiments(exp, Runner(first, Cache(self.tmp, read=False), False))
        self.assertEqual([r.args[0] for r in first.started], list("abcde"))   # declared
        again = _Recording(first.cpu)           # --force reads no result, but the costs
        run_experiments(exp, Runner(again, Cache(self.tmp, read=False), False))
        self.assertEqual([r.args[0] for r in again.started], list("bdace"))
        # A run never timed (new) starts first; the rest longest first.
        new = _Recording(first.cpu)
        run_experiments([_cases_experiment("test.a", ["a", "b", "c", "d", "e", "f"])],
                        Runner(new, Cache(self.tmp, read=False), False))
        self.assertEqual([r.args[0] for r in new.started], list("fbdace"))

    def test_a_damaged_costs_file_costs_only_the_order(self):
        exp = [_cases_experiment("test.a", ["a", "b", "c"])]
        for content in (b"{not json", b'["a list"]', b'{"x": "text", "y": -1}'):
            with open(os.path.join(self.tmp, "costs.json"), "wb") as f:
                f.write(content)
            ex = _Recording({"a": 1.0, "b": 2.0, "c": 3.0})
            o = run_experiments(exp, Runner(ex, Cache(self.tmp, read=False), False))[0]
            self.assertEqual([r.args[0] for r in ex.started], ["a", "b", "c"])
            self.assertEqual(list(o.table["arg"]), ["a", "b", "c"])
            with open(os.path.join(self.tmp, "costs.json")) as f:
                self.assertEqual(sorted(json.load(f).values()), [1.0, 2.0, 3.0])

    def test_the_costs_are_the_simulations_cpu_seconds(self):
        exp = registry.select(["micro.match"])
        cache = Cache(self.tmp)
        o = run_experiments(exp, Runner(LocalExecutor(2), cache, False), quick=True)[0]
        from emx.cache import run_id
        want = {run_id(p.run): r.host_cpu_seconds for p, r in zip(o.points, o.results)}
        self.assertEqual(cache.costs(), want)
        self.assertTrue(all(v > 0 for v in want.values()))
        # Taken from the cache, a run's cost is its entry's: a cache filled before there
        # was a costs file gives the order to the next --force.
        os.unlink(os.path.join(self.tmp, "costs.json"))
        again = run_experiments(exp, Runner(LocalExecutor(2), cache, False), quick=True)[0]
        self.assertEqual(again.cached, [True, True])
        self.assertEqual(cache.costs(), want)


class Reproduce(TmpDir):
    def test_quick_reproduction_writes_tables_figures_and_report(self):
        p = cli("reproduce", "micro.match", "mpi.latency", "--quick", "--out", self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertIn("-- beside the published figures", p.stdout)
        for name in ("micro.match", "mpi.latency"):
            for ext in ("json", "csv", "png"):
                self.assertTrue(os.path.getsize(os.path.join(self.tmp, f"{name}.{ext}")) > 0)
        with open(os.path.join(self.tmp, "mpi.latency.json")) as f:
            doc = json.load(f)
        self.assertEqual(len(doc["runs"]), 24)
        # The 19 values of the paper's Table 1: one-way latency naive and in advance, and
        # the pre-issue cost, for each variant at 4 B, and in advance at 0 B.
        self.assertEqual(len(doc["published"]), 19)
        self.assertEqual({p["where"] for p in doc["published"]},
                         {f"matching={m}, protocol={q}, bytes=4, mode={mode}"
                          for m in ("both", "receiver") for q in ("buffered", "get", "sync")
                          for mode in ("naive", "advance")}
                         | {"matching=both, mode=advance, bytes=0"})
        # Receives in advance, both sides: the sender always hits, so the protocol does
        # not matter (the paper: all three coincide).
        adv = [r for r in doc["rows"] if r["matching"] == "both" and r["mode"] == "advance"
               and r["bytes"] == 4]
        self.assertEqual(len({r["oneway_cycles"] for r in adv}), 1)
        # The table holds what the program reports when run alone.
        direct = sim.run("mpi_pingpong", ("advance", 4, 20, "-mpi-matching=both",
                                          "-mpi-protocol=get"), config="emx80-16mhz").check()
        self.assertEqual(adv[0]["oneway_cycles"], direct.results["oneway_cycles"])
        with open(os.path.join(self.tmp, "report.html")) as f:
            page = f.read()
        self.assertIn('id="mpi.latency"', page)
        self.assertIn("data:image/png;base64,", page)
        self.assertNotIn("src=\"http", page)     # self-contained: opens offline

    def test_list_and_bad_names(self):
        p = cli("reproduce", "--list")
        self.assertEqual(p.returncode, 0)
        self.assertIn("mpi.throughput", p.stdout)
        p = cli("reproduce", "radix.nothing")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no experiment 'radix.nothing'; there are:", p.stderr)
        p = cli("reproduce", "micro.match", "--set", "network.topology=xx")
        self.assertEqual(p.returncode, 2)
        self.assertIn("must be one of: circular_omega", p.stderr)

    @unittest.skipUnless(shutil.which("chromium"), "no headless Chromium on this machine")
    def test_the_report_renders_in_a_browser(self):
        p = cli("reproduce", "micro.match", "--quick", "--out", self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        shot = os.path.join(self.tmp, "shot.png")
        subprocess.run(["python3", os.path.join(TOP, "scripts", "screenshot"),
                        os.path.join(self.tmp, "report.html"), shot], check=True, timeout=120)
        self.assertGreater(os.path.getsize(shot), 20000)   # a page with a figure, not blank


class Sweep(TmpDir):
    def test_grid_over_config_and_pes(self):
        p = cli("sweep", "micro.remote_read", "--quick", "--set", "clock_mhz=10,20",
                "--pes", "4,8", "--out", self.tmp, "--cache", os.path.join(self.tmp, "c"))
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        import pandas as pd
        t = pd.read_parquet(os.path.join(self.tmp, "sweep-micro.remote_read.parquet"))
        self.assertEqual(len(t), 2 * 2 * 2)            # clocks x PE counts x machines (quick)
        self.assertTrue({"clock_mhz", "pes", "machine", "mean_us"} <= set(t.columns))
        for (pes, m), g in t.groupby(["pes", "machine"]):
            us = dict(zip(g["clock_mhz"], g["mean_us"]))
            cyc = dict(zip(g["clock_mhz"], g["mean_cycles"]))
            self.assertEqual(cyc[10], cyc[20])          # clocks do not depend on the clock rate
            self.assertAlmostEqual(us[10], 2 * us[20])
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "sweep-micro.remote_read.png")))
        again = cli("sweep", "micro.remote_read", "--quick", "--set", "clock_mhz=10,20",
                    "--pes", "4,8", "--out", self.tmp, "--cache", os.path.join(self.tmp, "c"))
        self.assertIn("8 runs, 0 simulated, 8 from the cache, 0 failed", again.stdout)  # a resume runs nothing

    def test_a_failing_point_is_reported_and_the_rest_goes_on(self):
        p = cli("sweep", "micro.match", "--quick", "--set", "sim.max_cycles=50,100000000",
                "--out", self.tmp)
        self.assertEqual(p.returncode, 1)
        self.assertIn("!! failed:", p.stdout)
        self.assertIn("cycle limit", p.stdout)
        with open(os.path.join(self.tmp, "sweep-micro.match.json")) as f:
            doc = json.load(f)
        self.assertEqual({r["sim.max_cycles"] for r in doc["rows"]}, {100000000})
        self.assertEqual(len(doc["failures"]), 2)

    def test_spec_file_list_mode_and_dask(self):
        spec = os.path.join(self.tmp, "s.yaml")
        with open(spec, "w") as f:
            f.write("experiment: micro.invoke\nquick: true\nmode: list\n"
                    "set:\n  clock_mhz: [10, 20]\n  network.routing_clocks: [1, 3]\n")
        local = cli("sweep", "--spec", spec, "--out", os.path.join(self.tmp, "a"))
        dask = cli("sweep", "--spec", spec, "--dask", "local", "--out", os.path.join(self.tmp, "b"))
        self.assertEqual(local.returncode, 0, local.stderr)
        self.assertEqual(dask.returncode, 0, dask.stderr)
        self.assertIn("Dask LocalCluster", dask.stdout)
        with open(os.path.join(self.tmp, "a", "sweep-micro.invoke.csv")) as f:
            a = f.read()
        with open(os.path.join(self.tmp, "b", "sweep-micro.invoke.csv")) as f:
            b = f.read()
        self.assertEqual(a, b)
        self.assertEqual(len(a.strip().splitlines()), 1 + 2 * 2)   # 2 points x 2 machines
        # Slower routing: longer round trips (an effect of the mechanism, not of the clock).
        import pandas as pd
        t = pd.read_csv(os.path.join(self.tmp, "a", "sweep-micro.invoke.csv"))
        for m, g in t.groupby("machine"):
            slow = g[g["network.routing_clocks"] == 3]["mean_cycles"].iloc[0]
            fast = g[g["network.routing_clocks"] == 1]["mean_cycles"].iloc[0]
            self.assertGreater(slow, fast)

    def test_bad_sweeps_say_why(self):
        p = cli("sweep", "micro.match", "--list-mode", "--set", "clock_mhz=10,20",
                "--pes", "2,4,8", "--out", self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("same number of values on every axis", p.stderr)
        p = cli("sweep", "micro.match", "--set", "network.topology=circular_omega,xx",
                "--out", self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("must be one of", p.stderr)
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"experiment": "micro.match", "grid": {}}')
        p = cli("sweep", "--spec", bad, "--out", self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad.json: unknown key grid", p.stderr)


if __name__ == "__main__":
    unittest.main()
