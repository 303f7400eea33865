/* The smaller pieces of the layer: global-pointer arithmetic, raw split-phase reads to
 * a continuation of one's own, counters that grow, the second slot of a context,
 * I-structure elements made empty again, a remote read from a special handler (which
 * steals the shared stack), and the float scans. Needs 2 PEs; prints one line per check. */
#include <emx/emc.h>
#include <stdio.h>

struct pair {
  uint32_t a;
  float b;
};
static struct pair table[8];
static uint32_t words[16];
static uint32_t element;
static unsigned errors;

static void check(const char *what, int ok) {
  printf("%s: %s\n", what, ok ? "ok" : "FAILED");
  errors += !ok;
}

/* Answers a reader: the next word of PE 1's words[], read remotely, so this handler
 * blocks (it ran on the shared stack, which becomes its own). */
static void read_for(uint32_t reply_to, uint32_t index, uint32_t addr) {
  (void)addr;
  const uint32_t v = emx_read(emx_gaddr(1, &words[index]));
  emx_send(EMX_PKT_invoke1, reply_to, v + 1);
}
EMX_HANDLER(read_for);

/* Counts down the counter whose global address comes in the data word. */
static void signal_back(uint32_t sync, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  emx_sync_signal(sync);
}
EMX_HANDLER(signal_back);

static void pe0(void) {
  /* Global pointers. */
  const emx_gaddr_t t = emx_gaddr(1, table);
  check("emx_gaddr_make / _word / _pe",
        emx_gaddr_make(1, emx_gaddr_word(t)) == t && emx_gaddr_pe(t) == 1);
  check("emx_gaddr_on", emx_gaddr_on(emx_gaddr_mine(table), 1) == t);
  check("EMX_GADDR_INDEX", EMX_GADDR_INDEX(t, struct pair, 3) == emx_gaddr(1, &table[3]));
  check("EMX_GADDR_MEMBER", EMX_GADDR_MEMBER(EMX_GADDR_INDEX(t, struct pair, 5), struct pair, b) ==
                                emx_gaddr(1, &table[5].b));
  check("add_words / add_bytes / diff_words",
        emx_gaddr_add_bytes(t, 12) == emx_gaddr_add_words(t, 3) &&
            emx_gaddr_diff_words(emx_gaddr_add_words(t, 7), t) == 7 &&
            emx_gaddr_add_words(emx_gaddr_add_words(t, 5), -5) == t);
  check("typed remote access through a member",
        emx_read_f32(EMX_GADDR_MEMBER(EMX_GADDR_INDEX(t, struct pair, 2), struct pair, b)) == 2.5f);

  /* Raw split phase, answering to slot 2, then slot 1 of a context (a context serves
   * one wait). */
  emx_ctx_t *c = emx_ctx_new();
  emx_read_async(emx_gaddr(1, &words[4]), emx_ctx_cont_alt(c));
  emx_reply_t r = emx_ctx_wait(c);
  check("emx_read_async to slot 2 of a context", emx_reply_alt(r) && r.a0 == 104);
  c = emx_ctx_new();
  emx_read_async(emx_gaddr(1, &words[5]), emx_ctx_cont(c));
  r = emx_ctx_wait(c);
  check("emx_read_async to slot 1", !emx_reply_alt(r) && r.a0 == 105);

  /* A counter that grows while in use. */
  emx_sync_t s;
  emx_sync_init(&s, 0);
  uint32_t got[16];
  emx_get_async(got, emx_gaddr(1, words), 8, &s);
  emx_sync_add(&s, 1); /* one more event: PE 1 signals it */
  EMX_INVOKE(1, signal_back, 0, emx_gaddr_mine(&s));
  emx_sync_wait(&s);
  check("counter with an added event", got[7] == 107);

  /* A handler that blocks, answering a context. */
  c = emx_ctx_new();
  EMX_INVOKE(0, read_for, 3, emx_ctx_cont(c));
  check("handler that blocks in a remote read", emx_ctx_wait(c).a0 == 104);

  /* I-structure elements made empty again. */
  emx_iwrite(emx_gaddr_mine(&element), 5);
  emx_yield();
  uint32_t v;
  emx_istruct_clear(&element, 1);
  check("emx_istruct_clear", emx_iread_try(emx_gaddr_mine(&element), &v) == 0);
}

int main(void) {
  const unsigned me = emx_pe_id();
  if (emx_pe_count() < 2) return 2;
  for (int k = 0; k < 8; ++k) table[k] = (struct pair){(uint32_t)k, k + 0.5f};
  for (int k = 0; k < 16; ++k) words[k] = 100 + k;
  emx_barrier();
  if (me == 0) pe0();
  /* Float scans, both kinds, on all PEs. */
  const float inc = emx_scan_f32(0.5f, 1), exc = emx_scan_f32(0.5f, 0);
  if (me == 1) check("float scans", inc == 1.0f && exc == 0.5f);
  return (int)emx_sum_i32((int32_t)errors) != 0;
}
