/* I-structures: words that are written once and read once, with the reader waiting
 * for the writer (EM-X implements them with matching packets: docs/pe.md, packet types
 * iwr and ird). An element is any word-aligned word whose tag bits are clear (static
 * and fresh memory are; emx_istruct_clear makes reused memory so). A read consumes the
 * value, so the element can be written again afterwards. docs/runtime.md. */
#ifndef EMX_ISTRUCTURE_H
#define EMX_ISTRUCTURE_H

#include <stddef.h>

#include "threads.h"

#define EMX_TAG_PRESENT 0x01u /* memory tag: the element holds a value */
#define EMX_TAG_READER 0x02u  /* memory tag: a reader's continuation waits in it */

/* Write: wakes the waiting reader, or stores the value. Writing a full element is an
 * error the machine reports. */
static inline void emx_iwrite(emx_gaddr_t e, uint32_t v) { emx_send(EMX_PKT_iwrite, e, v); }
static inline void emx_iwrite_f32(emx_gaddr_t e, float v) { emx_iwrite(e, emx_f32_bits(v)); }

/* Read, blocking until the element is written (one reader at a time per element). Always
 * a packet, even for a local element, so it is ordered after everything that reached
 * the element's PE before (see emx_iwrite_flag). */
static inline uint32_t emx_iread(emx_gaddr_t e) { return EMX__REQUEST(EMX_PKT_iread, e).a0; }
static inline float emx_iread_f32(emx_gaddr_t e) { return emx_bits_f32(emx_iread(e)); }

/* Non-blocking read: if the element holds a value, take it (*v, returns 1); otherwise
 * return 0 at once. Local elements: the tag bits (rtag), no packet. Remote elements: a
 * runtime handler on the owner does the same, and the calling code waits for its answer
 * (one round trip). */
static inline int __emx_itake(volatile uint32_t *e, uint32_t *v) {
  const unsigned tag = emx_rtag(e);
  if (!(tag & EMX_TAG_PRESENT)) return 0;
  *v = *e;
  emx_wtag(e, tag & ~EMX_TAG_PRESENT);
  return 1;
}
void __emx_h_itry(uint32_t request, uint32_t ctx_id, uint32_t addr);
EMX_HANDLER_DECLARE(__emx_h_itry);
static inline int emx_iread_try(emx_gaddr_t e, uint32_t *v) {
  if (emx_gaddr_is_local(e)) return __emx_itake(emx_gaddr_local(e), v);
  /* The answer cannot name a continuation (the request has room for the element and
   * our PE only), so it wakes our context by its 16-bit id, in slot 1 or 2. */
  emx_ctx_t *c = __emx_ctx_get();
  emx_invoke(emx_gaddr_pe(e), EMX_HANDLER_INDEX(__emx_h_itry), c->id,
             emx_gaddr_make(emx_pe_id(), emx_gaddr_word(e)));
  const emx_reply_t r = __emx_suspend(c);
  *v = r.a0;
  return !emx_reply_alt(r);
}

/* An I-structure write that the element's PE performs only after every remote write
 * (emx_write, emx_put) this PE sent it before: the "data, then flag" pattern. On EM-X the
 * memory unit keeps arrival order anyway; on EM-X' and EM-4 the writes are handler
 * threads still queued when a plain iwr packet would be served, so the flag goes through
 * a handler thread queued behind them. The value has 16 bits. */
void emx_iwrite_flag(emx_gaddr_t e, uint16_t value);

/* Empties n local elements (no reader may be waiting on them). */
void emx_istruct_clear(volatile uint32_t *e, size_t n);

#endif
