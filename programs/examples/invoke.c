/* Lesson 1: a packet fires a thread.
 *
 *   ex_invoke [N]        (default 6)
 *
 * PE 0 sends ONE packet to PE 1: a special-handler invocation (type spec) whose address
 * word names the handler and carries N, whose data word is PE 0's continuation. Its
 * arrival puts a ready thread into PE 1's input buffer; PE 1's execution unit, idle
 * until then, starts `square` with the packet's two words in registers. The thread sends
 * one packet back (inv1 to the continuation) and ends; that packet fires the thread that
 * resumes PE 0's main, which was waiting in a context. docs/lessons/1-packet-fires-thread.md. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

static void square(uint32_t cont, uint32_t arg16, uint32_t addr);
EMX_HANDLER(square);

/* A thread: started by a packet, runs to its end, never waits. */
static void square(uint32_t cont, uint32_t arg16, uint32_t addr) {
  (void)addr;
  emx_send(EMX_PKT_invoke1, cont, arg16 * arg16); /* the answer: one packet */
}

int main(int argc, char **argv) {
  const unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 6;
  if (emx_pe_id() == 0 && emx_pe_count() > 1) {
    emx_ctx_t *c = emx_ctx_new();
    EMX_INVOKE(1, square, n, emx_ctx_cont(c)); /* one packet to PE 1 */
    const uint32_t v = emx_ctx_wait(c).a0;     /* main's thread ends; the answer resumes it */
    printf("PE 1 computed %u * %u = %u\n", n, n, (unsigned)v);
    emx_result_int("square", v);
  } else {
    /* PE 1's own main is busy when the packet arrives: the thread it readies waits. */
    volatile uint32_t sum = 0;
    for (unsigned i = 0; i < 200; ++i) sum += i;
  }
  emx_barrier();
  return 0;
}
