"""bench/: bench_stream's partner arguments (STEP, OFFSET) and bench/machine.py --flat's
figure (CPU per unit of work, the unit costs fitted on 80 PEs)."""
import importlib.util
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "python"))
from emx import sim  # noqa: E402

spec = importlib.util.spec_from_file_location("bench_machine", os.path.join(TOP, "bench", "machine.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
spec = importlib.util.spec_from_file_location("bench_mpi_ring", os.path.join(TOP, "bench", "mpi_ring.py"))
mpi_ring = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mpi_ring)

N, ROUNDS, WORDS = 8, 3, 32
RING = {"network.topology": "ring", "network.ring_bidirectional": False}


def ring_hops(partner):
    """Packet-hops of bench_stream ROUNDS WORDS on N PEs and a one-way ring of N PEs and
    the host (node N), PE p streaming round r's block and its invocation to partner(p, r),
    which acknowledges with one packet; each PE sends 4 packets to the host (its result
    and exit)."""
    dist = lambda a, b: (b - a) % (N + 1)  # noqa: E731
    return sum((WORDS + 1) * dist(p, partner(p, r)) + dist(partner(p, r), p)
               for p in range(N) for r in range(ROUNDS)) + sum(4 * dist(p, N) for p in range(N))


class StreamPartner(unittest.TestCase):
    def hops(self, *args):
        s = sim.run("bench_stream", (ROUNDS, WORDS) + args, pes=N, set=RING).check()
        self.assertEqual(s.network["injected"], N * ROUNDS * (WORDS + 2) + 4 * N)
        return s.network["hops_sum"]

    def test_step_0_streams_every_round_to_the_pe_offset_away(self):
        for k in (1, 3, 7):
            self.assertEqual(self.hops(0, k), ring_hops(lambda p, r, k=k: (p + k) % N), k)

    def test_default_is_a_new_partner_each_round_seven_pes_on(self):
        def partner(p, r):
            d = (p + 1 + 7 * r) % N
            return (p + 1) % N if d == p else d
        self.assertEqual(self.hops(), ring_hops(partner))
        self.assertEqual(self.hops(7, 1), ring_hops(partner))

    def test_a_partner_that_is_the_pe_itself_becomes_the_next_pe(self):
        self.assertEqual(self.hops(0, N), ring_hops(lambda p, r: (p + 1) % N))


class FlatMetric(unittest.TestCase):
    UNIT = (0.5e-9, 40e-9, 60e-9)  # s per instruction, packet, hop

    def test_the_fit_recovers_unit_costs_from_runs_that_follow_them(self):
        work = [(3.6e7, 2e3, 1e4), (3.7e7, 4.1e5, 7.8e5), (3.7e7, 4.1e5, 1.4e6),
                (3.7e7, 4.1e5, 2.2e6)]
        unit, err = bench.fit(work, [bench.cost(self.UNIT, w) for w in work])
        for u, want in zip(unit, self.UNIT):
            self.assertAlmostEqual(u / want, 1.0, places=6)
        for e in err:
            self.assertLess(e, 1e-15)

    def test_three_runs_determine_the_unit_costs_exactly(self):
        work = [(3.6e7, 2e3, 1e4), (3.7e7, 4.1e5, 7.8e5), (3.7e7, 4.1e5, 2.2e6)]
        unit, err = bench.fit(work, [bench.cost(self.UNIT, w) for w in work])
        self.assertAlmostEqual(unit[2] / self.UNIT[2], 1.0, places=6)
        self.assertEqual(err, [0.0, 0.0, 0.0])

    def test_the_ratio_counts_the_big_machines_extra_hops_as_work(self):
        w80, w1024 = (3.7e7, 4.1e5, 2.0e6), (4.7e8, 5.3e6, 4.3e7)  # 0.055, 0.091 hops/instr
        c80, c1024 = bench.cost(self.UNIT, w80), bench.cost(self.UNIT, w1024)
        # Costing exactly its work (hops at their price): flat, 1.0, although the equal-
        # weight CPU per (instruction + hop) grows.
        self.assertAlmostEqual(bench.flat_ratio(self.UNIT, w80, c80, w1024, c1024), 1.0)
        self.assertGreater(c1024 / (w1024[0] + w1024[2]) / (c80 / (w80[0] + w80[2])), 1.4)
        self.assertAlmostEqual(bench.flat_ratio(self.UNIT, w80, c80, w1024, 2 * c1024), 2.0)
        self.assertAlmostEqual(bench.flat_ratio(self.UNIT, w80, 2 * c80, w1024, 2 * c1024), 1.0)

    def test_round_by_round_each_round_priced_by_its_own_fit(self):
        # Runs that cost their work at the unit costs, times a host speed that drifts
        # from round to round (the same within a round): every round's ratio is 1, the
        # big machine's run twice its cost in one round shows in that round only.
        work = [(3.6e7, 2e3, 1e4), (3.7e7, 4.1e5, 7.8e5), (3.7e7, 4.1e5, 1.4e6),
                (3.7e7, 4.1e5, 2.2e6), (3.7e7, 4.1e5, 2.0e6), (4.7e8, 5.3e6, 4.3e7)]
        speed = (1.0, 1.3, 0.8)
        cpu = [[bench.cost(self.UNIT, w) * f for f in speed] for w in work]
        for x in bench.round_ratios(work, cpu, 4):
            self.assertAlmostEqual(x, 1.0)
        cpu[-1][1] *= 2
        self.assertEqual([round(x, 6) for x in bench.round_ratios(work, cpu, 4)],
                         [1.0, 2.0, 1.0])


class RingPairs(unittest.TestCase):
    def test_default_over_all_run_by_run_is_the_ratio_of_cpu_per_message(self):
        # Messages per CPU second, round by round: the default's rate a third of all's in
        # one round and half in the next gives 3 and 2, whatever the host's speed did
        # between the rounds.
        rates = {(None, "this"): [100.0, 400.0], ("all", "this"): [300.0, 800.0]}
        self.assertEqual(mpi_ring.pair_ratios(rates, None, "all"), [3.0, 2.0])


if __name__ == "__main__":
    unittest.main()
