/* ACP benchmarks (docs/experiments/acp-ompl.md).
 *
 *   acp_bench oneputall SCALE REPS_DIV   rank 0 puts to every other rank (One_put_all)
 *   acp_bench put|get BYTES ITERS PEER   rank 0 copies to / from rank PEER: copy + complete
 *   acp_bench r2r BYTES ITERS PEER [DST] rank 0 copies from rank PEER to rank DST (default
 *                                        PEER + 1): remote to remote
 *   acp_bench add4 4 ITERS PEER          rank 0's acp_add4 on a word of rank PEER
 *
 * Results: mem_init_bytes (heap the layer took at acp_init), mem_peak_bytes (rank 0's heap
 * peak above what it held before acp_init: the layer and the runtime's frames and
 * contexts it used), for put/get: cycles, us (per copy, mean over ITERS after a warm-up),
 * mbytes_per_s. */
#include <acp.h>
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "one_put_all.h"

enum { BUF = 1u << 20 };
static uint8_t buf[BUF] __attribute__((aligned(8)));
static uint32_t ga_words[2 * 1024]; /* every rank's buffer address: application memory */

static acp_ga_t ga_of(unsigned pe) { return ga_words[2 * pe] | (uint64_t)ga_words[2 * pe + 1] << 32; }

/* Every rank tells rank 0 (the only one that starts copies) its buffer's address. */
static void publish(acp_ga_t mine) {
  const unsigned me = emx_pe_id();
  emx_write(emx_gaddr(0, &ga_words[2 * me]), (uint32_t)mine);
  emx_write(emx_gaddr(0, &ga_words[2 * me + 1]), (uint32_t)(mine >> 32));
  emx_fence(0);
  emx_barrier();
}

int main(int argc, char **argv) {
  const size_t before = emx_heap_in_use();
  acp_init(&argc, &argv);
  const unsigned me = (unsigned)acp_rank(), pes = (unsigned)acp_procs();
  const acp_atkey_t key = acp_register_memory(buf, sizeof buf, 0);
  publish(acp_query_ga(key, buf));
  const char *mode = argc > 1 ? argv[1] : "oneputall";
  if (strcmp(mode, "oneputall") == 0) {
    const uint32_t scale = argc > 2 ? (uint32_t)atoi(argv[2]) : 64;
    const uint32_t reps_div = argc > 3 ? (uint32_t)atoi(argv[3]) : 1;
    if (me == 0) {
      uint64_t bytes = 0;
      for (unsigned k = 0; k < ONE_PUT_ALL_ROWS; ++k) {
        uint32_t size, reps;
        if (!one_put_all_row(k, scale, reps_div, &size, &reps)) continue;
        if (size > BUF) continue;
        for (uint32_t r = 0; r < reps; ++r) {
          for (unsigned pe = 1; pe < pes; ++pe) acp_copy(ga_of(pe), ga_of(0), size, ACP_HANDLE_NULL);
          acp_complete(ACP_HANDLE_ALL);
          bytes += (uint64_t)size * (pes - 1);
        }
      }
      emx_result_int("bytes_put", (long long)bytes);
    }
  } else {
    const uint32_t bytes = argc > 2 ? (uint32_t)atoi(argv[2]) : 4;
    const unsigned iters = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
    const unsigned peer = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
    const unsigned dst = argc > 5 ? (unsigned)atoi(argv[5]) : (peer + 1) % pes;
    if (peer >= pes || dst >= pes || bytes > BUF) {
      printf("acp_bench: bad peer or size\n");
      return 2;
    }
    if (me == 0) {
      const acp_ga_t local = ga_of(0), remote = ga_of(peer);
      /* (dst, src) of each mode; add4 keeps its old value at the local buffer's start. */
      const acp_ga_t d = strcmp(mode, "put") == 0 ? remote : strcmp(mode, "r2r") == 0 ? ga_of(dst)
                                                                                   : local;
      const acp_ga_t src = strcmp(mode, "put") == 0 ? local : remote;
      const int add = strcmp(mode, "add4") == 0;
      uint64_t t0 = 0;
      for (unsigned k = 0; k <= iters; ++k) {
        if (k == 1) t0 = emx_cycles(); /* the first is a warm-up */
        acp_complete(add ? acp_add4(d, src, 1, ACP_HANDLE_NULL)
                         : acp_copy(d, src, bytes, ACP_HANDLE_NULL));
      }
      const double cycles = (double)(emx_cycles() - t0) / iters;
      const double us = cycles / (emx_clock_khz() / 1000.0);
      emx_result("cycles", cycles);
      emx_result("us", us);
      emx_result("mbytes_per_s", bytes / us);
      printf("acp %s %u bytes rank 0 <-> %u: %.1f cycles, %.2f us\n", mode, (unsigned)bytes, peer,
             cycles, us);
    }
  }
  acp_sync();
  if (me == 0) {
    emx_result_int("mem_init_bytes", (long long)acp_memory_bytes());
    emx_result_int("mem_peak_bytes", (long long)(emx_heap_peak() - before));
  }
  acp_finalize();
  return 0;
}
