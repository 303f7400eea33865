/* Must fault: a store through a null pointer hits the guard page below 0x1000.
 * The pointer comes from a volatile so GCC cannot see it is null and emits the store;
 * noipa keeps the function whole and under its own name for the fault report. */
#include <stdio.h>

static int *volatile target;

static __attribute__((noipa)) void poke_null(int value) { *target = value; }

int main(void) {
  printf("storing through a null pointer\n");
  poke_null(1);
  printf("still running: the store did not fault\n");
  return 0;
}
