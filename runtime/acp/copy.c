/* Copies, handles and completion. A rank keeps its copies in a ring of records; copy h
 * is record h mod n. Each record's completion arrives as a 1-input packet to slot
 * (index + 1) of the *event frame*, whose every slot starts acp_event: the reply of a
 * remote read queued behind the data, or a packet from a handler that ran behind it.
 * done_upto is the completed prefix: every copy below it is complete. A copy whose
 * `order` is not complete yet waits in the ring (QUEUED) and an event starts it. The
 * layer's memory is the ring, the event frame and the registration table: a fixed size,
 * whatever the number of ranks. */
#include <stdlib.h>
#include <string.h>

#include "acp_internal.h"

enum state { FREE, QUEUED, RUNNING, DONE };

/* Handles are 32-bit sequence numbers inside (compared by signed difference, so they may
 * wrap); the ring has a power-of-two number of records so that h & mask is the record. */
typedef struct {
  acp_desc d; /* first, word aligned: remote handlers fetch it */
  union {
    uint32_t after;      /* while QUEUED: starts when every copy up to `after` has completed */
    uint32_t block_done; /* while a get by block read runs: the I-structure element of its
                          * completion (EM-X; empty again once its reader has taken it) */
  };
  uint32_t state;
  emx_sync_t sync;     /* words of a get still to come */
  uint32_t head, tail; /* a get's partial first and last words, read whole */
} record;

static record *ring;
static uint32_t mask;    /* records - 1 */
static uint32_t *events; /* the event frame */
static uint32_t next = 1, done_upto = 1; /* every copy before done_upto has completed */
static unsigned queued;
static emx_ctx_t *waiter; /* one computation waiting until done_upto passes wait_for */
static uint32_t wait_for;

static int completed(uint32_t h) { return (int32_t)(done_upto - h) > 0; }

/* ---- The engine: how each kind of copy moves ---- */

static int local(unsigned pe) { return pe == emx_pe_id(); }

/* A get into local memory with the same alignment on both sides: its partial words are
 * read whole into the record; its whole words land in place by one block remote read
 * that the source's memory unit executes (EM-X: 2 clocks a word, no thread on either
 * side; its I-structure completion, written to the record's element on this PE, comes
 * behind the last word, and a reader waiting in the element with the copy's
 * continuation answers the event frame). Elsewhere (no block read) by split-phase
 * remote reads, with a last read behind them answering the event frame (the source
 * serves reads in order and the replies come back in order). */
static int block_read(void) { return emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS; }

static __attribute__((noinline)) void get_start(record *r, emx_gaddr_t cont) {
  const acp_desc *d = &r->d;
  const unsigned pe = ga_pe(d->src);
  const uint32_t s = ga_addr(d->src), n = d->size;
  const uint32_t head = (-s & 3) < n ? (-s & 3) : n, words = (n - head) / 4;
  emx_sync_init(&r->sync, 0);
  if (head) emx_get_async(&r->head, emx_gaddr_make(pe, s >> 2), 1, &r->sync);
  if (n - head - 4 * words)
    emx_get_async(&r->tail, emx_gaddr_make(pe, (s + head + 4 * words) >> 2), 1, &r->sync);
  if (words && block_read()) {
    /* The reads above are served first: their replies come before the completion. */
    const emx_gaddr_t e = emx_gaddr_mine(&r->block_done);
    emx_send(EMX_PKT_iread, e, cont);
    emx_read_block(emx_gaddr_mine((char *)ga_ptr(d->dst) + head),
                   emx_gaddr_make(pe, (s + head) >> 2), words, e);
    return;
  }
  emx_get_async((char *)ga_ptr(d->dst) + head, emx_gaddr_make(pe, (s + head) >> 2), words,
                &r->sync);
  acp__done_after(pe, 0, cont);
}

/* Without a block read, up to this size a get reads (a round trip, then about 24 clocks a
 * word: every reply is a thread); beyond it the source pushes by remote writes (2 clocks
 * a word after a longer start: the request and the descriptor's fetch). Also keeps the
 * replies of one get from flooding the input buffer. With a block read (EM-X) every get
 * with a whole word is one. Measured: docs/acp.md. */
enum { ACP_GET_BY_READS_MAX = 32 };

static int is_get(const acp_desc *d) {
  const uint32_t s = ga_addr(d->src), n = d->size;
  return d->kind == K_COPY && local(ga_pe(d->dst)) && !local(ga_pe(d->src)) &&
         ((ga_addr(d->dst) ^ s) & 3) == 0 &&
         (n <= ACP_GET_BY_READS_MAX || (block_read() && n >= (-s & 3) + 4));
}

static void get_finish(record *r) {
  const acp_desc *d = &r->d;
  if (r->sync.count != 0) __emx_fatal("acp: a get completed before its data");
  const uint32_t s = ga_addr(d->src), n = d->size;
  const uint32_t head = (-s & 3) < n ? (-s & 3) : n, words = (n - head) / 4;
  char *dst = ga_ptr(d->dst);
  memcpy(dst, (const char *)&r->head + (s & 3), head);
  memcpy(dst + head + 4 * words, &r->tail, n - head - 4 * words);
}

