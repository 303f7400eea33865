/* Remote copies at byte granularity, for the one-sided layers (ACP, OMPL) built on the
 * EM-C-like layer. The machine moves 32-bit words (SYSWR, SYSRD); a copy whose ends are
 * not word aligned moves its whole words by remote write and its partial first and last
 * words through a special handler on the target that stores 1 or 2 bytes (a thread is
 * atomic, so neighbouring bytes written by others are never lost). docs/acp.md. */
#ifndef EMX_BYTES_H
#define EMX_BYTES_H

#include <stddef.h>

#include "threads.h"

/* n bytes from local src to address dst on PE pe, any alignment, fire and forget.
 * Returns 1 when some bytes went through the byte handler (a handler thread on pe, still
 * queued when the memory unit has performed later remote writes: order a flag or an
 * acknowledgement behind it with emx_after_writes), 0 otherwise. */
int emx_put_bytes(unsigned pe, void *dst, const void *src, size_t n);

/* emx_put_bytes for callers that may block: on EM-X' and EM-4, where every remote write
 * is a handler thread at the target, more than 4 KiB go in 4 KiB chunks, each behind a
 * fence (a long stream overflows the target's input buffer; MPI-EMX paces the same way).
 * On EM-X it never blocks. Returns as emx_put_bytes. */
enum { EMX_PACE_BYTES = 4096 };
/* Does emx_put_bytes_paced block for n bytes on this machine? */
static inline int emx_put_bytes_is_paced(size_t n) {
  return !(emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) && n > EMX_PACE_BYTES;
}
/* The chunks, out of line: a function that may suspend saves every callee-saved
 * register, which the common path should not pay. */
int __emx_put_paced(unsigned pe, char *dst, const char *src, size_t n);
static inline int emx_put_bytes_paced(unsigned pe, void *dst, const void *src, size_t n) {
  if (pe == emx_pe_id() || !emx_put_bytes_is_paced(n)) return emx_put_bytes(pe, dst, src, n);
  return __emx_put_paced(pe, dst, src, n);
}

/* n bytes from address src on PE pe to local dst, any alignment; blocks until done. */
void emx_get_bytes(void *dst, unsigned pe, const void *src, size_t n);

/* A 1-input packet to continuation cont, sent by a handler thread on PE pe that runs
 * after every remote write and byte-handler thread this PE sent to pe before it (the
 * network keeps a pair's packets in order, the memory unit performs writes on arrival,
 * handler threads run in arrival order). From pe to cont's PE it is one more packet. */
void emx_after_writes(unsigned pe, emx_gaddr_t cont);

/* Blocks until every earlier write (words and bytes) from this PE to PE pe is done. */
static inline void emx_fence_bytes(unsigned pe) {
  if (pe == emx_pe_id()) return;
  emx_ctx_t *c = __emx_ctx_get();
  emx_after_writes(pe, c->cont);
  (void)__emx_suspend(c);
}

#endif
