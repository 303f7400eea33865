/* emx_delay: the computation idles for exactly the given clocks (plus a fixed suspension
 * cost), and other computations run meanwhile (the PE is not kept busy). */
#include <emx/emc.h>
#include <stdio.h>

static volatile unsigned worker_yields;

static void worker(uint32_t *args) {
  for (uint32_t k = 0; k < args[0]; ++k) {
    ++worker_yields;
    emx_yield();
  }
}

static uint64_t timed_delay(uint32_t clocks) {
  const uint64_t t0 = emx_cycles();
  emx_delay(clocks);
  return emx_cycles() - t0;
}

int main(void) {
  if (emx_pe_id() != 0) return 0;
  (void)timed_delay(1000); /* contexts and stacks made, code warm */
  /* The call's own cost: N + overhead clocks from entry to return. */
  const uint64_t overhead = timed_delay(1000) - 1000;
  static const uint32_t n[] = {17, 100, 1000, 4321, 65536, 1000000};
  unsigned exact = 0;
  for (unsigned k = 0; k < sizeof n / sizeof n[0]; ++k) {
    const uint64_t d = timed_delay(n[k]);
    if (d - n[k] == overhead) ++exact;
    else printf("delay %u took %llu clocks (expected %llu)\n", (unsigned)n[k],
                (unsigned long long)d, (unsigned long long)(overhead + n[k]));
  }
  /* Shorter than the suspension's own path: the timer fires before the thread has ended,
   * and the computation resumes as soon as it can. */
  emx_result_int("delay_0_cycles", (long long)timed_delay(0));
  emx_result_int("delay_1_cycles", (long long)timed_delay(1));
  emx_result_int("delay_5_cycles", (long long)timed_delay(5));
  /* Another computation runs while main waits: 20 yields (~650 clocks) inside 10 000. */
  const uint32_t yields = 20;
  emx_spawn(0, worker, &yields, 1);
  const uint64_t d = timed_delay(10000);
  printf("delay exact for %u of %u lengths; worker ran %u yields during a delay of 10000\n",
         exact, (unsigned)(sizeof n / sizeof n[0]), worker_yields);
  emx_result_int("delay_overhead_cycles", (long long)overhead);
  emx_result_int("delay_10000_with_worker_cycles", (long long)d);
  return 0;
}
