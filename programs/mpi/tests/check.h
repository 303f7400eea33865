/* Checks for the MPI test programs (tests/mpi): each rank counts its failures and prints
 * the first few; report() prints one line per test on rank 0, "NAME: ok" when no rank
 * failed, so the Python side compares a short, deterministic output. A program whose
 * tests run in several computations at once (MPI_THREAD_MULTIPLE) gives each its own
 * `checks` and uses check_in and failures_on. */
#ifndef MPI_TEST_CHECK_H
#define MPI_TEST_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One computation's checks: failures since the last report, and the computation's number
 * for its messages (-1: the rank's only one). */
typedef struct {
  int failures, computation;
} checks;

static checks check_main = {0, -1};

static inline int vcheck_in(checks *c, int ok, const char *fmt, va_list ap) {
  if (ok) return 1;
  if (c->failures++ < 5) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (c->computation < 0) printf("rank %d: FAILED: ", rank);
    else printf("rank %d computation %d: FAILED: ", rank, c->computation);
    vprintf(fmt, ap);
    printf("\n");
  }
  return 0;
}

__attribute__((format(printf, 3, 4))) static inline int check_in(checks *c, int ok,
                                                                 const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int r = vcheck_in(c, ok, fmt, ap);
  va_end(ap);
  return r;
}

__attribute__((format(printf, 2, 3))) static inline int check(int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int r = vcheck_in(&check_main, ok, fmt, ap);
  va_end(ap);
  return r;
}

/* Every member of comm calls it: the failures of all of them since the last call. */
static inline int failures_on(MPI_Comm comm, checks *c) {
  int all;
  MPI_Allreduce(&c->failures, &all, 1, MPI_INT, MPI_SUM, comm);
  c->failures = 0;
  return all;
}

/* Every rank calls it: the failures of all ranks decide. */
static inline void report(const char *name) {
  int rank;
  const int all = failures_on(MPI_COMM_WORLD, &check_main);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s: %s\n", name, all ? "FAILED" : "ok");
}

/* A program's tests by name: run_named_tests runs those named in argv (all when none
 * is), each followed by its report line. */
typedef struct {
  const char *name;
  void (*fn)(void);
} named_test;

static inline void run_named_tests(int argc, char **argv, const named_test *tests, unsigned n) {
  for (unsigned k = 0; k < n; ++k) {
    int wanted = argc < 2;
    for (int a = 1; a < argc; ++a) wanted |= !strcmp(argv[a], tests[k].name);
    if (!wanted) continue;
    tests[k].fn();
    report(tests[k].name);
  }
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
