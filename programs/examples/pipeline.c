/* A pipeline through I-structures: PE 0 produces items, every further PE is a stage
 * that transforms each item and hands it on, the last PE consumes them.
 *
 *   ex_pipeline [ITEMS]        (default 32)
 *
 * Stage p reads item k from its own I-structure element in[k] and writes the result
 * into in[k] of PE p+1. A read of an element not written yet blocks the stage: the
 * memory unit keeps the reader's continuation in the element and answers when the
 * write arrives. So the stages run at the pace of the slowest, with no other
 * synchronisation. docs/examples/pipeline.md. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_ITEMS = 1024 };
static uint32_t in[MAX_ITEMS]; /* I-structure elements: one per item, read once */

static volatile uint32_t sink;
static void work(unsigned clocks) { /* a stage's own computation */
  for (unsigned k = 0; k < clocks / 4; ++k) sink += k;
}

int main(int argc, char **argv) {
  unsigned items = argc > 1 ? (unsigned)atoi(argv[1]) : 32;
  if (items > MAX_ITEMS) items = MAX_ITEMS;
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  const uint32_t t0 = (uint32_t)emx_cycles();
  uint32_t sum = 0;
  for (unsigned k = 0; k < items; ++k) {
    /* Stage 0 makes item k; the others wait for it. */
    uint32_t v = me == 0 ? k : emx_iread(emx_gaddr_mine(&in[k]));
    work(100 + 50 * (me % 3)); /* stages of different speeds */
    v = 2 * v + 1;             /* this stage's transformation */
    if (me + 1 < pes) emx_iwrite(emx_gaddr(me + 1, &in[k]), v);
    else sum += v;
  }
  if (me == pes - 1) {
    uint32_t want = 0; /* the same, sequentially */
    for (unsigned k = 0; k < items; ++k) {
      uint32_t v = k;
      for (unsigned stage = 0; stage < pes; ++stage) v = 2 * v + 1;
      want += v;
    }
    const uint32_t cycles = (uint32_t)emx_cycles() - t0;
    printf("%u items through %u stages: sum %u, %s; %u clocks, %.1f per item\n", items, pes,
           (unsigned)sum, sum == want ? "correct" : "WRONG", (unsigned)cycles,
           (double)cycles / items);
    emx_result_int("pipeline_sum", sum);
    emx_result_int("pipeline_cycles", cycles);
  }
  return 0;
}
