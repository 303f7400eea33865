/* Remote write throughput by SYSWR block writes from PE 0.
 *   micro_remote_write [WORDS [one|all]]     (default 8192 words, one)
 * one: PE 0 streams WORDS words to PE 1; all: WORDS words to each other PE in turn.
 * After each block, an invocation follows the data (same source and destination: FIFO),
 * and the receiver acknowledges with the clock at which everything had arrived.
 * Results: remote_write_bytes, remote_write_cycles (first send to last arrival),
 * remote_write_send_cycles (first to last send), remote_write_mb_s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emx/remote.h>

#include "micro.h"

#define MAX_WORDS 65536
static uint32_t block[MAX_WORDS];
static void done(uint32_t reply_to, uint32_t unused, uint32_t cont);
static void ack(uint32_t arrived_at, uint32_t unused, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, done, ack};
static struct micro_frame frame = {tmpl, {0}};

static unsigned expected_acks, acks;
static uint64_t t0, t_sent;
static uint32_t last_arrival;
static unsigned words;


static void done(uint32_t reply_to, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  emx_send(EMX_PKT_invoke1, reply_to, (uint32_t)emx_cycles());
}

static void ack(uint32_t arrived_at, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  if (arrived_at > last_arrival) last_arrival = arrived_at;
  if (++acks < expected_acks) return;
  const uint64_t bytes = 4ull * words * expected_acks;
  const uint32_t cycles = last_arrival - (uint32_t)t0;
  const double mb_s = (double)bytes * emx_clock_khz() / 1000.0 / cycles;
  emx_result_int("remote_write_bytes", (long long)bytes);
  emx_result_int("remote_write_cycles", cycles);
  emx_result_int("remote_write_send_cycles", (long long)(t_sent - t0));
  emx_result("remote_write_mb_s", mb_s);
  emx_result("remote_write_cycles_per_word", (double)cycles / (words * expected_acks));
  printf("%llu bytes to %u PE(s): %u cycles, %.3f cycles/word, %.2f MB/s\n",
         (unsigned long long)bytes, expected_acks, (unsigned)cycles,
         (double)cycles / (words * expected_acks), mb_s);
  emx_exit(0);
}

int main(int argc, char **argv) {
  words = argc > 1 ? (unsigned)atoi(argv[1]) : 8192;
  const int all = argc > 2 && strcmp(argv[2], "all") == 0;
  const unsigned n = emx_pe_count();
  if (emx_pe_id() != 0) return 0;  /* receivers: the hardware does the work */
  if (n < 2 || words == 0 || words > MAX_WORDS || words % 16) {
    printf("usage: micro_remote_write [WORDS (multiple of 16, <= %u)] [one|all], >= 2 PEs\n",
           MAX_WORDS);
    return 2;
  }
  for (unsigned k = 0; k < words; ++k) block[k] = k * 2654435761u;
  expected_acks = all ? n - 1 : 1;
  t0 = emx_cycles();
  for (unsigned d = 1; d <= expected_acks; ++d) {
    const emx_gaddr_t g = emx_gaddr(d, block);  /* same address on the receiver */
    /* The runtime's block write: on EM-X a load and a register-relative send per word;
     * on EM-4 also the two address updates (runtime/src/remote.c). */
    emx_put(g, block, words);
    emx_send(EMX_PKT_invoke1, micro_cont(d, &frame, 1), micro_cont(0, &frame, 2));
  }
  t_sent = emx_cycles();
  emx_end();  /* the acknowledgements come as threads */
  return 0;
}
