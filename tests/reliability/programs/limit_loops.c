/* Runs that the cycle limit cuts (tests/reliability/test_cycle_limit.py). MODE:
 *   compute  every PE runs a C loop that does not end;
 *   idle     PE 0 runs that loop, the others wait idle in a barrier it never reaches;
 *   stream   every PE writes to its right neighbour and reads what its left one wrote,
 *            in a loop that does not end (the network busy at the limit). */
#include <emx/collective.h>
#include <emx/emx.h>
#include <emx/remote.h>
#include <string.h>

static volatile uint32_t inbox[64];

static uint32_t spin(uint32_t seed) {
  volatile uint32_t x = seed;
  for (;;) x = x * 1103515245u + 12345u;
  return x;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "compute";
  const unsigned me = emx_pe_id(), n = emx_pe_count();
  if (!strcmp(mode, "idle")) {
    if (me == 0) spin(me);
    emx_barrier();
    return 0;
  }
  if (!strcmp(mode, "stream")) {
    const unsigned right = (me + 1) % n;
    uint32_t sum = 0;
    for (uint32_t k = 0;; ++k) {
      emx_write(emx_gaddr(right, &inbox[k % 64]), k);
      sum += inbox[(k + 32) % 64];
      if ((k & 255) == 255) emx_fence(right);
    }
    return (int)sum;
  }
  return (int)spin(me);
}
