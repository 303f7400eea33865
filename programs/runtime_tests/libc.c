/* printf and malloc from threads: handler threads, spawned computations that block
 * between their calls (so they run on stacks of their own), and computations on a
 * larger stack (emx_stack_bytes) that format floats and recurse. One PE: the output
 * order is deterministic. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned finished;

static void report(uint32_t x, uint32_t arg16, uint32_t addr) {
  (void)addr;
  printf("handler: %u %u %.3f\n", (unsigned)x, (unsigned)arg16, (double)x / 7);
}
EMX_HANDLER(report);

static unsigned depth(unsigned n) { /* some stack use, not optimised away */
  volatile char pad[64];
  pad[0] = (char)n;
  return n ? depth(n - 1) + pad[0] - (char)n + 1 : 0;
}

static void worker(uint32_t *args) {
  const unsigned id = args[0];
  char *s = malloc(32 + id);
  snprintf(s, 32 + id, "worker %u: %e", id, 1.5 * id);
  emx_yield(); /* blocks: this computation keeps its stack from now on */
  printf("%s, after a yield; depth %u\n", s, depth(20 + id));
  free(s);
  EMX_INVOKE(0, report, 100 + id, id * 1000 + 1);
  emx_yield();
  ++finished;
}

int main(void) {
  if (emx_pe_id() != 0) return 0;
  emx_stack_bytes = 16 * 1024; /* stacks made from now on */
  for (uint32_t id = 1; id <= 4; ++id) emx_spawn(0, worker, &id, 1);
  while (finished < 4) emx_yield();
  emx_yield(); /* the last handler prints */
  printf("all done\n");
  printf("stacks: %u made, %u free\n", emx_stacks_made(), emx_stacks_free());
  return 0;
}
