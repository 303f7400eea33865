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

typedef struct {
  acp_desc d; /* first, word aligned: remote handlers fetch it */
  acp_handle_t seq;
  acp_handle_t after; /* starts when done_upto > after */
  uint32_t state;
  emx_sync_t sync;    /* words of a get still to come */
  uint32_t head, tail; /* a get's partial first and last words, read whole */
} record;

static record *ring;
static unsigned ring_n;
static uint32_t *events; /* the event frame */
static acp_handle_t next = 1, done_upto = 1;
static unsigned queued;
static emx_ctx_t *waiter; /* one computation waiting for done_upto > wait_for */
static acp_handle_t wait_for;

/* ---- The engine: how each kind of copy moves ---- */

static int local(unsigned pe) { return pe == emx_pe_id(); }

/* A get into local memory with the same alignment on both sides: its whole words land in
 * place by split-phase remote reads, its partial words are read whole into the record;
 * a last read behind them answers the event frame (the source serves reads in order and
 * the replies come back in order). */
static void get_start(record *r, emx_gaddr_t cont) {
  const acp_desc *d = &r->d;
  const unsigned pe = ga_pe(d->src);
  const uint32_t s = ga_addr(d->src), n = d->size;
  const uint32_t head = (-s & 3) < n ? (-s & 3) : n, words = (n - head) / 4;
  emx_sync_init(&r->sync, 0);
  if (head) emx_get_async(&r->head, emx_gaddr_make(pe, s >> 2), 1, &r->sync);
  emx_get_async((char *)ga_ptr(d->dst) + head, emx_gaddr_make(pe, (s + head) >> 2), words,
                &r->sync);
  if (n - head - 4 * words)
    emx_get_async(&r->tail, emx_gaddr_make(pe, (s + head + 4 * words) >> 2), 1, &r->sync);
  acp__done_after(pe, 0, cont);
}

static int is_get(const acp_desc *d) {
  return d->kind == K_COPY && local(ga_pe(d->dst)) && !local(ga_pe(d->src)) &&
         ((ga_addr(d->dst) ^ ga_addr(d->src)) & 3) == 0;
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
  const emx_gaddr_t desc_at = emx_gaddr_mine(d);
  const unsigned dpe = ga_pe(d->dst), spe = ga_pe(d->src);
  r->state = RUNNING;
  if (d->kind != K_COPY) {
    acp__atomic(d, desc_at);
  } else if (d->size == 0 || (local(dpe) && local(spe))) {
    memmove(ga_ptr(d->dst), ga_ptr(d->src), d->size);
    return 1;
  } else if (local(spe)) {
    acp__done_after(dpe, emx_put_bytes(dpe, ga_ptr(d->dst), ga_ptr(d->src), d->size), d->cont);
  } else if (is_get(d)) {
    get_start(r, d->cont);
  } else {
    acp__move_remote(d, desc_at);
  }
  return 0;
}

/* ---- Progress: the completed prefix, queued copies, the waiter ---- */

/* Advances done_upto and starts queued copies whose order is now complete; returns the
 * waiter to wake, if its condition holds (the caller wakes it). */
static emx_ctx_t *progress(void) {
  for (int changed = 1; changed;) {
    changed = 0;
    while (done_upto < next && ring[(uint32_t)done_upto % ring_n].state == DONE) {
      ring[(uint32_t)done_upto % ring_n].state = FREE;
      ++done_upto;
      changed = 1;
    }
    if (!queued) break;
    for (acp_handle_t h = done_upto; h < next; ++h) {
      record *r = &ring[(uint32_t)h % ring_n];
      if (r->state == QUEUED && r->after < done_upto) {
        --queued;
        if (start(r)) r->state = DONE;
        changed = 1;
      }
    }
  }
  if (waiter && done_upto > wait_for) {
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

/* Blocks the calling computation until done_upto > h. */
static void wait_until(const char *fn, acp_handle_t h) {
  if (done_upto > h) return;
  if (waiter) acp__error(fn, "two computations wait for copies at once");
  waiter = __emx_ctx_get();
  wait_for = h;
  (void)__emx_suspend(waiter);
}

size_t acp__copies_init(void) {
  ring_n = emx_frame_words() - 1; /* one event slot per record */
  ring = calloc(ring_n, sizeof *ring);
  events = (uint32_t *)__emx_frames_carve(1); /* one frame, not a batch of the pool */
  events[0] = (uint32_t)(uintptr_t)__emx_uniform_template(acp_event);
  if (!ring || !events) __emx_fatal("acp_init: no memory for the copy ring");
  return ring_n * sizeof *ring;
}

acp_handle_t acp__issue(const char *fn, const acp_desc *d, acp_handle_t order) {
  const acp_handle_t h = next;
  wait_until(fn, h - (acp_handle_t)ring_n); /* its record is free */
  record *r = &ring[(uint32_t)h % ring_n];
  r->d = *d;
  r->d.cont = emx_continuation(events, (uint32_t)h % ring_n + 1);
  r->d.origin = emx_pe_id();
  r->seq = h;
  r->after = order == ACP_HANDLE_ALL ? h - 1 : order >= h ? h - 1 : order;
  ++next;
  if (r->after >= done_upto) {
    r->state = QUEUED;
    ++queued;
  } else if (start(r)) {
    r->state = DONE;
    emx_ctx_t *c = progress();
    if (c) emx_send(EMX_PKT_invoke1, c->cont, 0); /* another computation waited */
  }
  return h;
}

void acp_complete(acp_handle_t h) {
  if (h == ACP_HANDLE_NULL) return;
  wait_until("acp_complete", h == ACP_HANDLE_ALL || h >= next ? next - 1 : h);
}

void acp__complete_all(void) { acp_complete(ACP_HANDLE_ALL); }

int acp_inquire(acp_handle_t h) {
  if (h == ACP_HANDLE_NULL) return 0;
  return done_upto > (h == ACP_HANDLE_ALL || h >= next ? next - 1 : h) ? 0 : 1;
}
