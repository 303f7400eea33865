/* Remote read latency over all pairs of PEs: PE p reads one word from every other PE by
 * SYSRD, one read at a time (the reply invokes a continuation thread); then it passes
 * the turn, with the statistics so far, to PE p+1. Only one read is in the machine at a
 * time, so there is no contention: the latency is the machine's, send to continuation.
 * The last PE reports: remote_read_{min,max,mean}_cycles. */
#include <stdio.h>

#include "micro.h"

static volatile uint32_t word = 42;
static void got_reply(uint32_t value, uint32_t unused, uint32_t cont);
static void my_turn(uint32_t unused0, uint32_t unused1, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, got_reply, my_turn};
static struct micro_frame frame = {tmpl, {0}};

static volatile struct micro_stats acc;  /* all rows so far (written by the previous PE) */
static volatile struct micro_stats row;  /* this PE's row */
static unsigned target;
static uint64_t sent_at;

static void read_next(void) {
  const unsigned me = emx_pe_id(), n = emx_pe_count();
  if (target == me) ++target;
  if (target >= n) { /* row done: merge and pass the turn on, or report */
    micro_stats_merge(&acc, &row);
    if (me + 1 < n) {
      micro_put(me + 1, &acc, &acc, sizeof acc / 4);  /* FIFO: arrives before the turn */
      emx_send(EMX_PKT_invoke1, micro_cont(me + 1, &frame, 2), 0);
    } else {
      emx_result_int("remote_read_min_cycles", acc.min);
      emx_result_int("remote_read_max_cycles", acc.max);
      emx_result("remote_read_mean_cycles", (double)acc.sum / acc.count);
      emx_result_int("pairs", acc.count);
      printf("remote read over %u pairs: min %u, max %u, mean %.2f cycles\n", (unsigned)acc.count,
             (unsigned)acc.min, (unsigned)acc.max, (double)acc.sum / acc.count);
    }
    emx_exit(0);
  }
  sent_at = emx_cycles();
  emx_send(EMX_PKT_sysrd, emx_gaddr(target, &word), micro_cont(me, &frame, 1));
}

static void got_reply(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  const uint32_t latency = (uint32_t)(emx_cycles() - sent_at);
  if (value != 42) {
    printf("PE %u read %u from PE %u, expected 42\n", emx_pe_id(), (unsigned)value, target);
    emx_exit(1);
  }
  micro_stats_add(&row, latency);
  ++target;
  read_next();
}

static void my_turn(uint32_t unused0, uint32_t unused1, uint32_t cont) {
  (void)unused0, (void)unused1, (void)cont;
  target = 0;
  read_next();
}

int main(void) {
  if (emx_pe_count() == 1) {
    printf("remote_read needs at least 2 PEs\n");
    return 1;
  }
  if (emx_pe_id() == 0) my_turn(0, 0, 0);
  /* End the main thread without exiting: each PE exits after its turn. */
  emx_end();
  return 0;
}
