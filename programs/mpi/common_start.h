/* One clock at which the timed part starts on every rank (mpi_delay_sched, mpi_throughput).
 *
 * The ranks leave a barrier at different clocks, and which rank reached it last decides who
 * leaves first (its message goes outward step by step). Timed from each rank's own exit,
 * a figure would depend on the untimed work before the barrier (parsing, filling,
 * checking): a faster parse moved makespans by up to 0.3 %. So every rank starts the timed
 * part at one clock: after the barrier the ranks agree on the latest exit (the runtime's
 * butterfly, one message a step, nothing left in flight) and each idles until START_GUARD
 * clocks after it, rounded up to a multiple of START_ALIGN. The machine is quiet then (the
 * receive requests' protocol threads have run), and what is timed starts in the same state
 * whatever came before. The idle clocks cost no host time. Every rank must call it. */
#ifndef COMMON_START_H
#define COMMON_START_H
#include <emx/emc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

enum { START_GUARD = 1 << 16, START_ALIGN = 1 << 10 };

/* The largest of the ranks' t (64 bits from two 32-bit maxima). */
static uint64_t latest(uint64_t t) {
  const int32_t hi = emx_max_i32((int32_t)(t >> 31));
  const int32_t lo = emx_max_i32((int32_t)(t >> 31) == hi ? (int32_t)(t & 0x7fffffff) : -1);
  return ((uint64_t)(uint32_t)hi << 31) | (uint32_t)lo;
}

/* Returns the clock at which the timed part starts on every rank, once it has come. */
static uint64_t common_start(const char *program, int me) {
  MPI_Barrier(MPI_COMM_WORLD);
  const uint64_t start =
      (latest(emx_cycles()) + START_GUARD + START_ALIGN - 1) / START_ALIGN * START_ALIGN;
  const uint64_t now = emx_cycles();
  /* emx_delay(N) returns N + DELAY_CALL clocks after it is entered (rt_delay). */
  enum { DELAY_CALL = 25 };
  if (now + DELAY_CALL + 1 >= start) {
    printf("%s (rank %d): the common start (clock %llu) came before this rank knew it "
           "(clock %llu): START_GUARD is too small for this machine\n",
           program, me, (unsigned long long)start, (unsigned long long)now);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  emx_delay((uint32_t)(start - now - DELAY_CALL - 1));
  return start;
}
#endif
