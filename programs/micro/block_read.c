/* Block remote read throughput: the memory unit of PE 0 sends a block to each reader as
 * remote writes (emx_read_block), then an I-structure write that wakes the reader; or,
 * with `sysrd`, the hardware's SYSRD a word (emx_read_words: the reader's loop asks for
 * every word but the last, each replying as a remote write, and reads the last by a plain
 * SYSRD, whose reply follows them).
 *   micro_block_read [WORDS [READERS [block|sysrd]]]     (default 16384 words, 1 reader)
 * READERS PEs (1 .. pes-1) each request WORDS words of PE 0 at the same clock (after a
 * barrier) and wait for their completion. Results: block_read_bytes (all readers),
 * block_read_cycles (request to the last completion), block_read_cycles_per_word,
 * block_read_mb_s (aggregate: PE 0's output link carries it all). EM-X only. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 65536
static uint32_t block[MAX_WORDS];
static uint32_t flag;
static volatile uint32_t took[1024]; /* on PE 0: each reader's clocks */

int main(int argc, char **argv) {
  const unsigned words = argc > 1 ? (unsigned)atoi(argv[1]) : 16384;
  const unsigned pes = emx_pe_count(), me = emx_pe_id();
  const unsigned readers = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
  const int by_sysrd = argc > 3 && strcmp(argv[3], "sysrd") == 0;
  if (pes < 2 || words == 0 || words > MAX_WORDS || readers == 0 || readers >= pes ||
      (argc > 3 && !by_sysrd && strcmp(argv[3], "block") != 0) ||
      !(emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS)) {
    if (me == 0)
      printf("usage: micro_block_read [WORDS (<= %u)] [READERS (< PEs)] [block|sysrd], EM-X "
             "(direct remote access), >= 2 PEs\n", MAX_WORDS);
    return 2;
  }
  if (me == 0)
    for (unsigned k = 0; k < words; ++k) block[k] = k * 2654435761u;
  emx_barrier();
  if (me >= 1 && me <= readers) {
    const uint32_t t0 = (uint32_t)emx_cycles();
    if (by_sysrd) {
      emx_read_words(emx_gaddr_mine(block), emx_gaddr(0, block), words - 1);
      block[words - 1] = emx_read(emx_gaddr(0, &block[words - 1]));
    } else {
      emx_read_block(emx_gaddr_mine(block), emx_gaddr(0, block), words, emx_gaddr_mine(&flag));
      (void)emx_iread(emx_gaddr_mine(&flag));
    }
    emx_write(emx_gaddr(0, (const void *)&took[me]), (uint32_t)emx_cycles() - t0);
    if (block[words - 1] != (words - 1) * 2654435761u) {
      printf("PE %u: wrong data\n", me);
      return 1;
    }
  }
  emx_barrier();
  if (me == 0) {
    uint32_t cycles = 0;
    for (unsigned r = 1; r <= readers; ++r)
      if (took[r] > cycles) cycles = took[r];
    const uint64_t bytes = 4ull * words * readers;
    const double mb_s = (double)bytes * emx_clock_khz() / 1000.0 / cycles;
    emx_result_int("block_read_bytes", (long long)bytes);
    emx_result_int("block_read_cycles", cycles);
    emx_result("block_read_cycles_per_word", (double)cycles / (words * readers));
    emx_result("block_read_mb_s", mb_s);
    printf("%llu bytes read from PE 0 by %u PE(s): %u cycles, %.3f cycles/word, %.2f MB/s\n",
           (unsigned long long)bytes, readers, (unsigned)cycles,
           (double)cycles / (words * readers), mb_s);
  }
  return 0;
}
