/* Time for picolibc (time, clock, gettimeofday, times) and the PE's facts for unistd.h:
 * simulated time, this PE's clock counter from the start of the run. */
#include <emx/emx.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "runtime_internal.h"

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  (void)tz;
  const uint64_t us = emx_cycles() * 1000u / emx_clock_khz();
  tv->tv_sec = (time_t)(us / 1000000u);
  tv->tv_usec = (suseconds_t)(us % 1000000u);
  return 0;
}

/* clock() is the sum of these, in CLOCKS_PER_SEC (10^6 on RISC-V): simulated
 * microseconds, all of them the program's. */
clock_t times(struct tms *t) {
  const clock_t now = (clock_t)(emx_cycles() * CLOCKS_PER_SEC / (emx_clock_khz() * 1000ull));
  *t = (struct tms){.tms_utime = now};
  return now;
}

enum { PAGE = 4096 }; /* the code/data boundary of emx.ld */

int getpagesize(void) { return PAGE; }

long sysconf(int name) {
  switch (name) {
    case _SC_PAGESIZE: return PAGE;
    case _SC_PHYS_PAGES: return (long)(emx_mem_bytes() / PAGE);
    case _SC_AVPHYS_PAGES: return (long)((emx_mem_bytes() - emx_heap_in_use()) / PAGE);
    case _SC_NPROCESSORS_CONF:
    case _SC_NPROCESSORS_ONLN: return 1; /* this PE; emx_pe_count() PEs run the program */
    case _SC_CLK_TCK: return CLOCKS_PER_SEC;
    default: EMX_PE_ERRNO = EINVAL; return -1;
  }
}
