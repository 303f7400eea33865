/* The rest of the C library ordinary programs include: errno/strerror, setvbuf,
 * getpagesize/sysconf, time/clock from simulated time, qsort, bsearch, the strtol family,
 * strtod/atof, abs/labs/div, assert. Prints one line per check group. */
#include <assert.h>
#include <emx/emx.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int by_value(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(void) {
  setvbuf(stdout, 0, _IOLBF, 0);
  /* qsort of a shuffled array with duplicates, then bsearch. */
  int v[200];
  for (int k = 0; k < 200; ++k) v[k] = (k * 7919) % 101;
  qsort(v, 200, sizeof v[0], by_value);
  int sorted = 1;
  for (int k = 1; k < 200; ++k) sorted &= v[k - 1] <= v[k];
  const int key = 42, missing = 500;
  const int *hit = bsearch(&key, v, 200, sizeof v[0], by_value);
  printf("qsort: %s, bsearch: %d %s\n", sorted ? "sorted" : "NOT sorted", hit ? *hit : -1,
         bsearch(&missing, v, 200, sizeof v[0], by_value) ? "found 500" : "no 500");
  /* strto*. */
  char *end;
  errno = 0;
  long a = strtol("  -0x1fZ", &end, 0);
  long long b = strtoll("9223372036854775807", 0, 10);
  unsigned long long c = strtoull("18446744073709551615", 0, 10);
  long d = strtol("99999999999", 0, 10);
  printf("strtol: %ld rest %s, strtoll %lld, strtoull %llu, overflow %ld errno %s\n", a, end, b,
         c, d, errno == ERANGE ? "ERANGE" : "none");
  printf("strtod: %g %g %g %g %.3f %s\n", atof("3.25"), strtod("-1e-3", 0), strtod("0x1p4", 0),
         strtod("1.5e300", 0) * 1e-300, atof("  12.125xyz"), strtod("inf", 0) > 1e308 ? "inf" : "?");
  div_t q = div(-7, 2);
  printf("abs: %d %ld div %d %d\n", abs(-5), labs(-70000L), q.quot, q.rem);
  /* errno and strerror. */
  printf("strerror: %s / %s\n", strerror(ENOENT), strerror(EACCES));
  /* The PE: pages of local memory. */
  printf("pages: %d bytes, %ld of them (%s)\n", getpagesize(), sysconf(_SC_PHYS_PAGES),
         sysconf(_SC_PHYS_PAGES) * getpagesize() == (long)emx_mem_bytes() ? "the PE's memory" : "?");
  /* Simulated time: clock() counts microseconds of this PE's clocks. */
  const clock_t t0 = clock();
  for (volatile int k = 0; k < 1000; ++k) {
  }
  const clock_t t1 = clock();
  printf("clock: %s, time: %lld\n", t1 > t0 ? "advances" : "STUCK", (long long)time(0));
  emx_result_int("clock_us", t1 - t0);
  emx_result_int("cycles", (long long)emx_cycles());
  assert(sorted);
  printf("assert: passed\n");
  return 0;
}
