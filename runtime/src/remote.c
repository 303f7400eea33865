/* Block writes and split-phase block reads (emx/remote.h). */
#include <emx/remote.h>
#include <string.h>

#include "layer_internal.h"

uint32_t __emx_fence_word;

/* Register-relative sends without auto-increment: one load (its displacement plays the
 * auto-increment's role in the unrolled loop) and one send per word, and per 32 words the
 * source's and the destination's updates and the branch. */
#define PUT(k) emx_send_disp(EMX_PKT_syswr, k, g, s[k])
#define PUT8(k) \
  PUT(k); PUT(k + 1); PUT(k + 2); PUT(k + 3); PUT(k + 4); PUT(k + 5); PUT(k + 6); PUT(k + 7)
static void put_displacement(emx_gaddr_t g, const uint32_t *s, size_t n) {
  for (; n >= 32; n -= 32, s += 32, g += 32) {
    PUT8(0); PUT8(8); PUT8(16); PUT8(24);
  }
  for (; n; --n) emx_send(EMX_PKT_syswr, g++, *s++);
}
#undef PUT8
#undef PUT

/* EM-4 has neither auto-increment loads nor register-relative sends: every word is a
 * load, a send and two address updates, 5 clocks there (the load pays EM-4's memory
 * penalty), the block transfer the radix paper gives for EM-4. Unrolled as the EM-X loop
 * is, so that the loop's own count and branch are shared by 32 words; written out
 * because a compiler would fold the source updates into load displacements, the
 * auto-increment's role on EM-X. */
#define PUT_SEPARATE                                                               \
  __asm__ volatile("lw %0, 0(%1)\n\taddi %1, %1, 4\n\t"                           \
                   ".insn r 0x0b, 0, %3, x0, %2, %0\n\taddi %2, %2, 1"              \
                   : "=&r"(t), "+r"(s), "+r"(g)                                    \
                   : "i"(EMX_PKT_syswr)                                            \
                   : "memory")
#define PUT8_SEPARATE \
  PUT_SEPARATE; PUT_SEPARATE; PUT_SEPARATE; PUT_SEPARATE; \
  PUT_SEPARATE; PUT_SEPARATE; PUT_SEPARATE; PUT_SEPARATE
static void put_separate(emx_gaddr_t g, const uint32_t *s, size_t n) {
  uint32_t t;
  for (; n >= 32; n -= 32) {
    PUT8_SEPARATE; PUT8_SEPARATE; PUT8_SEPARATE; PUT8_SEPARATE;
  }
  for (; n; --n) PUT_SEPARATE;
}
#undef PUT8_SEPARATE
#undef PUT_SEPARATE

/* EM-X's block-send loop: an auto-increment load and a register-relative send a word,
 * "2 instructions per word"; per 32 words the destination's update and the branch. */
#define PUT_AI(k) emx_send_disp(EMX_PKT_syswr, k, g, emx_load_next(&s))
#define PUT8_AI(k) \
  PUT_AI(k); PUT_AI(k + 1); PUT_AI(k + 2); PUT_AI(k + 3); PUT_AI(k + 4); PUT_AI(k + 5); PUT_AI(k + 6); PUT_AI(k + 7)
static void put_auto_increment(emx_gaddr_t g, const uint32_t *s, size_t n) {
  if (n >= 32) {
    const uint32_t *const end = s + (n & ~(size_t)31);
    do {
      PUT8_AI(0); PUT8_AI(8); PUT8_AI(16); PUT8_AI(24);
      g += 32;
    } while (s != end);
    n &= 31;
  }
  for (; n; --n, ++g) PUT_AI(0);
}
#undef PUT8_AI
#undef PUT_AI

void emx_put(emx_gaddr_t dst, const void *src, size_t words) {
  if (emx_gaddr_is_local(dst)) {
    memmove(emx_gaddr_local(dst), src, words * 4);
    return;
  }
  const unsigned f = emx_features();
  if (f & EMX_FEATURE_AUTO_INCREMENT) put_auto_increment(dst, src, words);
  else if (f & EMX_FEATURE_SEND_DISPLACEMENT) put_displacement(dst, src, words);
  else put_separate(dst, src, words);
}

/* Split-phase reads: each word's reply is a thread in a *get frame*, whose slot k
 * stands for destination word k-1. A 1-input packet leaves its slot word alone, so the
 * first words of the frame hold the bookkeeping as well: GET_DELTA = destination minus
 * the frame's slot 1, so that a reply's address is delta + its slot's address; GET_LEFT
 * = replies still to come; GET_SYNC = the counter, counted down once per frame. A reply
 * costs the dispatch and about a dozen instructions. */
enum { GET_DELTA = 1, GET_SYNC = 2, GET_LEFT = 3 };

static void get_frame_done(uint32_t *f) {
  emx_sync_t *s = (emx_sync_t *)(uintptr_t)f[GET_SYNC];
  emx_frame_free(f);
  __emx_sync_done_tail(s);
}

static void get_store(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused;
  uint32_t *f = emx_frame();
  /* cont << 10 >> 8: the slot's local byte address (the PE field shifted out). */
  *(uint32_t *)(uintptr_t)(f[GET_DELTA] + ((cont << 10) >> 8)) = value;
  if (--f[GET_LEFT] == 0) get_frame_done(f);
  emx_end(); /* nothing to give back: this thread never blocks */
}

/* The packets of emx_get_async; also for an address on this PE (fence_reads). */
static void get_by_packets(void *dst, emx_gaddr_t src, size_t words, emx_sync_t *s) {
  static const emx_thread_fn *tmpl;
  if (!tmpl) tmpl = __emx_uniform_template(get_store);
  const unsigned per_frame = __emx_frame_bytes / 4 - 1;
  uint32_t *d = dst;
  while (words) {
    const unsigned m = words < per_frame ? (unsigned)words : per_frame;
    uint32_t *f = emx_frame_alloc(tmpl);
    f[GET_DELTA] = (uint32_t)(uintptr_t)d - (uint32_t)(uintptr_t)&f[1];
    f[GET_SYNC] = (uint32_t)(uintptr_t)s;
    f[GET_LEFT] = m;
    ++s->count;
    const emx_gaddr_t cont = emx_gaddr_mine(f);
    for (unsigned k = 1; k <= m; ++k) emx_send(EMX_PKT_sysrd, src + k - 1, cont + k);
    d += m;
    src += m;
    words -= m;
  }
}

void emx_get_async(void *dst, emx_gaddr_t src, size_t words, emx_sync_t *s) {
  if (emx_gaddr_is_local(src)) memmove(dst, emx_gaddr_local(src), words * 4);
  else get_by_packets(dst, src, words, s);
}

/* A read of the fence word behind the writes to each PE (this one too if self), all
 * at once. */
static void fence_reads(int self) {
  uint32_t sink;
  emx_sync_t s;
  emx_sync_init(&s, 0);
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  for (unsigned pe = 0; pe < pes; ++pe)
    if (pe != me || self) get_by_packets(&sink, emx_gaddr(pe, &__emx_fence_word), 1, &s);
  emx_sync_wait(&s);
}

void emx_fence_all(void) { fence_reads(0); }
void emx_fence_all_and_self(void) { fence_reads(1); }
