/* Must fault: a word store to an address that is not a multiple of 4. */
#include <stdint.h>
#include <stdio.h>

static uint32_t words[4];
static volatile uintptr_t offset = 2;

static __attribute__((noipa)) void poke_misaligned(uint32_t value) {
  *(volatile uint32_t *)((uintptr_t)words + offset) = value;
}

int main(void) {
  printf("storing a word at a misaligned address\n");
  poke_misaligned(1);
  printf("still running: the store did not fault\n");
  return 0;
}
