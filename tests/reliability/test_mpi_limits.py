"""MPI-EMX at its limits (docs/reliability.md, "MPI sizes and handles"): regression tests
of sizes that wrapped and handles that faulted (programs/mpi/tests/limits.c), in the six
variants, and the fuzzer of datatype constructors with extreme counts
(programs/mpi/tests/typefuzz.c). Each check of limits.c failed before its fix."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emxrun import run_stats  # noqa: E402

VARIANTS = [(m, p) for m in ("both", "receiver") for p in ("buffered", "get", "sync")]


class MpiSizes(unittest.TestCase):
    def test_every_variant(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                r, _ = run_stats("--pes", "3", "mpi_t_limits", f"-mpi-matching={matching}",
                                 f"-mpi-protocol={protocol}")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertEqual(r.stdout, "sizes: ok\nrequests: ok\n")

    def test_one_pe(self):
        r, _ = run_stats("--pes", "1", "mpi_t_limits")
        self.assertEqual((r.returncode, r.stdout), (0, "sizes: ok\nrequests: ok\n"), r.stderr)


class MpiTypeFuzz(unittest.TestCase):
    """Seeded: case k of rank r draws from seed + k (and r); a failure names its seed.
    EMX_FUZZ_SCALE multiplies the cases (scripts/test --fuzz-scale)."""

    def test_constructors_with_extreme_counts(self):
        cases = max(1, int(1000 * float(os.environ.get("EMX_FUZZ_SCALE", "1"))))
        r, _ = run_stats("--pes", "2", "--max-cycles", str(2_000_000 * cases),
                         "mpi_t_typefuzz", "1", str(cases), timeout=1200)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "typefuzz: ok", r.stdout)
        self.assertRegex(lines[1], rf"typefuzz: {2 * cases} cases, \d+ accepted, \d+ refused, "
                                   r"\d+ sent")


if __name__ == "__main__":
    unittest.main()
