/* Yield fairness: three computations on one PE (main and two spawned) each yield in a
 * loop and log their letter; the ready queue is FIFO, so they take turns: ABCABC... */
#include <emx/emc.h>
#include <stdio.h>

enum { TURNS = 6 };
static char log_[3 * TURNS + 1];
static unsigned logged;

static void take_turns(char me) {
  for (int k = 0; k < TURNS; ++k) {
    log_[logged++] = me;
    emx_yield();
  }
}

static void spawned(uint32_t *args) { take_turns((char)args[0]); }

int main(void) {
  if (emx_pe_id() != 0) return 0;
  const uint32_t b = 'B', c = 'C';
  emx_spawn(0, spawned, &b, 1); /* they start when main first yields */
  emx_spawn(0, spawned, &c, 1);
  take_turns('A');
  emx_yield(); /* C's last yield returns after this */
  emx_yield();
  printf("%s\n", log_);
  /* Each spawned computation blocked on the shared stack once (taking it) and gave it
   * back when it ended: every stack but the shared one is in the pool again. */
  printf("stacks: %u made, %u free\n", emx_stacks_made(), emx_stacks_free());
  return 0;
}
