/* A thread recurses without bound on its pool stack (the runtime's thread stack): the
 * guard below the stack must stop it at once with "stack overflow". */
#include <emx/threads.h>
#include <stdio.h>
#include <stdlib.h>

/* The guard is on when the program asks for it (runtime/include/emx/threads.h). */
uint32_t emx_stack_guard_bytes = 256;

static unsigned recurse(unsigned n);
/* Called through a volatile pointer: GCC cannot turn the recursion into a loop. */
static unsigned (*volatile again)(unsigned) = recurse;

static __attribute__((noinline)) unsigned recurse(unsigned n) {
  volatile unsigned local[4] = {n, n + 1, n + 2, n + 3};
  if (n == 0) return local[0];
  return local[3] + again(n - 1);
}

static emx_sync_t done;
static unsigned result;

static void deep(uint32_t depth, uint32_t arg16, uint32_t addr) {
  (void)arg16;
  (void)addr;
  result = recurse(depth);
  emx_sync_done(&done);
}
EMX_HANDLER(deep);

int main(int argc, char **argv) {
  const unsigned depth = argc > 1 ? (unsigned)atoi(argv[1]) : 100000;
  emx_sync_init(&done, 1);
  EMX_INVOKE(emx_pe_id(), deep, 0, depth);
  emx_sync_wait(&done);
  printf("depth %u: %u\n", depth, result);
  return 0;
}
