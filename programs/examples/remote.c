/* Lesson 4: direct remote memory access, served by the memory unit without a thread.
 *
 *   ex_remote [WORDS]        (default 4)
 *
 * PE 0 writes WORDS words into PE 1's memory (one SYSWR packet each), then reads the
 * last one back (one SYSRD packet; the reply is an inv1 packet to PE 0's continuation).
 * On the EM-X (the default config) PE 1's memory unit serves both in a few clocks and
 * PE 1's execution unit never notices. On the EM-X' (--config emx-thread-write: no
 * direct remote access) each packet instead fires a handler thread on PE 1 that does the
 * store or the load: the same program, another machine. docs/lessons/4-remote-memory.md. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_WORDS = 64 };
static uint32_t box[MAX_WORDS]; /* PE 1's words that PE 0 writes */

int main(int argc, char **argv) {
  unsigned words = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
  if (words < 1) words = 1;
  if (words > MAX_WORDS) words = MAX_WORDS;
  if (emx_pe_id() == 0 && emx_pe_count() > 1) {
    const uint32_t t0 = (uint32_t)emx_cycles();
    for (unsigned k = 0; k < words; ++k) emx_write(emx_gaddr(1, &box[k]), 100 + k); /* SYSWR */
    const uint32_t v = emx_read(emx_gaddr(1, &box[words - 1])); /* SYSRD, blocks until the reply */
    const uint32_t clocks = (uint32_t)emx_cycles() - t0;
    printf("wrote %u words into PE 1, read back %u after %u clocks\n", words, (unsigned)v,
           (unsigned)clocks);
    emx_result_int("read_back", v);
    emx_result_int("clocks", clocks);
  }
  emx_barrier();
  return 0;
}
