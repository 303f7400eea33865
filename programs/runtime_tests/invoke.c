/* Remote thread invocation: with two words through a special handler, with a frame for
 * more arguments (EM-X's protocol: request a frame, write the arguments, invoke), a
 * spawned function that blocks, two replies joined in a context's matching slot (also
 * when they arrive before the wait), counters signalled from every PE, and the frame
 * allocator. PE 0 drives; it prints one line per check. */
#include <emx/emc.h>
#include <stdio.h>

static unsigned errors;
static void check(const char *what, int ok) {
  printf("%s: %s\n", what, ok ? "ok" : "FAILED");
  errors += !ok;
}

/* ---- Two words: the special handler answers to the continuation in the data word. */
static void square(uint32_t reply_to, uint32_t x, uint32_t addr) {
  (void)addr;
  emx_send(EMX_PKT_invoke1, reply_to, x * x + emx_pe_id());
}
EMX_HANDLER(square);

/* ---- A frame: sum of the arguments, written back to the invoker, then a signal. */
static uint32_t results[1024];
static void sum_args(uint32_t *args) {
  const unsigned n = args[0];
  uint32_t s = 0;
  for (unsigned k = 0; k < n; ++k) s += args[2 + k];
  const emx_gaddr_t sync = args[1];
  emx_write(emx_gaddr(emx_gaddr_pe(sync), &results[emx_pe_id()]), s);
  emx_sync_signal(sync); /* after the write, on the same path: it has landed */
}

/* A spawned function that blocks: reads a word from the next PE, writes it back. */
static uint32_t word_here;
static void relay(uint32_t *args) {
  const unsigned next = (emx_pe_id() + 1) % emx_pe_count();
  const uint32_t v = emx_read(emx_gaddr(next, &word_here));
  emx_write(args[0], v);
  emx_sync_signal(args[1]);
}

/* ---- Joins: two handlers answer as left and right operand of one matching slot. */
static void left_of(uint32_t cont, uint32_t x, uint32_t addr) {
  (void)addr;
  emx_send(EMX_PKT_invoke2l, cont, x + 1);
}
EMX_HANDLER(left_of);
static void right_of(uint32_t cont, uint32_t x, uint32_t addr) {
  (void)addr;
  emx_send(EMX_PKT_invoke2r, cont, x + 2);
}
EMX_HANDLER(right_of);

static volatile uint32_t sink;
static void spin(unsigned n) {
  for (unsigned k = 0; k < n; ++k) sink += k;
}

static void drive(void) {
  const unsigned pes = emx_pe_count();
  uint32_t bad = 0;
  for (unsigned pe = 0; pe < pes; ++pe) { /* one at a time, blocking */
    emx_ctx_t *c = emx_ctx_new();
    EMX_INVOKE(pe, square, 3 + pe, emx_ctx_cont(c));
    bad += emx_ctx_wait(c).a0 != (3 + pe) * (3 + pe) + pe;
  }
  check("special handler on every PE, reply to a context", bad == 0);

  /* Frames: request one on every PE first, then fill and start them all. */
  const unsigned nargs = emx_spawn_max_args() < 12 ? emx_spawn_max_args() : 12;
  static emx_gaddr_t frames[1024];
  for (unsigned pe = 0; pe < pes; ++pe) frames[pe] = emx_frame_alloc_on(pe);
  emx_sync_t done;
  emx_sync_init(&done, (int32_t)pes);
  uint32_t args[14];
  args[0] = nargs - 2;
  args[1] = emx_gaddr_mine(&done);
  for (unsigned pe = 0; pe < pes; ++pe) {
    for (unsigned k = 2; k < nargs; ++k) args[k] = pe * 100 + k;
    emx_spawn_in(frames[pe], sum_args, args, nargs);
  }
  emx_sync_wait(&done);
  bad = 0;
  for (unsigned pe = 0; pe < pes; ++pe) {
    uint32_t want = 0;
    for (unsigned k = 2; k < nargs; ++k) want += pe * 100 + k;
    bad += results[pe] != want;
  }
  printf("frames of %u words: %u arguments per invocation\n", emx_frame_words(), nargs);
  check("invocation with a frame on every PE", bad == 0);

  /* Spawned functions that block (their stacks are stolen and given back). */
  emx_sync_init(&done, (int32_t)pes);
  for (unsigned pe = 0; pe < pes; ++pe) {
    const uint32_t a[2] = {emx_gaddr_mine(&results[pe]), emx_gaddr_mine(&done)};
    emx_spawn(pe, relay, a, 2);
  }
  emx_sync_wait(&done);
  bad = 0;
  for (unsigned pe = 0; pe < pes; ++pe) bad += results[pe] != 5000 + (pe + 1) % pes;
  check("spawned functions that block", bad == 0);

  /* A join: left and right operands meet in the context's slot; once before the wait. */
  const unsigned far = pes - 1;
  emx_ctx_t *c = emx_ctx_new();
  EMX_INVOKE(far, left_of, 10, emx_ctx_cont(c));
  EMX_INVOKE(0, right_of, 20, emx_ctx_cont(c));
  emx_reply_t r = emx_ctx_wait(c);
  check("join of two replies", r.a0 == 11 && r.a1 == 22);
  c = emx_ctx_new();
  EMX_INVOKE(far, left_of, 30, emx_ctx_cont(c));
  EMX_INVOKE(far, right_of, 40, emx_ctx_cont(c));
  emx_yield(); /* the replies arrive meanwhile and find nobody waiting */
  spin(3000);
  emx_yield();
  const int early = c->sp == 1; /* the context holds the reply (threads.h) */
  r = emx_ctx_wait(c);
  check("join that completed before the wait", early && r.a0 == 31 && r.a1 == 42);

  /* The frame allocator: aligned frames, template in word 0, reuse after free. */
  void *f[40];
  const uintptr_t mask = emx_frame_bytes() - 1;
  bad = 0;
  for (int k = 0; k < 40; ++k) {
    f[k] = emx_frame_alloc(f);
    bad += ((uintptr_t)f[k] & mask) != 0 || *(void **)f[k] != f;
  }
  for (int k = 0; k < 40; ++k) emx_frame_free(f[k]);
  bad += emx_frame_alloc(0) != f[39];
  check("frames aligned to their size, template in word 0, reused", bad == 0);
}

int main(void) {
  word_here = 5000 + emx_pe_id();
  emx_barrier();
  if (emx_pe_id() == 0) drive();
  return (int)emx_sum_i32((int32_t)errors) != 0;
}
