"""Statistics explained (docs/stats.md) and the command line's surprises: every field of
--stats has a unit and meaning generated from the code that writes it, --stats-text lists
them flat, emx options after the program get a warning, the summary's host time has
digits that mean something, PE threads count main."""
import json
import os
import re
import tempfile
import unittest

from test_cli import SOURCE, elf, emx


def documented():
    """path -> (unit, meaning), from emx stats --doc."""
    doc = emx("stats", "--doc").stdout
    return {p: (u, m) for p, u, m in re.findall(r"^\| `([^`]+)` \| ([^|]*) \| ([^|]*) \|$", doc, re.M)}


def generic_paths(node, path=""):
    """The paths of a --stats JSON's leaves as docs/stats.md writes them (N, [])."""
    if path == "config":
        return {path}
    if isinstance(node, dict):
        out = set()
        for k, v in node.items():
            sub = path + ".N" if path == "stats.pe" else (f"{path}.{k}" if path else k)
            out |= generic_paths(v, sub)
        return out
    if isinstance(node, list):
        out = set()
        for v in node:
            out |= generic_paths(v, path + "[]")
        return out
    return {path}


def flat(node, path=""):
    """name -> value of the --stats-text listing (indexes for list elements)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if not (path == "" and k == "config"):
                out.update(flat(v, f"{path}.{k}" if path else k))
        return out
    if isinstance(node, list):
        out = {}
        for i, v in enumerate(node):
            out.update(flat(v, f"{path}.{i}"))
        return out
    return {path: node}


def run_with_stats(*args):
    with tempfile.TemporaryDirectory() as d:
        js, txt = os.path.join(d, "s.json"), os.path.join(d, "s.txt")
        r = emx("run", "-q", "--stats", js, "--stats-text", txt, *args)
        with open(js) as f:
            s = json.load(f)
        with open(txt) as f:
            t = f.read()
    return r, s, t


class Documentation(unittest.TestCase):
    def test_committed_stats_doc_is_current(self):
        with open(os.path.join(SOURCE, "docs", "stats.md")) as f:
            self.assertEqual(f.read(), emx("stats", "--doc").stdout,
                             "docs/stats.md is stale: regenerate with `emx stats --doc`")

    def test_every_field_written_is_documented_and_every_documented_one_written(self):
        docs = documented()
        for path, (unit, meaning) in docs.items():
            self.assertTrue(unit.strip() and len(meaning.strip()) > 10, path)
        # hello on 2 PEs: results, network traffic (latency_mean), utilisation.
        r, s, _ = run_with_stats("--pes", "2", "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        written = generic_paths(s)
        self.assertEqual(sorted(written - set(docs)), [], "fields without a description")
        self.assertEqual(sorted(set(docs) - written), [], "described fields never written")

    def test_stats_text_is_the_json_flat_with_descriptions(self):
        r, s, t = run_with_stats("--pes", "2", "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        want = flat(s)
        lines = t.splitlines()
        self.assertEqual(len(lines), len(want))
        docs = documented()
        for line in lines:
            m = re.match(r"^(\S+)\s+(.*?)  # (.*) \(([^()]*)\)$", line)
            self.assertIsNotNone(m, line)
            name, value, meaning, unit = m.groups()
            self.assertIn(name, want)
            v = want[name]
            if isinstance(v, float):
                self.assertAlmostEqual(float(value), v, delta=abs(v) * 1e-5 + 1e-12)
            elif isinstance(v, str):
                self.assertEqual(value.strip(), v)
            else:
                self.assertEqual(value.strip(), json.dumps(v))
            generic = re.sub(r"^stats\.pe\.\d+\.", "stats.pe.N.", re.sub(r"\.(\d+)(?=\.|$)", "[]", name)) \
                if not name.startswith("stats.pe.") else \
                "stats.pe.N." + re.sub(r"\.(\d+)(?=\.|$)", "[]", name.split(".", 3)[3])
            self.assertEqual((unit, meaning), docs[generic], name)
        self.assertIn("stats.pe.1.instructions", want)
        self.assertNotIn("config.pes", want)

    def test_stats_doc_usage(self):
        r = emx("stats")
        self.assertEqual(r.returncode, 64)
        self.assertIn("usage: emx stats --doc", r.stderr)


class CommandLine(unittest.TestCase):
    def run_help_options(self):
        text = emx("run", "--help").stdout
        return sorted(set(re.findall(r"^  (-q|--[a-z-]+)", text, re.M)) - {"--help"})

    def test_emx_option_after_the_program_gets_a_warning(self):
        options = self.run_help_options()
        self.assertIn("--pes", options)
        self.assertIn("--stats-text", options)
        for opt in options:
            with self.subTest(option=opt):
                r = emx("run", "-q", "--pes", "1", elf("tiny"), opt, "4")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout, "ok\n")  # the run is as it was: opt went to the program
                self.assertIn(f"emx: warning: {opt} comes after the program", r.stderr)
                self.assertIn("is passed to it, not to emx", r.stderr)

    def test_program_arguments_alone_get_no_warning(self):
        r = emx("run", "-q", "--pes", "1", elf("tiny"), "4", "--verbose", "--help", "pes")
        self.assertEqual(r.stderr, "")

    def test_host_time_has_digits(self):
        r = emx("run", "--pes", "1", elf("tiny"))
        m = re.search(r"host time\s+(\d+\.\d+) (s|ms|us) \((\d+\.\d+) (s|ms|us) CPU\)", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        # A tiny run takes microseconds: it reads as such, not "0.000 s".
        self.assertGreater(float(m.group(1)), 0.0)
        self.assertNotEqual(m.group(1), "0.000")


class Threads(unittest.TestCase):
    def test_main_counts_as_a_thread(self):
        # tiny runs main on each PE and nothing else: one thread each (was 0).
        r, s, _ = run_with_stats("--pes", "3", elf("tiny"))
        self.assertEqual([s["stats"]["pe"][str(k)]["threads"] for k in range(3)], [1, 1, 1])

    def test_dispatched_threads_add_to_main(self):
        # hello on 2 PEs: main on each, plus the threads of the runtime's barriers.
        r, s, _ = run_with_stats("--pes", "2", "hello")
        for k in ("0", "1"):
            self.assertGreaterEqual(s["stats"]["pe"][k]["threads"], 1)


if __name__ == "__main__":
    unittest.main()
