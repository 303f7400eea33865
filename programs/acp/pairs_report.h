/* The one-way latency of T ping-pong pairs (ompl_pingpong, acp_mpi_threads): each pair's
 * clocks for ITERS round trips after a warm-up, summed and maximised over all PEs. */
#ifndef PAIRS_REPORT_H
#define PAIRS_REPORT_H

#include <emx/collective.h>
#include <stdio.h>

/* Collective. took[0..mine-1]: this PE's pairs. Results on PE 0: oneway_cycles,
 * oneway_us (mean over the pairs), oneway_max_us (the slowest pair). */
static inline void report_pairs(const char *label, unsigned T, unsigned bytes, unsigned iters,
                                const uint64_t *took, unsigned mine) {
  int32_t sum = 0, max = 0;
  for (unsigned t = 0; t < mine; ++t) {
    sum += (int32_t)took[t];
    if ((int32_t)took[t] > max) max = (int32_t)took[t];
  }
  sum = emx_sum_i32(sum);
  max = emx_allreduce_i32(max, EMX_OP_MAX);
  if (emx_pe_id() != 0) return;
  const double mhz = emx_clock_khz() / 1000.0;
  const double mean = (double)sum / T / (2.0 * iters), worst = (double)max / (2.0 * iters);
  emx_result("oneway_cycles", mean);
  emx_result("oneway_us", mean / mhz);
  emx_result("oneway_max_us", worst / mhz);
  printf("%s T=%u %u bytes: one-way %.1f cycles = %.2f us (slowest pair %.2f us)\n", label, T,
         bytes, mean, mean / mhz, worst / mhz);
}

#endif
