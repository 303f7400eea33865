/* MPI_Cancel, MPI_Test_cancelled, MPI_Testsome and MPI_Request_get_status.
 *
 * A receive can be cancelled while no message is matched to it:
 * - still in the posted list (wildcard source, held back behind one, receiver-side
 *   matching): taken out here, at once;
 * - its receive request issued to the sender (matching on both sides): a cancel message
 *   follows it to the sender (same path, so it arrives after it); if the request is still
 *   in the associative memory there, no send has matched it and none can any more: it is
 *   removed and the answer cancels the receive here (and drops its request-issued queue
 *   entry, for which no removal will come). Otherwise a message is on its way and the
 *   receive completes normally (MPI allows a cancel to fail; Wait returns either way).
 *
 * A send can be withdrawn while its send request waits unmatched at the receiver with
 * none of its data moved (sync, and get when the receiver had no memory to fetch it; a
 * synchronous-mode send in every variant): a cancel message follows the send request
 * there (same path), takes it out of the unexpected list and answers; the answer
 * completes the send as cancelled. Anything else fails, and the send completes normally:
 * a one-sided send (its data is written), a buffered one (complete at once: its data is
 * in the receiver's temporary buffer), one being read or read (get reads unexpected
 * data at once), one matched. A failed cancel sends no answer, so no answer ever names a
 * request that its user may have finished and freed meanwhile. */
#include "mpi_internal.h"

int posted_cancel(mpi_request *r); /* receiver_match.c */
int unexpected_withdraw(unsigned pe, emx_gaddr_t sreq);
int unexpected_withdraw_moved(unsigned pe, emx_gaddr_t sreq, uint16_t tag, uint16_t ctx);

/* The size beyond any buffer sends a wait that finds it complete the general way (as a
 * truncation would), which reports the cancellation: the fast paths need no test. */
static void cancelled(mpi_request *r) {
  r->flags |= RF_CANCELLED;
  r->bytes = UINT32_MAX;
  req_complete(r);
}

/* At the receiver: the answer; data = the request's address, bits: removed there. */
static void mpi_h_cancel_answer(uint32_t request, uint32_t arg16, uint32_t addr) {
  (void)addr;
  mpi_request *r = (mpi_request *)(uintptr_t)request;
  if (!record_bits(arg16)) return; /* matched first: it completes normally */
  if (!req_live(r) || !isq_remove(&mpi_isq_recv, r))
    mpi_internal_error("cancelled receive not in the request-issued queue");
  rreq_credit_back(r->pe); /* the sender dropped its record */
  cancelled(r);
  req_unref(r); /* the entry's reference */
}
EMX_HANDLER(mpi_h_cancel_answer);

/* At the sender: words: the receive request (global address); last: tag | ctx << 16. */
static void mpi_h_cancel_rreq(uint32_t last, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = record_src(arg16);
  const emx_gaddr_t rreq = record_words(pe)[0];
  kq_key *k = kq_find(&mpi_assoc, kq_pt(pe, last & 0xffff), last >> 16);
  unsigned found = 0;
  if (k) {
    for (kq_link **p = &k->head, *prev = 0; *p; prev = *p, p = &(*p)->next) {
      recv_record *rr = (recv_record *)*p;
      if (rr->rreq != rreq) continue;
      if (p == &k->head) {
        kq_pop(&mpi_assoc, k); /* may drop the key */
      } else {
        *p = rr->link.next;
        if (k->tail == &rr->link) k->tail = prev;
      }
      pool_put(&mpi_recv_record_pool, rr);
      found = 1;
      break;
    }
  }
  emx_invoke(pe, EMX_HANDLER_INDEX(mpi_h_cancel_answer), mpi_me | found << 10,
             (uint32_t)(uintptr_t)emx_gaddr_local(rreq));
}
EMX_HANDLER(mpi_h_cancel_rreq);

