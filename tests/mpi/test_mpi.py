"""MPI-EMX (runtime/mpi, docs/mpi.md): its test programs (programs/mpi/tests, mpi_t_*) and
the ping-pong program run on the simulator, for the six variants (matching on both sides or
on the receiver only x buffered / get / sync protocol), on the PE counts and machine
variants that matter."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emxrun import emx, pe_sum, results, run_stats  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MATCHINGS = ["both", "receiver"]
PROTOCOLS = ["buffered", "get", "sync"]
VARIANTS = [(m, p) for m in MATCHINGS for p in PROTOCOLS]
P2P_TESTS = ["order", "wildcard", "holdback", "alternate", "simultaneous", "unexpected",
             "sizes", "completion", "free", "persistent", "procnull", "status", "self",
             "ssend"]


def variant_args(matching, protocol):
    return [f"-mpi-matching={matching}", f"-mpi-protocol={protocol}"]


class Runs(unittest.TestCase):
    def run_program(self, program, *args, pes=2, config=None, exit_code=0, timeout=600):
        """Runs PROGRAM; returns (stdout, results dict). The exit status must match."""
        opts = ["--pes", str(pes)]
        if config:
            opts += ["--config", config]
        r, s = run_stats(*opts, program, *map(str, args), timeout=timeout)
        self.assertEqual(r.returncode, exit_code,
                         f"{program} {args} {opts}\n{r.stdout}{r.stderr}")
        return r.stdout, results(s) if s else {}

    def assert_all_ok(self, out, names):
        self.assertEqual(out, "".join(f"{n}: ok\n" for n in names))


class PointToPoint(Runs):
    """Every point-to-point test in every variant: order, wildcards and the held-back
    receive requests, both sides issuing at once, unexpected messages, 0 B .. 100 KB
    (beyond 64 KiB) aligned and not, completion calls, Request_free, persistent requests,
    PROC_NULL, status and Get_count, self messages, synchronous mode."""

    def test_every_variant_on_3_pes(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, res = self.run_program("mpi_t_p2p", "all", "-mpi-stats",
                                            *variant_args(matching, protocol), pes=3)
                self.assert_all_ok(out, P2P_TESTS)
                # Every request, record and key went back to its free list.
                self.assertEqual(res["mpi_cells_in_use"], 0)
                # The paths this variant has: one-sided sends and receive requests only
                # with matching on both sides; remote reads only with get and sync.
                if matching == "both":
                    self.assertGreater(res["mpi_one_sided"], 0)
                    self.assertGreater(res["mpi_concurrent"], 0)
                    self.assertGreater(res["mpi_held"], 0)
                    self.assertGreater(res["mpi_removals"], 0)
                else:
                    for key in ("mpi_one_sided", "mpi_recv_requests", "mpi_removals"):
                        self.assertEqual(res[key], 0, key)
                self.assertGreater(res["mpi_unexpected"], 0)
                # Buffered reads only for MPI_Issend (always sync), one word.
                if protocol == "buffered":
                    self.assertLess(res["mpi_fetched_words"], 10)
                else:  # (with matching on both sides most cross and go one-sided)
                    self.assertGreater(res["mpi_fetched_words"], 500)

    def test_one_and_two_and_many_pes(self):
        # One PE: every message goes to itself; 2: pairs; 16: many rings at once.
        for pes in (1, 2, 16):
            for matching, protocol in (("both", "get"), ("receiver", "sync")):
                with self.subTest(pes=pes, matching=matching, protocol=protocol):
                    tests = [t for t in P2P_TESTS if pes < 16 or t != "sizes"]
                    out, _ = self.run_program("mpi_t_p2p", *tests,
                                              *variant_args(matching, protocol), pes=pes)
                    self.assert_all_ok(out, tests)

    def test_concurrent_requests_repeated(self):
        # Many rounds of sends and receives issued at once from both sides, on 6 PEs.
        for protocol in PROTOCOLS:
            with self.subTest(protocol=protocol):
                out, res = self.run_program("mpi_t_p2p", *["simultaneous", "alternate"] * 3,
                                            "-mpi-stats", *variant_args("both", protocol),
                                            pes=6)
                self.assert_all_ok(out, ["simultaneous", "alternate"] * 3)
                self.assertGreater(res["mpi_concurrent"], 500)  # crossings: hundreds a run
                self.assertEqual(res["mpi_cells_in_use"], 0)


class ThreadMultiple(Runs):
    """MPI_Init_thread(MPI_THREAD_MULTIPLE): the whole point-to-point suite run at once by
    T computations of every rank (mpi_t_p2p threads T), each on its own MPI_Comm_dup of
    MPI_COMM_WORLD (wildcard receives of two computations on one communicator would take
    each other's messages), in every variant; and "comms": Comm_dup and Comm_split from
    all T computations at once, whose new communicators must have distinct contexts
    (before the fix in runtime/mpi/comm.c two got the same and their messages crossed)."""

    def test_every_variant(self):
        for matching, protocol in VARIANTS:
            for T, pes in ((2, 2), (2, 3), (4, 2), (4, 3)):
                with self.subTest(matching=matching, protocol=protocol, T=T, pes=pes):
                    out, res = self.run_program("mpi_t_p2p", "threads", T, "all", "comms",
                                                "-mpi-stats",
                                                *variant_args(matching, protocol), pes=pes)
                    self.assert_all_ok(out, P2P_TESTS + ["comms"])
                    self.assertEqual(res["mpi_cells_in_use"], 0)
                    self.assertGreater(res["mpi_unexpected"], 0)
                    if matching == "both":
                        self.assertGreater(res["mpi_one_sided"], 0)
                        self.assertGreater(res["mpi_concurrent"], 0)

    def test_machine_variants_and_more_computations(self):
        for config, T, pes in (("emx-thread-write", 2, 3), ("em4", 2, 2), (None, 8, 5),
                               (None, 4, 1)):
            # (EM-4's 512 KiB per PE do not hold T times the 200 KB of "sizes")
            tests = [t for t in P2P_TESTS if config != "em4" or t != "sizes"] + ["comms"]
            with self.subTest(config=config, T=T, pes=pes):
                out, _ = self.run_program("mpi_t_p2p", "threads", T, *tests,
                                          "-mpi-matching=both", "-mpi-protocol=get",
                                          pes=pes, config=config)
                self.assert_all_ok(out, tests)

    def test_all_options_and_many_pes(self):
        tests = [t for t in P2P_TESTS if t != "sizes"] + ["comms"]
        for args, pes in ((["-mpi-option=all"], 3), ([], 16)):
            for matching, protocol in (("both", "get"), ("receiver", "sync")):
                with self.subTest(args=args, pes=pes, matching=matching, protocol=protocol):
                    out, res = self.run_program("mpi_t_p2p", "threads", 4, *tests,
                                                "-mpi-stats", *args,
                                                *variant_args(matching, protocol), pes=pes)
                    self.assert_all_ok(out, tests)
                    self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_context_ids_reused_by_computations_at_once(self):
        # 4 computations per rank, 17,064 creations a rank: freed ids are agreed on while
        # the others create; their rings check that no two communicators share an id.
        for matching, protocol in (("both", "get"), ("receiver", "buffered")):
            with self.subTest(matching=matching, protocol=protocol):
                out, res = self.run_program("mpi_t_p2p", "threads", 4, "reuse", "-mpi-stats",
                                            *variant_args(matching, protocol), pes=3)
                self.assert_all_ok(out, ["reuse"])
                self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_bad_thread_count(self):
        out, _ = self.run_program("mpi_t_p2p", "threads", 9, "order", pes=2, exit_code=2)
        self.assertIn("mpi_t_p2p: threads 1..8 (MPI_THREAD_MULTIPLE)", out)


# -mpi-option= names (runtime/mpi/options.c): the shortcuts over the paper's mechanisms.
OPTIONS = ["rreq-pairs", "sreq-inline", "staged-records", "done-sized", "fetch-per-word",
           "local-isend", "block-read"]


class Options(Runs):
    """Every option, alone and all together, in every variant: the whole point-to-point
    suite, every cell back in its free list, and the mechanism the option names taken."""

    def run_variant(self, matching, protocol, *options):
        r, s = run_stats("--pes", "3", "mpi_t_p2p", "all", "-mpi-stats",
                         *variant_args(matching, protocol),
                         *[f"-mpi-option={o}" for o in options], timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_all_ok(r.stdout, P2P_TESTS)
        res = results(s)
        self.assertEqual(res["mpi_cells_in_use"], 0)
        return res, s

    def test_every_option_in_every_variant(self):
        for option in OPTIONS + ["all"]:
            for matching, protocol in VARIANTS:
                with self.subTest(option=option, matching=matching, protocol=protocol):
                    res, s = self.run_variant(matching, protocol, option)
                    # block reads only with block-read (all: fetch-per-word wins)
                    if option != "block-read":
                        self.assertEqual(pe_sum(s, "memory_unit.block_reads"), 0)

    def test_block_read_fetches_by_block_reads(self):
        # With -mpi-option=block-read the fetches are block reads of the sender's memory
        # unit, except those of a rank's messages to itself (a copy).
        res, s = self.run_variant("receiver", "get", "block-read")
        self.assertGreater(res["mpi_fetched_words"], 1000)
        self.assertGreater(pe_sum(s, "memory_unit.block_reads"), 50)
        self.assertGreater(pe_sum(s, "memory_unit.block_words"), 0.99 * res["mpi_fetched_words"])
        self.assertLessEqual(pe_sum(s, "memory_unit.block_words"), res["mpi_fetched_words"])

    def test_the_default_reads_by_a_stream_of_sysrds(self):
        # The fetched words are SYSRDs of the sender's memory unit (a message's or chunk's
        # last word replies to a thread, the others as remote writes), no block read; a
        # rank's messages to itself are copies. Both-sides matching reads too (get).
        for matching in ("receiver", "both"):
            with self.subTest(matching=matching):
                res, s = self.run_variant(matching, "get")
                self.assertGreater(res["mpi_fetched_words"], 1000)
                self.assertEqual(pe_sum(s, "memory_unit.block_reads"), 0)
                self.assertGreater(pe_sum(s, "memory_unit.sysrd"),
                                   0.99 * res["mpi_fetched_words"])

    def test_an_unknown_option_names_the_known_ones(self):
        r, _ = run_stats("--pes", "2", "mpi_t_p2p", "order", "-mpi-option=fetch-per-word,bogus")
        self.assertEqual(r.returncode, 12)
        self.assertIn("MPI_Init: unknown option 'bogus' in -mpi-option=fetch-per-word,bogus "
                      "(known: " + ", ".join(OPTIONS) + ", all)", r.stdout)


class ReceiveRequestForms(Runs):
    """By default a receive request is a remote thread creation (an operand segment
    obtained on the sender, the words written into it, an invocation). With
    -mpi-option=rreq-pairs one posted in advance is a 2-input thread invocation into a
    frame kept per source, when the frames have the default size; else a staged record
    (-mpi-option=staged-records) or a creation. Every form passes every test, and each
    run takes its form."""

    def test_pair_and_record_forms(self):
        for frame_words, pairs in ((32, True), (64, False), (8, False)):
            with self.subTest(frame_words=frame_words):
                r, s = run_stats("--pes", "3", "--set", f"pe.threads.frame_words={frame_words}",
                                 "mpi_t_p2p", "all", "-mpi-stats", "-mpi-option=rreq-pairs")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assert_all_ok(r.stdout, P2P_TESTS)
                res = results(s)
                self.assertEqual(res["mpi_cells_in_use"], 0)
                self.assertGreater(res["mpi_recv_requests"], 100)
                # Nothing else in these tests uses 2-input matching.
                matched = pe_sum(s, "matching.matched")
                if pairs:
                    self.assertGreater(matched, res["mpi_recv_requests"] // 2)
                else:
                    self.assertEqual(matched, 0)

    def test_the_default_is_remote_thread_creation(self):
        r, s = run_stats("--pes", "3", "mpi_t_p2p", "all", "-mpi-stats")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = results(s)
        self.assertEqual(pe_sum(s, "matching.matched"), 0)
        # Per request: a segment request and its answer (special packets), the words by
        # SYSWR, an invocation: at least 4 remote writes per receive or send request.
        self.assertGreater(pe_sum(s, "memory_unit.syswr"),
                           4 * (res["mpi_recv_requests"] + res["mpi_send_requests"]))


class MachineVariants(Runs):
    """EM-X' and EM-4 serve remote writes by handler threads: completion must still come
    after the data (emx_iwrite_flag)."""

    def test_thread_write_and_em4(self):
        # `sizes` (two 100 KB buffers, a 100 KB message paced by a computation of its
        # own, which needs an 8 KiB thread stack) runs in a program of its own: after
        # `order` and `alternate` EM-4's 512 KiB heap is fragmented so that whether that
        # stack fits depends on the order of the library's allocations (docs/mpi.md,
        # "Limits").
        for config in ("emx-thread-write", "em4"):
            for matching, protocol in (("both", "get"), ("both", "buffered"),
                                       ("receiver", "sync")):
                for tests in (["order", "alternate", "unexpected", "completion"], ["sizes"]):
                    with self.subTest(config=config, matching=matching, protocol=protocol,
                                      tests=tests):
                        out, _ = self.run_program("mpi_t_p2p", *tests,
                                                  *variant_args(matching, protocol), pes=3,
                                                  config=config)
                        self.assert_all_ok(out, tests)


class Collectives(Runs):
    """Every collective with every root (sampled roots on 80 PEs), counts 0, 1, 7 and
    more, on the world, a duplicate, a smaller Cartesian communicator and the even and
    odd ranks each in reverse order (Comm_split: ranks that are not a range of PEs)."""
    NAMES = ["world", "dup", "subset", "split"]

    def test_small_machines_every_variant(self):
        for pes in (1, 2, 5):
            for matching, protocol in VARIANTS:
                with self.subTest(pes=pes, matching=matching, protocol=protocol):
                    out, _ = self.run_program("mpi_t_coll", *variant_args(matching, protocol),
                                              pes=pes)
                    self.assert_all_ok(out, self.NAMES)

    def test_16_pes(self):
        for matching, protocol in (("both", "get"), ("receiver", "buffered")):
            with self.subTest(matching=matching, protocol=protocol):
                out, _ = self.run_program("mpi_t_coll", 40,
                                          *variant_args(matching, protocol), pes=16)
                self.assert_all_ok(out, self.NAMES)

    def test_80_pes(self):
        out, _ = self.run_program("mpi_t_coll", 20, *variant_args("both", "get"), pes=80)
        self.assert_all_ok(out, self.NAMES)


class MpiOne(Runs):
    """The rest of MPI-1 (programs/mpi/tests/mpi1.c): groups, Comm_split/Comm_create with
    ranks in any order, derived datatypes (point to point, persistent, collectives),
    Pack/Unpack, Bsend/Ibsend, Cancel of receives and sends (withdrawn only where the
    variant allows: cancel_send), Testsome, Reduce_scatter, the v-collectives on
    non-contiguous types, user operations and reductions on derived types,
    intercommunicators, attributes, error handlers, Cart_sub and graphs, edge cases; every
    cell back in its free list."""
    NAMES = ["groups", "split", "types", "pack", "bsend", "cancel", "cancel_send", "testsome",
             "reduce_scatter", "vcoll", "userops", "intercomm", "attrs", "errhandler", "topo",
             "edges"]

    def test_every_variant_on_3_pes(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, res = self.run_program("mpi_t_mpi1", "-mpi-stats",
                                            *variant_args(matching, protocol), pes=3)
                self.assert_all_ok(out, self.NAMES)
                self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_pe_counts(self):
        for pes in (1, 2, 6, 16):
            with self.subTest(pes=pes):
                out, _ = self.run_program("mpi_t_mpi1", pes=pes)
                self.assert_all_ok(out, self.NAMES)

    def test_with_the_options(self):
        # Mapped communicators (contexts from 32 on), packed types, Bsend and Cancel with
        # today's shortcuts (staged records, receive-request pairs, per-word fetch) as
        # well as with the default remote thread creation and block reads.
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, res = self.run_program("mpi_t_mpi1", "-mpi-stats", "-mpi-option=all",
                                            *variant_args(matching, protocol), pes=3)
                self.assert_all_ok(out, self.NAMES)
                self.assertEqual(res["mpi_cells_in_use"], 0)


class Conformance(Runs):
    """What outside MPI-1/MPI-2 test suites checked and MPI-EMX got wrong or refused
    (programs/mpi/tests/conform.c), each test derived from the standard's text: the pair
    types' size, extent and element counts (a {double, int, double, int} struct received
    as 2 MPI_DOUBLE_INT), Sendrecv_replace with a strided type, a Bsend buffer sized as
    MPI-1 says, context ids used again after 17,000 creations, Waitany/Testany/Waitsome/
    Testsome of no active request, a struct of 0 blocks and Type_dup's commit, balanced
    Dims_create with 17 and 30 dimensions, errors naming the MPI-1 call, every (operation,
    predefined type) pair of MPI-1 including long double, tags up to MPI_TAG_UB = 65534,
    Comm_split/Comm_create/attributes/probes on intercommunicators, 1.5 MB reductions and
    broadcasts in 4 MiB per PE, the first probe or test seeing what arrived, cancels of
    complete but unmatched sends; in the six variants."""
    NAMES = ["pairs", "replace", "bsend_size", "contexts", "none_active", "zero_types", "dims",
             "error_names", "op_table", "tags", "intercomm2", "memory", "progress",
             "cancel_moved"]

    def test_every_variant_on_3_pes(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, res = self.run_program("mpi_t_conform", "-mpi-stats",
                                            *variant_args(matching, protocol), pes=3)
                self.assert_all_ok(out, self.NAMES)
                self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_pe_counts(self):
        names = [n for n in self.NAMES if n not in ("contexts", "memory")]
        for pes in (1, 2, 5):
            for matching, protocol in (("both", "get"), ("receiver", "sync")):
                with self.subTest(pes=pes, matching=matching, protocol=protocol):
                    out, _ = self.run_program("mpi_t_conform", *names,
                                              *variant_args(matching, protocol), pes=pes)
                    self.assert_all_ok(out, names)

    def test_machine_variants(self):
        # EM-4 (512 KiB per PE, remote writes as threads) and EM-X' (writes as threads).
        names = [n for n in self.NAMES if n not in ("contexts", "memory")]
        for config in ("em4", "emx-thread-write"):
            with self.subTest(config=config):
                out, _ = self.run_program("mpi_t_conform", *names, pes=3, config=config)
                self.assert_all_ok(out, names)

    def test_static_data_beyond_memory(self):
        # A program whose static data exceed a PE's 4 MiB: refused with what it needs and
        # the config key; with that memory it runs.
        with tempfile.TemporaryDirectory() as d:
            src, elf = os.path.join(d, "big.c"), os.path.join(d, "big.elf")
            with open(src, "w") as f:
                f.write("#include <mpi.h>\nstatic char big[5 << 20];\n"
                        "int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
                        "  big[argc] = 1;\n  MPI_Finalize();\n  return big[1] - 1;\n}\n")
            subprocess.run([os.path.join(ROOT, "scripts", "emx-mpicc"), "-o", elf, src],
                           check=True)
            r, _ = run_stats("--pes", "2", elf)
            self.assertEqual(r.returncode, 64, r.stdout + r.stderr)
            m = re.search(r"beyond a PE's local memory of 4194304 bytes: the program needs at "
                          r"least (\d+) bytes per PE, more for its stack and heap; give the PEs "
                          r"more memory, e.g. --set pe.memory_bytes=(\d+)", r.stderr)
            self.assertTrue(m, r.stderr)
            need, suggested = int(m.group(1)), int(m.group(2))
            mib = 1 << 20
            self.assertGreater(need, 5 * mib)  # the 5 MiB array and the code
            self.assertEqual(suggested, (need + mib - 1) // mib * mib + mib)
            r, _ = run_stats("--pes", "2", "--set", f"pe.memory_bytes={suggested}", elf)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_errors_name_the_mpi1_call(self):
        out, _ = self.run_program("mpi_t_conform", "fatal-keyval", pes=2, exit_code=21)
        self.assertIn("MPI error on rank 0 in MPI_Keyval_free: invalid key 999 "
                      "(invalid attribute key)", out)


class FlowControl(Runs):
    """Correct programs that push the library's resources (programs/mpi/tests/flood.c):
    floods of unexpected messages of every size in every variant, more unexpected data
    than the receiver's memory, many outstanding requests, MPI_Isend while the receiver
    computes."""

    def flood(self, mode, *args, **kw):
        """Runs mpi_t_flood MODE ARGS...; it must print "MODE: ok" and nothing else."""
        out, _ = self.run_program("mpi_t_flood", mode, *args, **kw)
        self.assertEqual(out, f"{mode}: ok\n")

    def test_unexpected_floods(self):
        for matching, protocol in VARIANTS:
            for size, count in ((0, 500), (4, 500), (1000, 200), (20000, 40)):
                with self.subTest(matching=matching, protocol=protocol, size=size):
                    self.flood("unexpected", size, count, *variant_args(matching, protocol),
                               pes=4)

    def test_more_unexpected_data_than_memory(self):
        # 3 x 20 x 30000 bytes to a PE of 512 KiB (EM-4): the temporary buffers stop at
        # a reserve, and the rest waits for its receives (as sync).
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                self.flood("unexpected", 30000, 20, *variant_args(matching, protocol), pes=4,
                           config="em4")

    def test_floods_with_the_fetch_per_word(self):
        # The bound on fetch frames in flight holds for both kinds of fetch: the default
        # block reads (test_unexpected_floods) and a SYSRD per word.
        for matching, protocol in VARIANTS:
            for size, count in ((1000, 200), (20000, 40)):
                with self.subTest(matching=matching, protocol=protocol, size=size):
                    self.flood("unexpected", size, count, "-mpi-option=fetch-per-word",
                               *variant_args(matching, protocol), pes=4)

    def flood_in_memory(self, memory_bytes, pes, size, count, matching, protocol):
        """mpi_t_flood unexpected SIZE COUNT on EM-X PEs of MEMORY_BYTES."""
        with self.subTest(matching=matching, protocol=protocol):
            r, _ = run_stats("--pes", str(pes), "--set", f"pe.memory_bytes={memory_bytes}",
                             "mpi_t_flood", "unexpected", str(size), str(count),
                             *variant_args(matching, protocol), timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(r.stdout, "unexpected: ok\n")

    def test_more_unexpected_data_than_memory_with_block_reads(self):
        # The same on EM-X (block reads, requests by remote thread creation) with 512 KiB
        # per PE.
        for matching, protocol in VARIANTS:
            self.flood_in_memory(524288, 4, 30000, 20, matching, protocol)

    def test_many_outstanding_requests(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                self.flood("outstanding", 1000, *variant_args(matching, protocol), pes=3)

    SPIN = 2000000

    def isend_while_computing(self, matching, protocol, *options):
        """mpi_t_flood isend: 20 MPI_Isend of 64 bytes to a rank that computes SPIN
        clocks in one thread; the longest call's clocks."""
        out, res = self.run_program("mpi_t_flood", "isend", self.SPIN, 20, *options,
                                    *variant_args(matching, protocol))
        self.assertEqual(out, "isend: ok\n")
        return res["isend_max_cycles"]

    def test_isend_waits_for_its_operand_segment(self):
        # The paper's creation (the default): the issuing thread waits for its operand
        # segment, which the receiver's handler gives only when the receiver's thread
        # ends: the first MPI_Isend waits for the receiver's computation, and every
        # message arrives intact.
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                longest = self.isend_while_computing(matching, protocol)
                self.assertGreater(longest, self.SPIN // 2)
                self.assertLess(longest, self.SPIN)

    def test_isend_returns_while_the_receiver_computes(self):
        # -mpi-option=local-isend (and `all`): MPI_Isend asks for the operand segment and
        # returns; the answer's handler writes the request when the receiver answers.
        for matching, protocol in VARIANTS:
            for option in ("local-isend", "all"):
                with self.subTest(matching=matching, protocol=protocol, option=option):
                    longest = self.isend_while_computing(matching, protocol,
                                                         f"-mpi-option={option}")
                    self.assertLess(longest, 5000)

    def test_isend_buffered_is_local_with_staged_records(self):
        # Under buffered MPI_Isend asks for the receiver's temporary buffer; as a staged
        # record (no operand segment to wait for) it returns at once, and the answer's
        # thread writes the data and sends the send request (credits.c).
        for matching in MATCHINGS:
            with self.subTest(matching=matching):
                longest = self.isend_while_computing(matching, "buffered",
                                                     "-mpi-option=staged-records")
                self.assertLess(longest, 5000)

    def test_isend_waiting_while_its_receiver_polls(self):
        # An MPI_Isend waits for its operand segment while its receiver polls, never
        # blocking, for a message sent only after that MPI_Isend returns: every polling
        # call lets the handlers run (docs/mpi.md, "MPI_Isend waits for its operand
        # segment"); `crossed`: both ranks MPI_Isend to each other first. Each completes
        # with its data intact; by default the MPI_Isend takes longer than with
        # -mpi-option=local-isend (it waited).
        for how in ("test", "testall", "testany", "testsome", "status", "iprobe", "crossed"):
            for matching, protocol in VARIANTS:
                for size in (4, 400):
                    with self.subTest(how=how, matching=matching, protocol=protocol, size=size):
                        cycles = {}
                        for options in ([], ["-mpi-option=local-isend"]):
                            out, res = self.run_program("mpi_t_flood", "poll", how, size,
                                                        *options,
                                                        *variant_args(matching, protocol))
                            self.assertEqual(out, "poll: ok\n")
                            cycles[bool(options)] = res["isend_max_cycles"]
                        self.assertGreater(cycles[False], cycles[True])

    def test_thousands_of_small_unexpected_sends_from_many_ranks(self):
        # 15 ranks x 3000 send requests to a receiver that computes first. A send request
        # leaves only with a credit for its receiver (4 per sender on 16 PEs); the rest
        # wait at their senders, so the receiver holds a bounded number of records (and,
        # with -mpi-option=staged-records, of packets in its input buffer: before, 45000
        # staged requests overflowed its spill area). Receiving in order needs no credit
        # beyond the share.
        for matching, protocol in VARIANTS:
            for options in ([], ["-mpi-option=staged-records"]):
                with self.subTest(matching=matching, protocol=protocol, options=options):
                    out, res = self.run_program("mpi_t_flood", "unexpected", 4, 3000,
                                                "-mpi-stats", *options,
                                                *variant_args(matching, protocol), pes=16)
                    self.assertEqual(out, "unexpected: ok\n")
                    self.assertGreater(res["mpi_credit_waits"], 40000)
                    self.assertEqual(res["mpi_credits_minted"], 0)
                    self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_flood_on_em4(self):
        # 15 ranks x 1000 sends to one PE of EM-4 (512 KiB; every remote write a thread
        # there): before the credits the receiver ran out of memory for their records.
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                self.flood("unexpected", 4, 1000, *variant_args(matching, protocol), pes=16,
                           config="em4")

    def test_flood_in_a_small_memory(self):
        # The same flood to PEs of 1 MiB: the receiver's records for all 45000 would take
        # 3.4 MB; with credits it holds 60 at a time.
        for matching, protocol in (("both", "get"), ("receiver", "buffered"),
                                   ("receiver", "sync")):
            self.flood_in_memory(1048576, 16, 4, 3000, matching, protocol)

    def test_thousands_of_receives_posted_to_one_rank(self):
        # The mirror of the flood: 15 ranks x 3000 receives posted from a rank that
        # computes first. By remote thread creation (the default) a rank asks a peer for
        # at most two operand segments at a time, so their receive requests wait at
        # their issuers; 2-input pairs are matched in place.
        for matching in MATCHINGS:
            for options in ([], ["-mpi-option=rreq-pairs"]):
                with self.subTest(matching=matching, options=options):
                    self.flood("posted", 3000, *options, *variant_args(matching, "get"), pes=16)

    def test_thousands_of_receives_posted_to_one_rank_as_staged_records(self):
        # As staged records (3 special packets each) 45000 receive requests overflowed the
        # sender's input-buffer spill area while it computed. A receive request now leaves
        # only with a credit (128 per receiver to start with on 16 PEs of 4 MiB, more
        # granted from the sender's pool of 8192 in all once it stops computing); the
        # others wait in the receiver's posted list and are issued in order as credits
        # come (docs/mpi-flow-control.md).
        for matching, protocol in VARIANTS:
            for options in (["-mpi-option=staged-records"], ["-mpi-option=all"]):
                with self.subTest(matching=matching, protocol=protocol, options=options):
                    out, res = self.run_program("mpi_t_flood", "posted", 3000, "-mpi-stats",
                                                *options, *variant_args(matching, protocol),
                                                pes=16)
                    self.assertEqual(out, "posted: ok\n")
                    self.assertEqual(res["mpi_rreq_credit_waits"],
                                     15 * (3000 - 128) if matching == "both" else 0)
                    if matching == "both":
                        self.assertGreater(res["mpi_rreq_credits_granted"], 0)
                    self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_receives_beyond_the_credits(self):
        # Rank 1 posts 1200 receives from rank 0 (128 credits on 16 PEs to start with,
        # more granted from rank 0's pool once it stops computing), a receive for
        # tag 2 and one for tag 3 among them beyond the credits, an MPI_ANY_SOURCE one
        # after 900; rank 0 sends tag 2 first (matched at rank 1, its request never
        # issued), tag 4, then the 1200 in order. The cancelled tag-3 receive is
        # cancelled, every message arrives in order, nothing is left over.
        for matching, protocol in VARIANTS:
            for options in ([], ["-mpi-option=staged-records"], ["-mpi-option=all"]):
                with self.subTest(matching=matching, protocol=protocol, options=options):
                    out, res = self.run_program("mpi_t_flood", "beyond", 1200, "-mpi-stats",
                                                *options, *variant_args(matching, protocol),
                                                pes=16)
                    self.assertEqual(out, "beyond: ok\n")
                    # By creation (the default) each MPI_Irecv waits for its operand
                    # segment, which rank 0 answers only once it stops computing, so
                    # rank 1's receives are paced by round trips and credits come back
                    # in time; as staged records or pairs they are not.
                    if matching == "both" and options:
                        self.assertGreater(res["mpi_rreq_credit_waits"], 300)
                    self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_in_advance_latency_does_not_depend_on_the_round_trips(self):
        # 1000 receives posted ahead to one peer on 80 PEs are far beyond a receiver's
        # initial share of credits (25): it asks the sender for the rest, granted before
        # the timed loop starts. Before (a fixed share of 102), every round trip beyond
        # it issued the next receive request during the loop: 219.2 -> 428.2 clocks.
        oneway = {}
        for iters in (100, 1000):
            out, res = self.run_program("mpi_pingpong", "advance", 4, iters, pes=80)
            oneway[iters] = res["oneway_cycles"]
        self.assertAlmostEqual(oneway[1000], oneway[100], delta=1.0)

    def test_receive_when_the_program_has_used_up_its_memory(self):
        # Rank 0 allocates until malloc fails, then receives 3001 bytes from each of 3
        # ranks into buffers whose alignment differs from the senders' (after the
        # messages arrived: matched at the receiver, read by remote read). Before: "MPI
        # internal error on rank 0: no memory to receive a message" (no memory for a
        # temporary buffer, not even for its 1 KiB chunk); now through the chunk buffer
        # and the fetch frame reserved at MPI_Init, one message at a time.
        for config in (None, "em4"):
            for matching, protocol in VARIANTS:
                for options in ([], ["-mpi-option=all"]):
                    with self.subTest(config=config, matching=matching, protocol=protocol,
                                      options=options):
                        self.flood("nomem", 3001, *options, *variant_args(matching, protocol),
                                   pes=4, config=config)

    def test_cancel_a_send_waiting_for_a_credit(self):
        # 40 sends on 2 PEs (32 credits): the last waits at the sender; MPI_Cancel takes it
        # out there (nobody else knows it), in every variant.
        # (rank 0 computes in short threads: by default each MPI_Isend waits for its
        # operand segment, given between them)
        for matching, protocol in VARIANTS:
            for options in ([], ["-mpi-option=local-isend"]):
                with self.subTest(matching=matching, protocol=protocol, options=options):
                    out, res = self.run_program("mpi_t_flood", "cancel", 40, "-mpi-stats",
                                                *options, *variant_args(matching, protocol))
                    self.assertEqual(out, "cancel: ok\n")
                    self.assertEqual(res["mpi_credit_waits"], 8)
                    self.assertEqual(res["mpi_cells_in_use"], 0)

    def test_two_receives_beyond_the_credits(self):
        # Two receives waiting for messages behind the credits (2 PEs: 32); the nearer
        # one is matched with a granted credit, which must not be retired while the
        # other still waits (it deadlocked so).
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, res = self.run_program("mpi_t_flood", "two", 40, "-mpi-stats",
                                            *variant_args(matching, protocol))
                self.assertEqual(out, "two: ok\n")
                self.assertEqual(res["mpi_cells_in_use"], 0)
                if matching == "receiver":
                    self.assertGreater(res["mpi_credits_minted"], 0)

    def test_receives_in_reverse_order(self):
        # The receive wanted first is the last send of each sender: its credits are held
        # by the unexpected records of the sends before it. Matched at the sender (both
        # sides, a named source) the receive request takes the queued send one-sided;
        # waiting in the receiver's posted list (matching on the receiver, wildcard
        # source), or an MPI_Probe for it first, the receiver grants the sender credits
        # beyond its share. Without them this deadlocks.
        for matching, protocol in VARIANTS:
            for source in ("named", "any", "probe"):
                with self.subTest(matching=matching, protocol=protocol, source=source):
                    out, res = self.run_program("mpi_t_flood", "reverse", 300,
                                                *([] if source == "named" else [source]),
                                                "-mpi-stats",
                                                *variant_args(matching, protocol), pes=4)
                    self.assertEqual(out, "reverse: ok\n")
                    self.assertEqual(res["mpi_cells_in_use"], 0)
                    if matching == "both" and source == "named":
                        self.assertEqual(res["mpi_credits_minted"], 0)
                    else:
                        self.assertGreater(res["mpi_credits_minted"], 0)


class Topology(Runs):
    def test_cartesian(self):
        for pes in (1, 2, 5, 16, 80):
            with self.subTest(pes=pes):
                out, _ = self.run_program("mpi_t_cart", pes=pes)
                self.assert_all_ok(out, ["dims", "cart2d", "cart3d"])


class Errors(Runs):
    def test_errors_returned(self):
        for matching, protocol in (("both", "get"), ("receiver", "buffered")):
            with self.subTest(matching=matching, protocol=protocol):
                out, _ = self.run_program("mpi_t_errors", "returned",
                                          *variant_args(matching, protocol), pes=3)
                self.assertEqual(out, "returned: ok\n")

    def test_fatal_errors_name_rank_function_reason(self):
        cases = {
            "fatal-rank": (6, "MPI error on rank 0 in MPI_Send: invalid destination rank 4 "
                              "(communicator of 3 ranks) (invalid rank)"),
            "fatal-tag": (4, "MPI error on rank 0 in MPI_Send: invalid tag -1 (0 .. 65534) "
                             "(invalid tag)"),
            "fatal-count": (2, "MPI error on rank 0 in MPI_Recv: negative count -2 "
                               "(invalid count)"),
            "fatal-comm": (5, "MPI error on rank 0 in MPI_Barrier: invalid communicator 77 "
                              "(invalid communicator)"),
            "abort": (3, "MPI_Abort on rank 0: error code 3"),
        }
        for what, (code, message) in cases.items():
            with self.subTest(what=what):
                out, _ = self.run_program("mpi_t_errors", what, pes=3, exit_code=code)
                self.assertEqual(out, message + "\n")

    def test_bad_option(self):
        out, _ = self.run_program("mpi_t_p2p", "order", "-mpi-protocol=fast", pes=2,
                                  exit_code=12)
        self.assertIn("MPI_Init: unknown option -mpi-protocol=fast", out)


class PingPong(Runs):
    """The experiment's programs run in every variant; the figures are scripts/mpi-pingpong's
    business, here only their order: with receives posted in advance, matching on both
    sides beats matching on the receiver and the naive order, and zero bytes cost no
    more than four."""

    def test_every_variant(self):
        lat = {}
        for matching, protocol in VARIANTS:
            for mode in ("naive", "advance"):
                with self.subTest(matching=matching, protocol=protocol, mode=mode):
                    out, res = self.run_program("mpi_pingpong", mode, 4, 20,
                                                *variant_args(matching, protocol), pes=3)
                    self.assertIn(f"{mode} ping-pong, 4 bytes, 20 iterations", out)
                    lat[matching, protocol, mode] = res["oneway_cycles"]
        for protocol in PROTOCOLS:
            self.assertLess(lat["both", protocol, "advance"], lat["receiver", protocol, "advance"])
            self.assertLess(lat["both", protocol, "advance"], lat["both", protocol, "naive"])
        _, zero = self.run_program("mpi_pingpong", "advance", 0, 20, pes=3)
        self.assertLessEqual(zero["oneway_cycles"], lat["both", "get", "advance"])

    SEND = re.compile(r"PE (\d+)\s+send\s+(\w+)\s+-> PE (\d+)\s+address 0x([0-9a-f]+) "
                      r"data 0x([0-9a-f]+)\s+\((\w+)")

    def test_one_sided_send_writes_source_tag_and_size(self):
        # The paper's one-sided send: the data into the receive buffer, then source and tag
        # and the size into the receive request by remote write, then the completion
        # (I-structure write). In advance the sender's MPI_Isend makes it (compiled C inline,
        # put_to_posted_any beyond 32 bytes); in the naive both-sides get ping-pong the
        # crossed receive request's thread does (arrivals.S; beyond 32 bytes rreq_arrived,
        # with 2-word receive requests rreq_crossed, both C); with done-sized the size
        # rides in the completion.
        get = "-mpi-protocol=get"
        cases = (("advance", 4, (), "mpi_isend_begin", 4),
                 ("advance", 0, (), "mpi_isend_begin", 0),
                 ("advance", 64, (), "put_to_posted_any", 64),
                 ("naive", 4, (get,), "rreq_arrived_words", 4),
                 ("naive", 64, (get,), "rreq_arrived", 64),
                 ("naive", 4, (get, "-mpi-option=rreq-pairs"), "rreq_crossed", 4),
                 ("advance", 4, ("-mpi-option=done-sized",), "mpi_isend_begin", None))
        for mode, size, extra, sender, size_word in cases:
            with self.subTest(mode=mode, size=size, extra=extra):
                r = emx("run", "-q", "--pes", "3", "--trace-text", "--trace-pes", "1,2",
                        "mpi_pingpong", mode, str(size), "6", *extra)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                sent = {}  # (from, to) -> [(type, address, data)] since its last completion
                completions = 0
                for m in map(self.SEND.search, r.stderr.splitlines()):
                    if not m or m[6] != sender or m[1] == m[3]:  # (the send's own completion)
                        continue
                    src, dst, addr, data = int(m[1]), int(m[3]), int(m[4], 16), int(m[5], 16)
                    words = sent.setdefault((src, dst), [])
                    if m[2] != "iwr":
                        words.append((m[2], addr, data))
                        continue
                    status = {a - addr: d for t, a, d in words if t == "syswr"}
                    self.assertEqual(status.get(1), src | 100 << 16, (src, dst, words))
                    if size_word is None:
                        self.assertGreaterEqual(data, 2)  # DONE_SIZED + n
                        self.assertNotIn(2, status)
                    else:
                        self.assertEqual(status.get(2), size_word, (src, dst, words))
                    words.clear()
                    completions += 1
                self.assertGreaterEqual(completions, 10)


class Compiler(Runs):
    """An ordinary MPI program built outside the project with scripts/emx-mpicc."""

    def test_emx_mpicc(self):
        build = os.path.dirname(os.path.dirname(os.path.abspath(os.environ["EMX"])))
        source = r'''
#include <mpi.h>
#include <stdio.h>
int main(int argc, char *argv[]) {
  int rank, size, token = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    token = 1;
    MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("token %d after %d ranks, argc %d\n", token, size, argc);
  } else {
    MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token++;
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
'''
        with tempfile.TemporaryDirectory() as d:
            src, elf = os.path.join(d, "ring.c"), os.path.join(d, "ring.elf")
            with open(src, "w") as f:
                f.write(source)
            cc = subprocess.run([os.path.join(ROOT, "scripts", "emx-mpicc"), "--build-dir",
                                 build, "-o", elf, src], capture_output=True, text=True)
            self.assertEqual(cc.returncode, 0, cc.stderr)
            self.assertEqual(cc.stderr, "")
            out, _ = self.run_program(elf, "x", "-mpi-protocol=sync", pes=5)
            self.assertEqual(out, "token 5 after 5 ranks, argc 2\n")



class OutsideSuite(Runs):
    """An MPI-1 test written as the classic outside suites are (programs/mpi/tests/
    outside.c: its own harness, every test over several communicators, intercommunicators),
    compiled with scripts/emx-mpicc as a user would, in every variant and on 1 to 16 PEs:
    rank 0 prints " No Errors" and nothing else."""

    @classmethod
    def setUpClass(cls):
        build = os.path.dirname(os.path.dirname(os.path.abspath(os.environ["EMX"])))
        cls.dir = tempfile.TemporaryDirectory()
        cls.elf = os.path.join(cls.dir.name, "outside.elf")
        cc = subprocess.run([os.path.join(ROOT, "scripts", "emx-mpicc"), "--build-dir", build,
                             "-o", cls.elf,
                             os.path.join(ROOT, "programs", "mpi", "tests", "outside.c")],
                            capture_output=True, text=True)
        assert cc.returncode == 0 and cc.stderr == "", cc.stderr

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_every_variant(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, _ = self.run_program(self.elf, *variant_args(matching, protocol), pes=5)
                self.assertEqual(out, " No Errors\n")

    def test_pe_counts_and_options(self):
        for pes, args in ((1, []), (2, []), (16, ["-mpi-protocol=sync"]),
                          (7, ["-mpi-option=all", "-mpi-protocol=buffered"])):
            with self.subTest(pes=pes, args=args):
                out, _ = self.run_program(self.elf, *args, pes=pes)
                self.assertEqual(out, " No Errors\n")


class LiveValues(Runs):
    """The suspension of a blocking MPI_Wait, MPI_Recv and MPI_Waitall, and of an MPI_Isend
    that waits for its operand segment, compiled into the caller (mpi.h), keeps the
    caller's live integers and floats while another computation on the PE leaves every
    callee-saved register changed (programs/mpi/tests/live.c)."""

    def test_live_values_survive_blocking_waits(self):
        for matching, protocol in VARIANTS:
            with self.subTest(matching=matching, protocol=protocol):
                out, _ = self.run_program("mpi_t_live", 20,
                                          *variant_args(matching, protocol))
                self.assertEqual(out, "live: ok\n")


if __name__ == "__main__":
    unittest.main()
