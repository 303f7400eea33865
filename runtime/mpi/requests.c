/* Request objects: fixed-size cells from a free list, completion through the `done`
 * I-structure element, and the rule for giving a cell back (mpi_internal.h). */
#include <stdlib.h>

#include "mpi_internal.h"

mpi_pool mpi_request_pool = {.cell_bytes = sizeof(mpi_request)};

void req_reset(mpi_request *r) {
  r->flags &= (uint16_t) ~(RF_COMPLETE | RF_WILD | RF_HELD | RF_NULL_PEER | RF_READING);
  r->flags |= RF_ACTIVE;
  r->srctag = 0;
  r->bytes = 0;
}

int req_is_complete(mpi_request *r) {
  if (r->flags & RF_COMPLETE) return 1;
  if (r->flags & RF_ARMED) return 0; /* the notify frame will take the value */
  uint32_t v;
  if (!__emx_itake(&r->done, &v)) return 0;
  req_took(r, v);
  r->flags |= RF_COMPLETE;
  return 1;
}

/* ---- Request-issued queue entries --------------------------------------------------- */

/* A request files its own embedded entry; only a persistent request started again while
 * its previous round's entry still waits for its removal takes one from the pool. */
static mpi_pool isq_pool = {.cell_bytes = sizeof(isq_entry)};

isq_entry *isq_extra_entry(void) { return pool_get(&isq_pool); }

static void entry_free(mpi_request *r, isq_entry *e) {
  --r->isq_count;
  if (e == &r->isq_own) e->req = 0;
  else pool_put(&isq_pool, e);
}

mpi_request *isq_take(kq_table *t, kq_key *key) {
  isq_entry *e = (isq_entry *)key->head;
  kq_pop(t, key);
  mpi_request *r = e->req;
  entry_free(r, e);
  return r;
}

int isq_remove(kq_table *t, mpi_request *r) {
  if (r->isq_count == 1) { /* its only entry: no lookup */
    isq_entry *e = r->isq_newest;
    if (e->key->head == &e->link) {
      (void)isq_take(t, e->key);
      return 1;
    }
  }
  kq_key *k = kq_find(t, kq_pt(r->pe, r->tag), r->ctx);
  if (!k || !k->head || !r->isq_count) return 0;
  if (((isq_entry *)k->head)->req == r) { /* the usual case: requests resolve in order */
    (void)isq_take(t, k);
    return 1;
  }
  for (kq_link *prev = k->head; prev->next; prev = prev->next) {
    isq_entry *e = (isq_entry *)prev->next;
    if (e->req != r) continue;
    prev->next = e->link.next;
    if (k->tail == &e->link) k->tail = prev;
    entry_free(r, e);
    return 1;
  }
  return 0;
}

uint32_t mpi_req_span;
unsigned mpi_inbound;

/* One step of a probe's or test's wait for what is on its way to this PE: 0 when
 * nothing is (or after a bound: a peer in a long computation does not answer its part
 * of a creation until its thread ends). */
static int progress_while(int more, unsigned *steps) {
  enum { MAX_STEPS = 4096 }; /* yields of at least 32 clocks: ~130 k clocks */
  if (!more || ++*steps > MAX_STEPS) return 0;
  mpi_progress();
  return 1;
}
int mpi_progress_inbound(unsigned *steps) { return progress_while(mpi_inbound != 0, steps); }
int mpi_progress_toward(const mpi_request *r, unsigned *steps) {
  return progress_while(mpi_inbound || (r->flags & RF_READING), steps);
}

static void maybe_reclaim(mpi_request *r) {
  if (!(r->flags & RF_USER_FREED) || r->refs) return;
  req_reclaim(r);
}

void req_unref(mpi_request *r) {
  if (r->refs == 0) mpi_internal_error("request reference count below zero");
  --r->refs;
  maybe_reclaim(r);
}

void req_release(mpi_request *r) {
  r->flags |= RF_USER_FREED;
  maybe_reclaim(r);
}

/* ---- Armed requests: a frame reads `done` -------------------------------------------- */

/* Waiting for any of several requests cannot be one I-structure read; instead each
 * request gets a *notify frame* whose slot 1 is its I-structure reader. The notify
 * thread marks the request complete and resumes the computation waiting on it, if any,
 * or gives the cell back if the user has freed it (MPI_Request_free of an active
 * request). An armed request stays armed until it completes, so no reader is ever
 * withdrawn (which would race with the memory unit). */
enum { N_REQ = 2 };
static emx_thread_fn *notify_tmpl;

static void notify(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  uint32_t *f = emx_frame();
  mpi_request *r = (mpi_request *)(uintptr_t)f[N_REQ];
  emx_frame_free(f);
  req_took(r, value);
  r->flags = (uint16_t)((r->flags & ~RF_ARMED) | RF_COMPLETE);
  waiter *w = r->waiter;
  if (w) {
    r->waiter = 0;
    waiter_fire(w, r); /* does not return when it resumes the waiter */
    return;
  }
  maybe_reclaim(r);
}

void req_arm(mpi_request *r) {
  if (!notify_tmpl) {
    const unsigned words = emx_frame_words();
    notify_tmpl = malloc(words * sizeof *notify_tmpl);
    if (!notify_tmpl) mpi_internal_error("no memory for the notify template");
    for (unsigned k = 0; k < words; ++k) notify_tmpl[k] = notify;
  }
  uint32_t *f = emx_frame_alloc(notify_tmpl);
  f[N_REQ] = (uint32_t)(uintptr_t)r;
  r->flags |= RF_ARMED;
  emx_send(EMX_PKT_iread, req_gaddr(r), emx_continuation(f, 1));
}
