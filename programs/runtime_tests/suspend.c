/* Suspension keeps the live values of the C code, integers and floats, across many
 * suspensions while another computation dirties every register; and what a
 * suspension costs. Prints "live values kept" and the cost; results:
 *   self_invocation_cycles      a hand-written thread that invokes itself again (the
 *                               machine's part: send, network loop, dispatch)
 *   yield_cycles_0_live         one emx_yield() in a loop with no live value
 *   yield_cycles_4_live         the same with 4 live integers
 *   suspend_resume_cycles_0_live, _4_live   yield minus the machine's part
 *   lean_suspend_resume_cycles_0_live, _4_live   the same with the lean suspension
 *                               in a frame (__emx_suspend_frame, the collectives') */
#include <emx/emc.h>
#include <stdio.h>

enum { ROUNDS = 200, TIMING_ROUNDS = 1000 };

/* Many integer and float values live across every yield; returns a digest. With
 * suspend = 0 the same arithmetic runs without suspending (the reference). */
static uint32_t mix(unsigned rounds, int suspend, uint32_t seed) {
  uint32_t a = seed, b = a * 3 + 1, c = b ^ 0x55, d = c + 7, e = d * 5, f = e ^ 0x1234,
           g = f + 11, h = g * 13;
  float x = 1.5f, y = 2.25f, z = -0.75f, w = 3.0f, u = 0.5f, v = -1.25f;
  for (unsigned i = 0; i < rounds; ++i) {
    if (suspend) emx_yield();
    a += b;
    b ^= c << 1;
    c += d >> 2;
    d ^= e;
    e += f * 3;
    f ^= g;
    g += h;
    h ^= a + i;
    x = x * 0.5f + y;
    y = y - z * 0.25f;
    z = z + w * 0.125f;
    w = w * 0.75f + u;
    u = u + v * 0.5f;
    v = v * 0.5f - x * 0.01f;
  }
  const float fs = x + y + z + w + u + v;
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ emx_f32_bits(fs);
}

/* The other computation: its own live values, yields in step with ours. */
static uint32_t other_digest;
static void other(uint32_t *args) { other_digest = mix(args[0], 1, args[1]); }

/* ---- Timing ---- */

static volatile unsigned left; /* a global counter: the loop itself keeps nothing live */

/* The yield of the loops below: a context's (emx_yield), or the lean suspension in a
 * frame the loop owns (__emx_suspend_frame, the runtime's collectives' wait). */
static void *lean_frame;
static emx_gaddr_t lean_cont;
static inline void lean_yield(void) {
  emx_send(EMX_PKT_invoke1, lean_cont, 0);
  (void)__emx_suspend_frame(lean_frame);
}

#define YIELD_LOOPS(suffix, yield)                                                  \
  static uint32_t yields_0_live##suffix(void) {                                     \
    const uint32_t t0 = (uint32_t)emx_cycles();                                      \
    while (left) {                                                                   \
      --left;                                                                        \
      yield();                                                                       \
    }                                                                                \
    return (uint32_t)emx_cycles() - t0;                                              \
  }                                                                                  \
  static uint32_t yields_4_live##suffix(void) {                                     \
    uint32_t a = live4[0], b = live4[1], c = live4[2], d = live4[3];                 \
    const uint32_t t0 = (uint32_t)emx_cycles();                                      \
    while (left) {                                                                   \
      --left;                                                                        \
      yield();                                                                       \
      a += 1, b += 2, c += 3, d += 4; /* the four are used after the yield... */     \
    }                                                                                \
    const uint32_t t = (uint32_t)emx_cycles() - t0;                                  \
    live4[0] = a, live4[1] = b, live4[2] = c, live4[3] = d; /* ...and after it */    \
    return t;                                                                        \
  }

