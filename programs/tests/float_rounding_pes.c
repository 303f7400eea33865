/* Each PE keeps its own dynamic rounding mode (frm) while the PEs take turns on the host:
 * even PEs round up, odd PEs down; after every barrier (threads end and resume, other PEs
 * run in between) a division rounded by frm must still follow this PE's mode. */
#include <emx/emc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

int main(void) {
  const unsigned me = emx_pe_id();
  const unsigned mode = (me & 1) ? 2 : 3; /* RDN : RUP */
  __asm__ volatile("fsrm %0" : : "r"(mode));
  volatile float one = 1.0f, three = 3.0f;
  /* 1/3 is inexact: RUP gives 0x3eaaaaab, RDN 0x3eaaaaaa. */
  const uint32_t want = (me & 1) ? 0x3eaaaaaau : 0x3eaaaaabu;
  int wrong = 0;
  for (int k = 0; k < 20; ++k) {
    emx_barrier();
    if (bits(one / three) != want) ++wrong;
  }
  printf("PE %u rounds %s: %d wrong of 20\n", me, (me & 1) ? "down" : "up", wrong);
  return wrong != 0;
}