/* At the sender: the send request was withdrawn. With matching on both sides the
 * receiver told us to forget it when it filed it (the removal comes or came), so the
 * request-issued queue needs nothing here. */
static void mpi_h_cancel_send_answer(uint32_t request, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  mpi_request *s = (mpi_request *)(uintptr_t)request;
  if (!req_live(s) || s->kind != REQ_SEND)
    mpi_internal_error("cancelled send is not a send request");
  cancelled(s);
}
EMX_HANDLER(mpi_h_cancel_send_answer);

/* At the receiver: data = the send request's global address. */
static void mpi_h_cancel_send(uint32_t sreq, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = record_src(arg16);
  if (unexpected_withdraw(pe, sreq))
    emx_invoke(pe, EMX_HANDLER_INDEX(mpi_h_cancel_send_answer), mpi_me,
               (uint32_t)(uintptr_t)emx_gaddr_local(sreq));
}
EMX_HANDLER(mpi_h_cancel_send);

/* At the sender: the answer to a cancel of a complete send (bit: withdrawn). The request
 * completed already: it is only marked; the wait that waited for this answer goes on. */
static void mpi_h_cancel_moved_answer(uint32_t request, uint32_t arg16, uint32_t addr) {
  (void)addr;
  mpi_request *s = (mpi_request *)(uintptr_t)request;
  if (!req_live(s) || !(s->flags & RF_CANCEL_WAIT))
    mpi_internal_error("a cancel's answer for a request that waits for none");
  s->flags &= (uint16_t)~RF_CANCEL_WAIT;
  if (record_bits(arg16)) s->flags |= RF_CANCELLED;
  req_unref(s); /* the reference held for this answer */
}
EMX_HANDLER(mpi_h_cancel_moved_answer);

/* At the receiver: words: the send request (global address); last: tag | ctx << 16.
 * Always answered: the sender's wait waits for it. */
static void mpi_h_cancel_moved(uint32_t last, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = record_src(arg16);
  const emx_gaddr_t sreq = record_words(pe)[0];
  const unsigned withdrawn = unexpected_withdraw_moved(pe, sreq, (uint16_t)last,
                                                       (uint16_t)(last >> 16));
  emx_invoke(pe, EMX_HANDLER_INDEX(mpi_h_cancel_moved_answer), mpi_me | withdrawn << 10,
             (uint32_t)(uintptr_t)emx_gaddr_local(sreq));
}
EMX_HANDLER(mpi_h_cancel_moved);

/* A send that completed because its data moved to the receiver (get: read there;
 * buffered: written into the receiver's buffer) is still unmatched there until a receive
 * takes it: the cancel asks the receiver to drop it, and the wait for the send waits for
 * the answer (RF_CANCEL_WAIT: not plain; finish). A one-sided send was matched: the
 * receiver has no record of it (an older unmatched one of the same key would have met
 * the receive request first) and answers that the cancel failed. */
static void cancel_moved(mpi_request *s) {
  if (s->flags & (RF_CANCEL_WAIT | RF_CANCELLED)) return;
  s->flags |= RF_CANCEL_WAIT;
  ++s->refs; /* the cell stays until the answer, whatever the user does */
  if (mpi_outbox_pending) proto_drain_wait(s->pe);
  const uint32_t w[2] = {req_gaddr(s), s->tag | (uint32_t)s->ctx << 16};
  record_send(s->pe, EMX_HANDLER_INDEX(mpi_h_cancel_moved), 0, w, 2);
}

static void cancel_send(mpi_request *s) {
  if (s->flags & RF_NULL_PEER) return;
  if (req_is_complete(s)) {
    cancel_moved(s);
    return;
  }
  if (sendq_cancel(s)) { /* it waited for a credit: nobody else knows it (credits.c) */
    cancelled(s);
    return;
  }
  /* The cancel must reach the receiver after the send request (it may wait in the
   * outbox for its operand segment). */
  if (mpi_outbox_pending) proto_drain_wait(s->pe);
  emx_invoke(s->pe, EMX_HANDLER_INDEX(mpi_h_cancel_send), mpi_me, req_gaddr(s));
}