static uint32_t live4[4];
YIELD_LOOPS(, emx_yield)
YIELD_LOOPS(_lean, lean_yield)
static uint32_t no_yields_4_live(void) { /* the same loop, nothing suspended */
  uint32_t a = live4[0], b = live4[1], c = live4[2], d = live4[3];
  const uint32_t t0 = (uint32_t)emx_cycles();
  while (left) {
    --left;
    __asm__ volatile("" ::: "memory");
    a += 1, b += 2, c += 3, d += 4;
  }
  const uint32_t t = (uint32_t)emx_cycles() - t0;
  live4[0] = a, live4[1] = b, live4[2] = c, live4[3] = d;
  return t;
}
static uint32_t no_yields_0_live(void) {
  const uint32_t t0 = (uint32_t)emx_cycles();
  while (left) {
    --left;
    __asm__ volatile("" ::: "memory");
  }
  return (uint32_t)emx_cycles() - t0;
}

/* The machine's part of a yield: a thread that sends a 1-input packet to its own frame
 * and ends, TIMING_ROUNDS times. */
static void again(uint32_t a0, uint32_t a1, uint32_t cont);
static const emx_thread_fn again_template[2] = {0, again};
static uint32_t self_started, self_cycles;
static emx_ctx_t *self_done;
static void again(uint32_t a0, uint32_t a1, uint32_t cont) {
  (void)a0, (void)a1;
  if (left) {
    --left;
    emx_send(EMX_PKT_invoke1, cont, 0);
    return;
  }
  self_cycles = (uint32_t)emx_cycles() - self_started;
  emx_send(EMX_PKT_invoke1, emx_ctx_cont(self_done), 0);
}

static uint32_t timed(uint32_t (*loop)(void)) {
  left = TIMING_ROUNDS;
  return loop();
}

int main(void) {
  if (emx_pe_id() != 0) return 0;

  const uint32_t seed = 12345, seed2 = 777;
  const uint32_t expect = mix(ROUNDS, 0, seed), expect2 = mix(ROUNDS, 0, seed2);
  const uint32_t args[2] = {ROUNDS, seed2};
  emx_spawn(0, other, args, 2);
  const uint32_t got = mix(ROUNDS, 1, seed);
  emx_yield(); /* let the other computation finish its last round */
  printf("live values kept across %d suspensions: %s; other computation: %s\n", ROUNDS,
         got == expect ? "yes" : "NO", other_digest == expect2 ? "yes" : "NO");

  /* Timing: nothing else runs on this PE now. */
  void *frame = emx_frame_alloc(again_template);
  self_done = emx_ctx_new();
  left = TIMING_ROUNDS;
  self_started = (uint32_t)emx_cycles();
  emx_send(EMX_PKT_invoke1, emx_continuation(frame, 1), 0);
  (void)emx_ctx_wait(self_done);
  emx_frame_free(frame);

  const uint32_t y0 = timed(yields_0_live), y4 = timed(yields_4_live);
  static const emx_thread_fn lean_template[2] = {0, __emx_resume_frame};
  lean_frame = emx_frame_alloc(lean_template);
  lean_cont = emx_continuation(lean_frame, 1);
  const uint32_t l0 = timed(yields_0_live_lean), l4 = timed(yields_4_live_lean);
  const uint32_t n0 = timed(no_yields_0_live), n4 = timed(no_yields_4_live);
  const double self = (double)self_cycles / (TIMING_ROUNDS + 1);
  const double c0 = (double)(y0 - n0) / TIMING_ROUNDS, c4 = (double)(y4 - n4) / TIMING_ROUNDS;
  const double d0 = (double)(l0 - n0) / TIMING_ROUNDS, d4 = (double)(l4 - n4) / TIMING_ROUNDS;
  emx_result("self_invocation_cycles", self);
  emx_result("yield_cycles_0_live", c0);
  emx_result("yield_cycles_4_live", c4);
  emx_result("suspend_resume_cycles_0_live", c0 - self);
  emx_result("suspend_resume_cycles_4_live", c4 - self);
  emx_result("lean_suspend_resume_cycles_0_live", d0 - self);
  emx_result("lean_suspend_resume_cycles_4_live", d4 - self);
  printf("machine's self invocation %.2f clocks; yield %.2f clocks with 0 live values, "
         "%.2f with 4: suspend+resume %.2f and %.2f clocks\n",
         self, c0, c4, c0 - self, c4 - self);
  printf("lean (frame) suspension: suspend+resume %.2f and %.2f clocks\n", d0 - self, d4 - self);
  return got == expect && other_digest == expect2 ? 0 : 1;
}
