/* Remote memory access through global addresses (emx/gptr.h): reads that block the
 * calling C code (SYSRD + continuation), split-phase reads, single-word and block writes
 * (SYSWR), and a fence. On EM-X the memory unit serves SYSRD/SYSWR; on EM-X' and EM-4
 * the hardware turns them into handler threads (crt0.S): the same calls work on every
 * variant. An address on the calling PE is accessed directly. docs/runtime.md. */
#ifndef EMX_REMOTE_H
#define EMX_REMOTE_H

#include <stddef.h>

#include "threads.h"

/* One word. Blocks (the thread ends; the reply resumes it) unless g is local. */
static inline uint32_t emx_read(emx_gaddr_t g) {
  if (emx_gaddr_is_local(g)) return *(volatile uint32_t *)emx_gaddr_local(g);
  return EMX__REQUEST(EMX_PKT_sysrd, g).a0;
}
static inline int32_t emx_read_i32(emx_gaddr_t g) { return (int32_t)emx_read(g); }
static inline float emx_read_f32(emx_gaddr_t g) { return emx_bits_f32(emx_read(g)); }

/* One word, fire and forget (SYSWR). */
static inline void emx_write(emx_gaddr_t g, uint32_t v) {
  if (emx_gaddr_is_local(g)) *(volatile uint32_t *)emx_gaddr_local(g) = v;
  else emx_send(EMX_PKT_syswr, g, v);
}
static inline void emx_write_i32(emx_gaddr_t g, int32_t v) { emx_write(g, (uint32_t)v); }
static inline void emx_write_f32(emx_gaddr_t g, float v) { emx_write(g, emx_f32_bits(v)); }

/* n words from local src to global dst, fire and forget. EM-X: 32 register-relative
 * sends per loop iteration, about 2 clocks a word (the link's rate); EM-4 has no
 * displacement form, so every word needs its own address update. */
void emx_put(emx_gaddr_t dst, const void *src, size_t words);

/* Split phase. emx_read_async: the word at g goes to continuation cont (a 1-input
 * packet). emx_get_async: n words from global src to local dst; s counts the words
 * still to come (in batches of a frame's slots), and emx_sync_wait(s) waits for all. */
static inline void emx_read_async(emx_gaddr_t g, emx_gaddr_t cont) {
  emx_send(EMX_PKT_sysrd, g, cont);
}
void emx_get_async(void *dst, emx_gaddr_t src, size_t words, emx_sync_t *s);
/* Blocking block read. */
static inline void emx_get(void *dst, emx_gaddr_t src, size_t words) {
  emx_sync_t s;
  emx_sync_init(&s, 0);
  emx_get_async(dst, src, words, &s);
  emx_sync_wait(&s);
}

/* Block remote read by the memory unit of src's PE (EM-X: emx_features() has
 * EMX_FEATURE_DIRECT_REMOTE_ACCESS; elsewhere the machine reports an error): `words`
 * words (1 .. 2^22 - 1) from global src to global dst (usually on this PE, but any PE),
 * each arriving as a remote write, one per link slot, with no thread on either side.
 * Then, unless done is 0, an I-structure write of `words` to the element `done`: on
 * dst's PE it comes after the last word (same source, same destination: FIFO). Two
 * packets (docs/pe.md), sent together: a thread runs atomically, so no other request of
 * this PE comes between them. */
static inline void emx_read_block(emx_gaddr_t dst, emx_gaddr_t src, uint32_t words,
                                  emx_gaddr_t done) {
  emx_send(EMX_PKT_blockread, src, dst);
  emx_send(EMX_PKT_blockreadn, (src & ~EMX_GADDR_LOCAL_MASK) | words, done);
}

/* EM-X's block read as its hardware is described: a SYSRD a word, each replying as a
 * remote write (packet sysrdw, docs/pe.md) of src[k] to dst + k; the loop asks for a word
 * every 2 instructions (register-relative sends) and no thread runs on either side. No
 * completion: a later SYSRD to src's PE (emx_read of the last word, say) is answered after
 * them, and its reply follows the words to dst's PE when dst is on this PE. EM-X only. */
#define EMX__ASK(k) emx_send_disp(EMX_PKT_sysrdw, k, src, dst + k)
#define EMX__ASK8(k)                                                                    \
  EMX__ASK(k); EMX__ASK(k + 1); EMX__ASK(k + 2); EMX__ASK(k + 3); EMX__ASK(k + 4);      \
  EMX__ASK(k + 5); EMX__ASK(k + 6); EMX__ASK(k + 7)
static inline void emx_read_words(emx_gaddr_t dst, emx_gaddr_t src, uint32_t words) {
  const emx_gaddr_t end = dst + (words & ~31u);
  for (; dst != end; dst += 32, src += 32) { /* an add and a send a word */
    EMX__ASK8(0); EMX__ASK8(8); EMX__ASK8(16); EMX__ASK8(24);
  }
  for (words &= 31; words; --words) emx_send(EMX_PKT_sysrdw, src++, dst++);
}
#undef EMX__ASK8
#undef EMX__ASK

/* The same block read between any two PEs, with its completion forwarded through the
 * destination (packet rdbf, docs/pe.md): after the words, src's memory unit sends a SYSRD
 * of the last destination word to dst's PE, which answers `cont` (a continuation on any
 * PE, not 0) with a 1-input invocation carrying that word. On the one src -> dst path it
 * follows the data, and dst's memory unit serves it after them: when `cont` runs, every
 * word is in dst's memory. EM-X only, as emx_read_block. */
static inline void emx_move_block(emx_gaddr_t dst, emx_gaddr_t src, uint32_t words,
                                  emx_gaddr_t cont) {
  emx_send(EMX_PKT_blockread, src, dst);
  emx_send(EMX_PKT_blockreadf, (src & ~EMX_GADDR_LOCAL_MASK) | words, cont);
}

/* Returns when every remote write this PE sent to PE pe before has been performed
 * there (a remote read behind them: the network and the memory unit keep their order,
 * and on EM-X'/EM-4 the handler threads run in arrival order). */
extern uint32_t __emx_fence_word;
static inline void emx_fence(unsigned pe) {
  if (pe != emx_pe_id()) (void)EMX__REQUEST(EMX_PKT_sysrd, emx_gaddr(pe, &__emx_fence_word));
}

/* emx_fence for every other PE at once (the reads overlap). */
void emx_fence_all(void);
/* emx_fence_all and this PE too, for a program that sends SYSWR packets to its own PE
 * with emx_send (emx_write and emx_put store locally, so the fences above skip it). Such
 * a write is in flight like any other: through the network to the memory unit on EM-X,
 * a handler thread that runs only when the sender's thread ends on EM-X'/EM-4. */
void emx_fence_all_and_self(void);

#endif