int MPI_Cancel(MPI_Request *request) {
  MPI_REQUIRE_INIT("MPI_Cancel");
  const MPI_Request h = request ? *request : 0;
  if (!h || !req_user_handle(h))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "invalid request %p", (void *)h);
  mpi_request *r = req_of(h);
  if (!(r->flags & RF_ACTIVE)) return MPI_SUCCESS;
  if (r->kind == REQ_SEND) {
    cancel_send(r);
    return MPI_SUCCESS;
  }
  if (req_is_complete(r)) return MPI_SUCCESS;
  if (posted_cancel(r)) {
    cancelled(r);
    return MPI_SUCCESS;
  }
  if (r->isq_count && !(r->flags & RF_NULL_PEER)) {
    /* The cancel must reach the sender after the receive request, which may still wait
     * in the outbox for its operand segment (creation.c): MPI_Irecv does not wait for
     * it, and a handler may have released it from behind a wildcard. */
    if (mpi_outbox_pending) proto_drain_wait(r->pe);
    const uint32_t w[2] = {req_gaddr(r), r->tag | (uint32_t)r->ctx << 16};
    record_send(r->pe, EMX_HANDLER_INDEX(mpi_h_cancel_rreq), 0, w, 2);
  }
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag) {
  *flag = status->mpi_cancelled_ != 0;
  return MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request *requests, int *outcount, int *indices,
                 MPI_Status *statuses) {
  MPI_REQUIRE_INIT("MPI_Testsome");
  if (incount < 0)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Testsome", "negative count %d", incount);
  int any = 0;
  for (int pass = 0; pass < 2; ++pass) {
    int n = 0;
    any = 0;
    for (int k = 0; k < incount; ++k) {
      if (!requests[k]) continue;
      if (!req_user_handle(requests[k]))
        return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Testsome", "invalid request %p",
                         (void *)requests[k]);
      mpi_request *r = req_of(requests[k]);
      if (!(r->flags & RF_ACTIVE)) continue;
      any = 1;
      if (!req_is_complete(r)) continue;
      indices[n] = k;
      const int err = MPI_Wait(&requests[k], statuses ? &statuses[n] : MPI_STATUS_IGNORE);
      if (err) return err;
      ++n;
    }
    if (n || !any) {
      *outcount = any ? n : MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    mpi_progress(); /* as MPI_Test: let the messages waiting here run */
  }
  *outcount = 0;
  return MPI_SUCCESS;
}

/* Like MPI_Test, but the request stays (its status now; the data of a packed receive is
 * unpacked only when it is finished by a wait or test). */
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  MPI_REQUIRE_INIT("MPI_Request_get_status");
  mpi_request *r = request ? req_of(request) : 0;
  *flag = 1;
  if (request && !req_user_handle(request))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_get_status",
                     "invalid request %p", (void *)request);
  const MPI_Status empty = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  if (!r || !(r->flags & RF_ACTIVE)) {
    if (status) *status = empty;
    return MPI_SUCCESS;
  }
  if (!req_is_complete(r)) {
    mpi_progress();
    if (!req_is_complete(r)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  if (!status) return MPI_SUCCESS;
  if (r->kind != REQ_RECV) *status = empty, status->mpi_cancelled_ = (r->flags & RF_CANCELLED) != 0;
  else if (r->flags & RF_NULL_PEER) *status = (MPI_Status){MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  else if (r->flags & RF_CANCELLED) *status = (MPI_Status){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 1};
  else
    *status = (MPI_Status){req_source(r), (int)(r->srctag >> 16),
                           r->bytes > r->capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS,
                           (int)(r->bytes > r->capacity ? r->capacity : r->bytes), 0};
  return MPI_SUCCESS;
}
