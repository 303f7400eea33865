/* Parallel Fibonacci by remote thread invocation.
 *
 *   ex_fib [N [CUTOFF]]        (default 20 and 10)
 *
 * fib(n) is a special-handler thread: two words are all it needs (n and the side it
 * answers on in the 16-bit argument, the continuation to answer in the data word), so
 * one packet starts it on any PE, no frame needed. Above the cutoff it takes a *join
 * frame*, invokes fib(n-1) and fib(n-2) on two other PEs, and ends: it does not wait.
 * The two children answer into slot 1 of the frame as the left and the right
 * operand of a 2-input packet; the matching unit keeps the first to arrive in the slot
 * and starts the join thread only when the second comes. The join adds them and answers
 * its own parent the same way. Nothing ever blocks: the computation is a tree of
 * threads linked by continuations. Only main on PE 0 waits, in a context, for the root's
 * answer. docs/examples/fib.md. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

enum { ANSWER_ONE, ANSWER_LEFT, ANSWER_RIGHT }; /* how a thread answers its parent */
enum { JOIN_SLOT = 1, PARENT = 2, SIDE = 3 };   /* words of a join frame */

static unsigned cutoff = 10;
static unsigned threads_here; /* fib threads this PE ran */

/* Below the cutoff, plain recursion inside one thread. */
static uint32_t fib_seq(unsigned n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }
static uint32_t fib_loop(unsigned n) { /* to check the answer */
  uint32_t a = 0, b = 1;
  while (n--) b += a, a = b - a;
  return a;
}

/* The packet type is part of the send instruction, hence the switch. */
static void answer(emx_gaddr_t cont, unsigned side, uint32_t value) {
  if (side == ANSWER_LEFT) emx_send(EMX_PKT_invoke2l, cont, value);
  else if (side == ANSWER_RIGHT) emx_send(EMX_PKT_invoke2r, cont, value);
  else emx_send(EMX_PKT_invoke1, cont, value);
}

/* Started by the matching unit with both operands: tp is the join frame. */
static void join(uint32_t left, uint32_t right, uint32_t cont) {
  (void)cont;
  uint32_t *frame = emx_frame();
  answer(frame[PARENT], frame[SIDE], left + right);
  emx_frame_free(frame);
}
static const emx_thread_fn join_template[2] = {0, join};

static void fib(uint32_t parent, uint32_t arg16, uint32_t addr);
EMX_HANDLER(fib);

static void fib(uint32_t parent, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned n = arg16 & 0x3fff, side = arg16 >> 14;
  ++threads_here;
  if (n < cutoff) {
    answer(parent, side, fib_seq(n));
    return;
  }
  uint32_t *frame = emx_frame_alloc(join_template);
  frame[PARENT] = parent;
  frame[SIDE] = side;
  const emx_gaddr_t slot = emx_continuation(frame, JOIN_SLOT);
  /* Spread the tree like a heap laid over the PEs: the children of PE p's thread go to
   * PEs 2p+1 and 2p+2 (mod P), so level d of the tree covers 2^d PEs. */
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  EMX_INVOKE((2 * me + 1) % pes, fib, (n - 1) | ANSWER_LEFT << 14, slot);
  EMX_INVOKE((2 * me + 2) % pes, fib, (n - 2) | ANSWER_RIGHT << 14, slot);
}

int main(int argc, char **argv) {
  const unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
  cutoff = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
  if (cutoff < 2) cutoff = 2;
  const unsigned me = emx_pe_id();
  if (me == 0) {
    emx_ctx_t *root = emx_ctx_new();
    const uint32_t t0 = (uint32_t)emx_cycles();
    EMX_INVOKE(0, fib, n | ANSWER_ONE << 14, emx_ctx_cont(root));
    const uint32_t value = emx_ctx_wait(root).a0; /* main blocks here */
    const uint32_t cycles = (uint32_t)emx_cycles() - t0;
    printf("fib(%u) = %u (cutoff %u): %s\n", n, (unsigned)value, cutoff,
           value == fib_loop(n) ? "correct" : "WRONG");
    printf("%u clocks on %u PEs\n", (unsigned)cycles, emx_pe_count());
    emx_result_int("fib", value);
    emx_result_int("fib_cycles", cycles);
  }
  emx_barrier(); /* the other PEs serve fib threads while their main waits here */
  const int32_t total = emx_sum_i32((int32_t)threads_here);
  const int32_t most = emx_max_i32((int32_t)threads_here);
  if (me == 0) {
    printf("%d fib threads on %u PEs, at most %d on one PE\n", (int)total, emx_pe_count(),
           (int)most);
    emx_result_int("fib_threads", total);
  }
  return 0;
}
