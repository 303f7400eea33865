/* The cost of 2-input matching: PE 0 starts a thread on itself with one 1-input packet,
 * then with a left and a right operand packet that meet in a matching slot. Each is
 * measured from before the (first) send to the thread's first instruction. Results:
 * invoke1_self_cycles, invoke2_self_cycles, match_extra_cycles. */
#include <stdio.h>

#include "micro.h"

static void one(uint32_t a0, uint32_t a1, uint32_t cont);
static void two(uint32_t left, uint32_t right, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, one, two};
static struct micro_frame frame = {tmpl, {0}};
static uint64_t t0;
static uint32_t c1;

static void one(uint32_t a0, uint32_t a1, uint32_t cont) {
  (void)a0, (void)a1, (void)cont;
  c1 = (uint32_t)(emx_cycles() - t0);
  t0 = emx_cycles();
  emx_send(EMX_PKT_invoke2l, micro_cont(0, &frame, 2), 30);
  emx_send(EMX_PKT_invoke2r, micro_cont(0, &frame, 2), 12);
}

static void two(uint32_t left, uint32_t right, uint32_t cont) {
  (void)cont;
  const uint32_t c2 = (uint32_t)(emx_cycles() - t0);
  emx_result_int("invoke1_self_cycles", c1);
  emx_result_int("invoke2_self_cycles", c2);
  emx_result_int("match_extra_cycles", (long long)c2 - (long long)c1);
  printf("left %u - right %u = %d; 1-input self invocation %u cycles, 2-input %u cycles\n",
         (unsigned)left, (unsigned)right, (int)(left - right), (unsigned)c1, (unsigned)c2);
  emx_exit(left - right == 18 ? 0 : 1);
}

int main(void) {
  if (emx_pe_id() != 0) return 0;
  t0 = emx_cycles();
  emx_send(EMX_PKT_invoke1, micro_cont(0, &frame, 1), 0);
  emx_end();
  return 0;
}
