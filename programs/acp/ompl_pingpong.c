/* OMPL multi-task ping-pong (docs/experiments/acp-ompl.md).
 *
 *   ompl_pingpong T BYTES ITERS tasks   2 PEs, T tasks on each; task t of PE 0 and task t
 *                                       of PE 1 ping-pong, all T pairs at once
 *   ompl_pingpong T BYTES ITERS ranks   2T PEs, one task each: rank i <-> rank T + i
 *
 * A hop: ompl_put of BYTES into the partner's buffer, ompl_put_word to the partner's
 * flag; the partner's ompl_wait returns and it answers the same way. One-way latency of
 * a pair = its time for ITERS round trips (after one warm-up) / (2 ITERS). Results (PE
 * 0): oneway_cycles, oneway_us (mean over the pairs), oneway_max_us. */
#include <emx/emc.h>
#include <ompl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs_report.h"

enum { MAX_T = 16, AREA = 2u << 20 };
static uint8_t *area; /* T buffers of BYTES, at the same address on every PE */
static uint32_t flag[MAX_T];
static uint64_t took[MAX_T];
static emx_sync_t done;
static uint32_t bytes, iters;

/* One side of pair t; `first`: it starts the ping-pong. */
static void side(unsigned t, unsigned partner, int first) {
  uint8_t *buf = area + (size_t)t * bytes;
  uint64_t t0 = emx_cycles();
  for (uint32_t k = 0; k <= iters; ++k) {
    if (k == 1) t0 = emx_cycles();
    if (first) {
      ompl_put(buf, (int)partner, buf, bytes);
      ompl_put_word((int)partner, &flag[t]);
      ompl_wait(&flag[t]);
    } else {
      ompl_wait(&flag[t]);
      ompl_put(buf, (int)partner, buf, bytes);
      ompl_put_word((int)partner, &flag[t]);
    }
  }
  took[t] = emx_cycles() - t0;
}

static void task(uint32_t *args) {
  side(args[0], 1 - emx_pe_id(), emx_pe_id() == 0);
  emx_sync_done(&done);
}

int main(int argc, char **argv) {
  const unsigned T = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
  bytes = argc > 2 ? (uint32_t)atoi(argv[2]) : 4;
  iters = argc > 3 ? (uint32_t)atoi(argv[3]) : 10;
  const int ranks = argc > 4 && strcmp(argv[4], "ranks") == 0;
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  if (T < 1 || T > MAX_T || (uint64_t)T * bytes > AREA || iters < 1 ||
      pes < (ranks ? 2 * T : 2)) {
    if (me == 0) printf("ompl_pingpong: T 1..%d, T*BYTES <= %u, %s PEs needed\n", MAX_T, AREA,
                        ranks ? "2T" : "2");
    return 2;
  }
  ompl_init();
  /* Every PE makes the same calls before, so malloc gives the same address everywhere. */
  area = malloc((size_t)T * bytes + 4);
  if (!area || emx_allreduce_i32((int32_t)(uintptr_t)area, EMX_OP_MAX) !=
                   emx_allreduce_i32((int32_t)(uintptr_t)area, EMX_OP_MIN)) {
    if (me == 0) printf("ompl_pingpong: no memory, or buffers at different addresses\n");
    return 3;
  }
  /* Each pair's time is on its first side: PE 0 (tasks) or ranks 0..T-1. */
  unsigned mine = 0;
  if (ranks) {
    if (me < 2 * T) side(0, me < T ? me + T : me - T, me < T);
    mine = me < T;
  } else if (me < 2) {
    emx_sync_init(&done, (int32_t)T);
    for (uint32_t t = 0; t < T; ++t) emx_spawn(me, task, &t, 1);
    emx_sync_wait(&done);
    mine = me == 0 ? T : 0;
  }
  report_pairs(ranks ? "ompl ranks" : "ompl tasks", T, bytes, iters, took, mine);
  ompl_finalize();
  return 0;
}
