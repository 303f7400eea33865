/* Each PE hashes its loaded image from the code's start to the end of the read-only
 * data, word by word: every PE must hold the program as its file has it, however the
 * simulator put it there (the code's whole pages are mapped once for all PEs, the bytes
 * around them copied into each: tests/machine/test_machine.py, ProgramImage). */
#include <emx/emx.h>
#include <stdint.h>
#include <stdio.h>

extern const uint32_t __emx_handlers_start[];  /* runtime/link/emx.ld: after .rodata */

int main(void) {
  const uint32_t* const end = __emx_handlers_start;
  uint32_t h = 2166136261u;  /* FNV-1a over words */
  for (const uint32_t* p = (const uint32_t*)0x1000; p < end; ++p) h = (h ^ *p) * 16777619u;
  printf("PE %u: [0x1000, 0x%x) hash %08x\n", emx_pe_id(), (unsigned)(uintptr_t)end,
         (unsigned)h);
  return 0;
}
