/* Checks for the MPI test programs (tests/mpi): each rank counts its failures and prints
 * the first few; report() prints one line per test on rank 0, "NAME: ok" when no rank
 * failed, so the Python side compares a short, deterministic output. */
#ifndef MPI_TEST_CHECK_H
#define MPI_TEST_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

static int check_failures;

__attribute__((format(printf, 2, 3))) static inline int check(int ok, const char *fmt, ...) {
  if (ok) return 1;
  if (check_failures++ < 5) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    va_list ap;
    va_start(ap, fmt);
    printf("rank %d: FAILED: ", rank);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
  }
  return 0;
}

/* Every rank calls it: the failures of all ranks decide. */
static inline void report(const char *name) {
  int all, rank;
  MPI_Allreduce(&check_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s: %s\n", name, all ? "FAILED" : "ok");
  check_failures = 0;
}

/* A deterministic pseudo-random sequence per rank (xorshift), for varied timing. */
static inline unsigned rnd(unsigned *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Busy work of about n clocks: skews the ranks against each other. */
static inline void spin(unsigned n) {
  for (volatile unsigned k = 0; k < n / 6; ++k) {
  }
}

#endif
