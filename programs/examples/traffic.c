/* Lesson 5: the circular omega network: routes, contention, and what a delay does.
 *
 *   ex_traffic [PATTERN [WORDS [GAP]]]        (default 0, 32, 0)
 *
 * Every PE writes WORDS words (SYSWR) into another PE: PATTERN 0 sends PE p's words to
 * PE (p + P/2) mod P (every PE sends and receives as much: the routes share links),
 * PATTERN 1 sends all of them to PE 0 (a hot spot: everything queues for the links into
 * PE 0 and its ejection port). GAP inserts that many clocks of other work between two
 * sends, as a program that computes between its messages does: the packets then meet
 * fewer others in the switches. Each PE times its writes until a read behind them
 * (emx_fence) returns; PE 0 prints the latest. docs/lessons/5-network.md. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_WORDS = 1024 };
static uint32_t inbox[MAX_WORDS];
static volatile uint32_t sink;

static void work(unsigned clocks) { /* about `clocks` clocks of other work */
  for (unsigned k = 0; k < clocks / 4; ++k) sink += k;
}

int main(int argc, char **argv) {
  const unsigned pattern = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  unsigned words = argc > 2 ? (unsigned)atoi(argv[2]) : 32;
  const unsigned gap = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
  if (words > MAX_WORDS) words = MAX_WORDS;
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  const unsigned to = pattern == 1 ? 0 : (me + pes / 2) % pes;
  emx_barrier();
  const uint32_t t0 = (uint32_t)emx_cycles();
  if (to != me) {
    for (unsigned k = 0; k < words; ++k) {
      emx_write(emx_gaddr(to, &inbox[k]), me);
      if (gap) work(gap);
    }
    emx_fence(to); /* a read behind the writes: its reply says they all arrived */
  }
  const int32_t done = emx_max_i32((int32_t)((uint32_t)emx_cycles() - t0));
  if (me == 0) {
    printf("pattern %u, %u words per PE, gap %u: all delivered after %d clocks\n",
           pattern, words, gap, (int)done);
    emx_result_int("clocks", done);
  }
  return 0;
}