/* Starts record r; returns 1 if it completed at once. */
static int start(record *r) {
  const acp_desc *d = &r->d;
  const unsigned dpe = ga_pe(d->dst), spe = ga_pe(d->src);
  if (d->kind != K_COPY) {
    acp__atomic(d, emx_gaddr_mine(d));
  } else if (d->size == 0 || (local(dpe) && local(spe))) {
    memmove(ga_ptr(d->dst), ga_ptr(d->src), d->size);
    return 1;
  } else if (local(spe) && !emx_put_bytes_is_paced(d->size)) {
    acp__done_after(dpe, emx_put_bytes(dpe, ga_ptr(d->dst), ga_ptr(d->src), d->size), d->cont);
  } else if (is_get(d)) {
    get_start(r, d->cont);
  } else {
    acp__move_remote(d, emx_gaddr_mine(d));
  }
  return 0;
}

/* ---- Progress: the completed prefix, queued copies, the waiter ---- */

/* Moves done_upto past the copies that have completed. */
static inline void advance(void) {
  while (done_upto != next && ring[done_upto & mask].state == DONE)
    ring[done_upto++ & mask].state = FREE;
}

/* Starts queued copies whose order has completed, as long as that completes more (rare:
 * only with order handles; out of line, so the common path saves few registers). */
static __attribute__((noinline)) void start_queued(void) {
  for (uint32_t before = done_upto - 1; queued && before != done_upto;) {
    before = done_upto;
    for (uint32_t h = done_upto; h != next && queued; ++h) {
      record *r = &ring[h & mask];
      if (r->state == QUEUED && completed(r->after)) {
        --queued;
        r->state = start(r) ? DONE : RUNNING;
      }
    }
    advance();
  }
}

/* Advances done_upto (starting queued copies that may now go); returns the waiter to
 * wake, if its condition holds (the caller wakes it). */
static emx_ctx_t *progress(void) {
  advance();
  if (queued) start_queued();
  if (waiter && completed(wait_for)) {
    emx_ctx_t *c = waiter;
    waiter = 0;
    return c;
  }
  return 0;
}

/* Slot k of the event frame: record k - 1 has completed. */
static void acp_event(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)value, (void)unused;
  record *r = &ring[__emx_slot_of(cont) - 1];
  if (is_get(&r->d)) get_finish(r);
  r->state = DONE;
  emx_ctx_t *c = progress();
  if (c) __emx_resume_direct(c, 0, 0, c->cont); /* the waiter continues in this thread */
}

/* Blocks the calling computation until copy h has completed, and every one before.
 * Out of line: a function that suspends saves every callee-saved register. */
static emx_ctx_t *wait_begin(const char *fn, uint32_t h) {
  if (waiter) acp__error(fn, "two computations wait for copies at once");
  waiter = __emx_ctx_get();
  wait_for = h;
  return waiter;
}
static __attribute__((noinline)) void wait_slow(const char *fn, uint32_t h) {
  (void)__emx_suspend(wait_begin(fn, h));
}
static inline void wait_until(const char *fn, uint32_t h) {
  if (!completed(h)) wait_slow(fn, h);
}

size_t acp__copies_init(void) {
  uint32_t n = 1;
  while (2 * n <= emx_frame_words() - 1 && 2 * n <= 32) n *= 2; /* one event slot each */
  mask = n - 1;
  ring = calloc(n, sizeof *ring);
  events = (uint32_t *)__emx_frames_carve(1); /* one frame, not a batch of the pool */
  if (!ring || !events) __emx_fatal("acp_init: no memory for the copy ring");
  events[0] = (uint32_t)(uintptr_t)__emx_uniform_template(acp_event);
  return n * sizeof *ring;
}

acp_desc *acp__reserve(const char *fn) {
  wait_until(fn, next - mask - 1); /* the record's previous copy has completed */
  return &ring[next & mask].d;
}

acp_handle_t acp__launch(acp_desc *d, acp_handle_t order) {
  record *r = (record *)d;
  const uint32_t h = next++;
  d->cont = emx_continuation(events, (h & mask) + 1);
  d->origin = emx_pe_id();
  r->after = order == ACP_HANDLE_NULL ? done_upto - 1
             : order == ACP_HANDLE_ALL || (int32_t)((uint32_t)order - h) >= 0 ? h - 1
                                                                              : (uint32_t)order;
  if (!completed(r->after)) {
    r->state = QUEUED;
    ++queued;
  } else if (start(r)) {
    r->state = DONE;
    emx_ctx_t *c = progress();
    if (c) emx_send(EMX_PKT_invoke1, c->cont, 0); /* another computation waited */
  } else {
    r->state = RUNNING;
  }
  return h;
}

static uint32_t handle_of(acp_handle_t h) {
  return h == ACP_HANDLE_ALL || (int32_t)((uint32_t)h - next) >= 0 ? next - 1 : (uint32_t)h;
}

emx_ctx_t *__acp_wait_begin(acp_handle_t h) {
  if (h == ACP_HANDLE_NULL) return 0;
  const uint32_t upto = handle_of(h);
  return completed(upto) ? 0 : wait_begin("acp_complete", upto);
}

void acp__complete_all(void) { acp_complete(ACP_HANDLE_ALL); }

int acp_inquire(acp_handle_t h) {
  return h == ACP_HANDLE_NULL || completed(handle_of(h)) ? 0 : 1;
}
