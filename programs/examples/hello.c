/* Hello from every PE, in PE order, and a global sum.
 *
 * Every PE runs this same main (SPMD). Turn t belongs to PE t: it prints, and then all
 * PEs meet in a barrier, so PE t+1 prints only after PE t has. A barrier blocks the C
 * code of main: the hardware thread ends and main resumes when the barrier's last
 * message arrives (docs/examples/hello.md). */
#include <emx/emc.h>
#include <stdio.h>

int main(void) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  for (unsigned turn = 0; turn < pes; ++turn) {
    if (turn == me) printf("Hello from PE %u of %u\n", me, pes);
    emx_barrier();
  }
  const int32_t sum = emx_sum_i32((int32_t)me); /* every PE gets the same total */
  if (me == 0) printf("The PE numbers add up to %d\n", (int)sum);
  return 0;
}
