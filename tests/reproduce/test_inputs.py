"""Bad input to emx-sweep / emx-reproduce is one line and exit 2, never a traceback; cache
entries are checked and a bad one is run again and reported; the package's commands;
scripts/emx started several times at once."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "python"))

from emx import cache as cache_mod  # noqa: E402
from emx.cache import Cache  # noqa: E402
from emx.sim import Result  # noqa: E402


def cli(module, *args, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"))
    return subprocess.run([sys.executable, "-m", f"emx.{module}", *args, "--no-progress"],
                          capture_output=True, text=True, env=env, timeout=timeout)


class TmpDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="emx-inputs-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path


class Inputs(TmpDir):
    def refused(self, module, *args, says):
        out = [] if "--out" in args else ["--out", os.path.join(self.tmp, "out")]
        p = cli(module, *args, *out)
        self.assertEqual(p.returncode, 2, p.stderr + p.stdout)
        self.assertNotIn("Traceback", p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith(f"{module}: "), lines[0])
        self.assertIn(says, lines[0])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out", ".cache")),
                         "nothing runs on bad input")

    def spec(self, doc):
        return self.write("spec.json", json.dumps(doc))

    def test_spec_files(self):
        self.refused("sweep", "--spec", os.path.join(self.tmp, "none.json"),
                     says="none.json: no such file or directory")
        self.refused("sweep", "--spec", self.tmp, says="a directory")
        self.refused("sweep", "--spec", self.write("s.json", "{"), says="not valid JSON")
        self.refused("sweep", "--spec", self.write("deep.json", "[" * 5000 + "]" * 5000),
                     says="nested too deeply")
        self.refused("sweep", "--spec", self.spec({"experiment": "micro.match", "set": ["a"]}),
                     says="'set' must be a mapping KEY: [VALUES], not [\"a\"]")
        self.refused("sweep", "--spec", self.spec({"experiment": "micro.match",
                                                   "where": ["a"]}),
                     says="'where' must be a mapping KEY: VALUE")
        self.refused("sweep", "--spec", self.spec({"experiment": 5}),
                     says="'experiment' must be an experiment's name")
        self.refused("sweep", "--spec", self.spec({"experiment": "micro.match",
                                                   "set": {"clock_mhz": [[10, 20]]}}),
                     says="set.clock_mhz: [10, 20] is a list")
        self.refused("sweep", "--spec", self.spec({"experiment": "micro.match",
                                                   "set": {"clock_mhz": [{"a": 1}]}}),
                     says="set.clock_mhz: {\"a\": 1} is a mapping")
        self.refused("sweep", "--spec", self.spec({"experiment": "micro.match",
                                                   "pes": [0]}),
                     says="pes 0: a PE count is an integer 1..1024")

    def test_values_and_repeated_keys(self):
        deep = "[" * 5000 + "]" * 5000
        self.refused("sweep", "micro.match", "--set", f"clock_mhz={deep}",
                     says="--set clock_mhz: a value nested too deeply")
        self.refused("reproduce", "micro.match", "--set", f"clock_mhz={deep}",
                     says="--set clock_mhz: a value nested too deeply")
        self.refused("reproduce", "micro.match", "--set", "clock_mhz=[1,2]",
                     says="--set clock_mhz: [1, 2] is a list")
        self.refused("sweep", "micro.match", "--set", "clock_mhz=10", "--set", "clock_mhz=20",
                     says="--set clock_mhz is given twice")
        self.refused("reproduce", "micro.match", "--set", "clock_mhz=10",
                     "--set", "clock_mhz=20", says="--set clock_mhz is given twice")

    def test_parameter_ranges(self):
        self.refused("reproduce", "mpi.latency", "--param", "mpi.latency.iterations=-5",
                     says="parameter iterations of mpi.latency: -5 is out of range "
                          "(allowed: > 0)")
        self.refused("sweep", "mpi.latency", "--param", "iterations=10,0",
                     says="parameter iterations of mpi.latency: 0 is out of range")
        self.refused("sweep", "mpi.latency", "--param", "iterations=2.5",
                     says="2.5 is not an integer")
        self.refused("sweep", "radix.breakdown", "--param", "pes=2000",
                     says="parameter pes of radix.breakdown: 2000 is out of range "
                          "(allowed: 1..1024)")

    def test_outputs_names_and_caches(self):
        afile = self.write("afile", "")
        self.refused("sweep", "micro.match", "--set", "clock_mhz=10", "--out",
                     os.path.join(afile, "x"), says="cannot create the directory")
        self.refused("reproduce", "micro.match", "--out", os.path.join(afile, "x"),
                     says="cannot create the directory")
        self.refused("sweep", "micro.match", "--set", "clock_mhz=10", "--cache", afile,
                     says=f"--cache {afile}: exists and is not a directory")
        self.refused("sweep", "micro.match", "--set", "clock_mhz=10", "--name", "../../evil",
                     says="--name ../../evil: must be a plain file name")
        self.assertEqual(glob.glob(os.path.join(os.path.dirname(self.tmp), "evil*")), [])


def a_result(**kw):
    return Result(**{"status": 0, "outcome": "exited", "stdout": "hi\n", "stderr": "",
                     "simulated_time_ns": 1000.0, "cycles": 16, "instructions": 10,
                     "host_seconds": 0.01, "records": [{"name": "x", "value": 3}],
                     "config": {"clock_mhz": 16}, "stats": {}, "command": ["emx"], **kw})


class CacheEntries(TmpDir):
    KEY = "ab" + "0" * 62

    def setUp(self):
        super().setUp()
        self.cache = Cache(os.path.join(self.tmp, "c"))
        self.path = os.path.join(self.tmp, "c", "ab", self.KEY + ".json")

    def bad(self, why):
        self.assertIsNone(self.cache.get(self.KEY))
        self.assertEqual(len(self.cache.bad), 1)
        self.assertEqual(self.cache.bad[0][0], self.path)
        self.assertIn(why, self.cache.bad[0][1])

    def test_a_good_entry_reads_back(self):
        self.cache.put(self.KEY, a_result())
        self.assertEqual(self.cache.get(self.KEY), a_result())
        self.assertEqual(self.cache.bad, [])

    def test_an_entry_as_put_is_checked_without_encoding_it_again(self):
        """The checksum is of the text put() wrote: hashed as read, not re-encoded from the
        parsed result (a third of a cached reproduction's reading). An entry laid out
        otherwise, its values unchanged, still reads back, checked the long way."""
        from unittest import mock
        self.cache.put(self.KEY, a_result())
        with mock.patch.object(cache_mod, "_canonical", wraps=cache_mod._canonical) as enc:
            self.assertEqual(self.cache.get(self.KEY), a_result())
            self.assertEqual(enc.call_count, 0)
            with open(self.path) as f:
                doc = json.load(f)
            with open(self.path, "w") as f:
                json.dump(doc, f, indent=2)
            self.assertEqual(self.cache.get(self.KEY), a_result())
            self.assertEqual(enc.call_count, 1)
        self.assertEqual(self.cache.bad, [])

    def test_an_edited_value_is_bad(self):
        self.cache.put(self.KEY, a_result())
        with open(self.path) as f:
            doc = json.load(f)
        doc["result"]["cycles"] = 17
        with open(self.path, "w") as f:
            json.dump(doc, f)
        self.bad("checksum does not match")

    def test_wrong_types_with_a_right_checksum_are_bad(self):
        body = a_result().to_json()
        body["cycles"] = "16"
        with open(self._mkdir(), "w") as f:
            json.dump({"format": 1, "sha256": cache_mod._digest(body), "result": body}, f)
        self.bad("field cycles has the wrong type")

    def test_an_old_entry_is_bad(self):
        with open(self._mkdir(), "w") as f:
            json.dump(a_result().to_json(), f)
        self.bad("not an entry of format 1")

    def test_a_link_to_dev_zero_is_bad_and_not_read(self):
        os.symlink("/dev/zero", self._mkdir())
        self.bad("a symbolic link")

    def test_a_directory_is_bad_and_is_replaced(self):
        os.makedirs(os.path.join(self._mkdir(), "sub"))
        self.bad("a directory")
        self.cache.put(self.KEY, a_result())
        self.assertEqual(self.cache.get(self.KEY), a_result())

    def test_a_bad_entry_is_run_again_and_reported(self):
        out, c = os.path.join(self.tmp, "o"), os.path.join(self.tmp, "sc")
        args = ("sweep", "micro.match", "--quick", "--set", "clock_mhz=10", "--out", out,
                "--cache", c)
        first = cli(*args)
        self.assertEqual(first.returncode, 0, first.stderr)
        entry = sorted(glob.glob(os.path.join(c, "*", "*.json")))[0]
        with open(entry) as f:
            doc = json.load(f)
        doc["result"]["records"] = []
        with open(entry, "w") as f:
            json.dump(doc, f)
        again = cli(*args)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn(f"cache: bad entry {entry} (its checksum does not match", again.stderr)
        self.assertIn("1 simulated, 1 from the cache (1 bad cache entries run again)",
                      again.stdout)
        with open(os.path.join(out, "sweep-micro.match.csv")) as f:
            rows = f.read()
        self.assertEqual(len(rows.strip().splitlines()), 3, rows)   # both machines again

    def _mkdir(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        return self.path


class Package(unittest.TestCase):
    """The commands pip installs (pyproject.toml), in the environment of this python."""

    def setUp(self):
        self.bin = os.path.dirname(sys.executable)
        if not os.path.exists(os.path.join(self.bin, "emx-sweep")):
            self.skipTest(f"the emx package is not installed in {sys.prefix}")

    def test_the_commands_are_on_the_environments_path(self):
        p = subprocess.run([os.path.join(self.bin, "emx-reproduce"), "--list"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("mpi.latency", p.stdout)
        p = subprocess.run([os.path.join(self.bin, "emx-sweep"), "micro.nothing"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual((p.returncode, p.stderr.split(";")[0]),
                         (2, "sweep: no experiment 'micro.nothing'"))

    def test_emx_is_the_checkouts_simulator(self):
        env = dict(os.environ)
        env.pop("EMX", None)                  # through scripts/emx of the checkout
        p = subprocess.run([os.path.join(self.bin, "emx"), "run", "--pes", "1", "hello"],
                           capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("hello", p.stdout.lower())
        self.assertIn("simulated", p.stderr)


class SetupConcurrency(unittest.TestCase):
    """scripts/emx checks the set-up on every call: read-only when nothing changed, the
    same whichever python3 is first on PATH, and safe when runs start together."""

    def setUp(self):
        self.env = dict(os.environ)
        self.env.pop("EMX", None)
        subprocess.run([os.path.join(TOP, "scripts", "setup"), "--quiet"], check=True,
                       env=self.env, timeout=1800)
        self.stamp = os.path.join(TOP, "build", ".setup-stamp")

    def state(self):
        st = os.stat(self.stamp)
        return st.st_mtime_ns, st.st_ino, sorted(glob.glob(self.stamp + ".*"))

    def test_several_runs_at_once(self):
        before = self.state()
        runs = [subprocess.Popen([os.path.join(TOP, "scripts", "emx"), "run", "--pes", "1",
                                  "hello"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=self.env) for _ in range(6)]
        for p in runs:
            out, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
            self.assertIn("hello", out.lower())
        self.assertEqual(self.state(), before)       # nothing was rewritten

    def test_another_python3_first_on_path_changes_nothing(self):
        before = self.state()
        shim = tempfile.mkdtemp(prefix="emx-shim-")
        try:
            os.symlink(sys.executable, os.path.join(shim, "python3"))
            env = dict(self.env, PATH=shim + os.pathsep + self.env.get("PATH", ""))
            subprocess.run([os.path.join(TOP, "scripts", "setup"), "--quiet"], check=True,
                           env=env, timeout=300)
        finally:
            shutil.rmtree(shim)
        self.assertEqual(self.state(), before)


if __name__ == "__main__":
    unittest.main()
