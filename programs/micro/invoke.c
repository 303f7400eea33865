/* Thread invocation round trip: PE 0 invokes a thread on PE j, which invokes one back on
 * PE 0; one round trip at a time, for every j. Results:
 * invoke_round_trip_{min,max,mean}_cycles. */
#include <stdio.h>

#include "micro.h"

static void pong(uint32_t reply_to, uint32_t unused, uint32_t cont);
static void back(uint32_t unused0, uint32_t unused1, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, pong, back};
static struct micro_frame frame = {tmpl, {0}};
static struct micro_stats st;
static unsigned target = 1;
static uint64_t sent_at;

static void ping(void) {
  sent_at = emx_cycles();
  emx_send(EMX_PKT_invoke1, micro_cont(target, &frame, 1), micro_cont(0, &frame, 2));
}

static void pong(uint32_t reply_to, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  emx_send(EMX_PKT_invoke1, reply_to, 0);
}

static void back(uint32_t unused0, uint32_t unused1, uint32_t cont) {
  (void)unused0, (void)unused1, (void)cont;
  micro_stats_add(&st, (uint32_t)(emx_cycles() - sent_at));
  if (++target < emx_pe_count()) {
    ping();
    return;
  }
  emx_result_int("invoke_round_trip_min_cycles", st.min);
  emx_result_int("invoke_round_trip_max_cycles", st.max);
  emx_result("invoke_round_trip_mean_cycles", (double)st.sum / st.count);
  printf("invocation round trip PE 0 <-> PE 1..%u: min %u, max %u, mean %.2f cycles\n",
         emx_pe_count() - 1, (unsigned)st.min, (unsigned)st.max, (double)st.sum / st.count);
  emx_exit(0);
}

int main(void) {
  if (emx_pe_id() != 0) return 0;
  if (emx_pe_count() < 2) {
    printf("invoke needs at least 2 PEs\n");
    return 1;
  }
  ping();
  emx_end();
  return 0;
}
