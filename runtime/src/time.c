/* time, clock and the PE's facts for unistd.h: simulated time, this PE's clock counter. */
#include <emx/emx.h>
#include <time.h>
#include <unistd.h>

time_t time(time_t *t) {
  const time_t now = (time_t)(emx_cycles() / ((uint64_t)emx_clock_khz() * 1000u));
  if (t) *t = now;
  return now;
}

clock_t clock(void) {
  /* CLOCKS_PER_SEC per second: the clocks scaled by 1000 / kHz. */
  return (clock_t)(emx_cycles() * 1000u / emx_clock_khz());
}

double difftime(time_t a, time_t b) { return (double)(a - b); }

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
    default: return -1;
  }
}
