/* Completion: Wait, Test and their -all/-any/-some forms, Request_free, Get_count.
 *
 * MPI_Wait blocks on the request's I-structure element: the computation ends its thread
 * and the completing write (a remote sender's, or this PE's own) resumes it; nothing
 * polls. MPI_Test takes the element's value if it is there (rtag, the non-blocking
 * I-structure read). Waiting for any of several requests arms them (requests.c). */
#include <stdio.h>

#include "arrivals_layout.h"
#include "irecv_layout.h"
#include "mpi_internal.h"

void __attribute__((noinline)) mpi_progress(void) { emx_yield(); }

void waiter_fire(waiter *w, mpi_request *r) {
  if (w->fired) return;
  w->fired = 1;
  __emx_resume_direct(w->ctx, (uint32_t)(uintptr_t)r, 0, emx_ctx_cont(w->ctx));
}

/* Blocks until r completes (its own function: a function with a suspension saves every
 * callee-saved register, which the fast path of MPI_Wait should not pay). */
static void __attribute__((noinline)) block_on(mpi_request *r) {
  if (r->flags & RF_ARMED) {
    waiter w = {emx_ctx_new(), 0};
    r->waiter = &w;
    (void)emx_ctx_wait(w.ctx); /* the notify thread marks r complete */
    return;
  }
  r->flags |= RF_READER;
  req_took(r, emx_iread(req_gaddr(r)));
  r->flags = (uint16_t)((r->flags & ~RF_READER) | RF_COMPLETE);
}

static uint32_t trunc_sent, trunc_cap;

const char *truncation_message(const MPI_Status *st) {
  static char text[96];
  (void)st;
  snprintf(text, sizeof text, "message of %u bytes truncated to the receive buffer of %u bytes",
           (unsigned)trunc_sent, (unsigned)trunc_cap);
  return text;
}

static inline void set_status(MPI_Status *st, int source, int tag, int error, uint32_t bytes) {
  if (st) *st = (MPI_Status){source, tag, error, (int)bytes, 0};
}

static void empty_status(MPI_Status *st) { set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0); }

/* r is complete: its status, and the request goes (or, persistent, becomes inactive). */
static int finish(mpi_request *r, MPI_Status *st) {
  int err = MPI_SUCCESS;
  while (r->flags & RF_CANCEL_WAIT) mpi_progress(); /* a cancel's answer decides (cancel.c) */
  if (r->kind != REQ_RECV) {
    set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
    if (st && (r->flags & RF_CANCELLED)) st->mpi_cancelled_ = 1; /* a send withdrawn */
  } else if (r->flags & RF_NULL_PEER) {
    set_status(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
  } else if (r->flags & RF_CANCELLED) {
    set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
    if (st) st->mpi_cancelled_ = 1;
    if (r->flags & RF_PACKED) pack_finish(r, 0);
  } else {
    uint32_t bytes = r->bytes;
    if (bytes > r->capacity) {
      trunc_sent = bytes;
      trunc_cap = r->capacity;
      bytes = r->capacity;
      err = MPI_ERR_TRUNCATE;
    }
    set_status(st, req_source(r), (int)(r->srctag >> 16), err, bytes);
    if (r->flags & RF_PACKED) pack_finish(r, bytes);
  }
  if (r->kind != REQ_RECV && (r->flags & RF_PACKED)) pack_finish(r, 0);
  if (r->flags & RF_PERSISTENT) r->flags &= (uint16_t)~RF_ACTIVE;
  else req_release(r);
  return err;
}

int wait_request(mpi_request *r, MPI_Status *st) {
  if (!(r->flags & RF_COMPLETE) && !req_is_complete(r)) block_on(r);
  return finish(r, st);
}

/* A handle the user passed: NULL and inactive persistent requests complete at once
 * with an empty status. Returns 1 if *rp is an active request. */
static int active(MPI_Request *handle, const char *fn, int *err) {
  const MPI_Request h = *handle;
  *err = MPI_SUCCESS;
  if (!h) return 0;
  if (!req_user_handle(h)) {
    *err = mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                     "invalid request %p (not a request, freed, or a stale copy)", (void *)h);
    return 0;
  }
  return (req_of(h)->flags & RF_ACTIVE) != 0;
}

/* Finishes an active request the user named; reports truncation. */
static int complete_handle(MPI_Request *handle, MPI_Status *st, const char *fn) {
  mpi_request *r = req_of(*handle);
  const MPI_Comm comm = r->comm;
  const int persistent = r->flags & RF_PERSISTENT;
  MPI_Status local;
  const int err = finish(r, &local); /* r may be back in the free list now */
  if (st) *st = local;
  if (!persistent) *handle = MPI_REQUEST_NULL;
  return err ? mpi_error(comm, err, fn, "%s", truncation_message(&local)) : MPI_SUCCESS;
}

/* How a wait went (or-ed over the requests of one call). */
enum { W_READY = 1, W_BLOCKED = 2 };

/* A wait that finds a receive complete without having blocked lets the threads waiting
 * in this PE's input buffer run before the program goes on (mpi_progress). They are
 * protocol messages that came with or before the data: among them, receive requests
 * of the peer for its next messages. Left waiting until this computation blocks, they
 * would make our next sends to that peer miss them and take the send-request path. A
 * wait that blocked has let them run already. */
static int __attribute__((noinline)) progress_success(void) {
  mpi_progress();
  return MPI_SUCCESS;
}

/* The common case: an active, non-persistent, unarmed request. */
enum {
  PLAIN_FLAGS = RF_ACTIVE | RF_USER_FREED | RF_CANCEL_WAIT | RF_PERSISTENT | RF_ARMED |
                RF_NULL_PEER | RF_PACKED | RF_CANCELLED
};
static inline int plain(MPI_Request h) {
  return req_handle_ok(h) && (req_of(h)->flags & PLAIN_FLAGS) == RF_ACTIVE;
}
/* The layout wait_begin.S relies on. */
_Static_assert(L_WAIT_PLAIN == (PLAIN_FLAGS | RF_COMPLETE) && L_RF_READER == RF_READER &&
                   L_REQ_RECV == REQ_RECV && L_REQ_KIND == __builtin_offsetof(mpi_request, kind) &&
                   L_REQ_REFS == __builtin_offsetof(mpi_request, refs) &&
                   L_REQ_FLAGS == __builtin_offsetof(mpi_request, flags) &&
                   L_REQ_HANDLE == __builtin_offsetof(mpi_request, handle) &&
                   L_REQ_DONE == __builtin_offsetof(mpi_request, done) &&
                   L_CTX_NEXT == __builtin_offsetof(emx_ctx_t, ra) &&
                   L_CTX_CONT == __builtin_offsetof(emx_ctx_t, cont) && EMX_PKT_iread == 7 &&
                   EMX_TAG_PRESENT == 1,
               "wait_begin.S: the layout");

/* A plain request that has completed: its status (a receive's, without truncation),
 * and the cell goes back. Returns 0 if it must go the general way (truncated). */
static inline int finish_plain(MPI_Request *request, mpi_request *r, MPI_Status *status) {
  if (r->kind == REQ_RECV) {
    if (__builtin_expect(r->bytes > r->capacity, 0)) return 0;
    if (status)
      *status = (MPI_Status){req_source(r), (int)(r->srctag >> 16),
                             MPI_SUCCESS, (int)r->bytes, 0};
  } else if (status) {
    empty_status(status);
  }
  r->flags |= RF_COMPLETE | RF_USER_FREED;
  /* (Its handle stays live in the free list: RF_USER_FREED refuses it, and the next
   * req_new counts the generation on.) */
  if (!r->refs) pool_put(&mpi_request_pool, r); /* else the last reference gives it back */
  *request = MPI_REQUEST_NULL;
  return 1;
}

/* Waits for one request and finishes it; or-s into *how. */
static int wait_handle(MPI_Request *request, MPI_Status *status, const char *fn,
                       unsigned *how) {
  mpi_request *r = req_of(*request);
  int err;
  if (plain(*request)) {
    uint32_t v;
    if (r->flags & RF_COMPLETE) {
    } else if (__emx_itake(&r->done, &v)) {
      req_took(r, v);
    } else {
      block_on(r);
      *how |= W_BLOCKED;
    }
    *how |= r->kind == REQ_RECV ? W_READY : 0;
    /* (A send cancelled while this waited is no longer plain: cancel.c.) */
    if (!(r->flags & RF_CANCELLED) && finish_plain(request, r, status)) return MPI_SUCCESS;
    r->flags |= RF_COMPLETE;
    return complete_handle(request, status, fn);
  }
  if (!active(request, fn, &err)) {
    empty_status(status);
    return err;
  }
  if (!(r->flags & RF_COMPLETE) && !req_is_complete(r)) {
    block_on(r);
    *how |= W_BLOCKED;
  }
  *how |= r->kind == REQ_RECV ? W_READY : 0;
  return complete_handle(request, status, fn);
}

/* wait_handle for one request, with the progress rule. */
static int __attribute__((noinline)) wait_one(MPI_Request *request, MPI_Status *status,
                                              const char *fn) {
  unsigned how = 0;
  const int err = wait_handle(request, status, fn, &how);
  if (how == W_READY) mpi_progress();
  return err;
}

/* A plain request whose blocked wait read value v from `done`: finish it (no progress to
 * make: the wait let the waiting threads run). */
static inline int wait_woken(MPI_Request *request, mpi_request *r, MPI_Status *status,
                             uint32_t v, const char *fn) {
  req_took(r, v);
  r->flags = (uint16_t)((r->flags & ~RF_READER) | RF_COMPLETE);
  if (!(r->flags & RF_CANCELLED) && finish_plain(request, r, status)) return MPI_SUCCESS;
  return complete_handle(request, status, fn);
}

/* A plain request that is not complete: block on its element, then finish. One
 * function: the suspension saves every callee-saved register once. */
static int __attribute__((noinline)) wait_blocking(MPI_Request *request, mpi_request *r,
                                                   MPI_Status *status, const char *fn) {
  r->flags |= RF_READER; /* (plain: not armed) */
  return wait_woken(request, r, status, emx_iread(req_gaddr(r)), fn);
}

/* MPI_Wait and MPI_Recv: the common cases, which are on the latency path, as calls
 * that end in tail calls, so that they save no registers. split: a request that is not
 * complete is not waited for here; the I-structure read is sent and the context to
 * suspend on returned (mpi_wait_begin). Else the wait's error code. */
static inline __attribute__((always_inline)) uintptr_t wait_common(MPI_Request *request,
                                                                   MPI_Status *status,
                                                                   const char *fn, int split) {
  mpi_request *r = req_of(*request);
  uint32_t v;
  if (!plain(*request) || r->bytes > r->capacity) return (uintptr_t)wait_one(request, status, fn);
  if (!(r->flags & RF_COMPLETE)) {
    if (!__emx_itake(&r->done, &v)) {
      if (split && __builtin_expect(__emx_ctx_pool != 0, 1)) {
        emx_ctx_t *c = __emx_ctx_get();
        r->flags |= RF_READER; /* (plain: not armed) */
        emx_send(EMX_PKT_iread, req_gaddr(r), emx_ctx_cont(c));
        return (uintptr_t)c;
      }
      return (uintptr_t)wait_blocking(request, r, status, fn);
    }
    req_took(r, v);
    r->flags |= RF_COMPLETE; /* the value is taken: the general way must not wait for it */
    if (r->bytes > r->capacity) return (uintptr_t)wait_one(request, status, fn);
  }
  const int recv = r->kind == REQ_RECV;
  (void)finish_plain(request, r, status);
  return recv ? (uintptr_t)progress_success() : MPI_SUCCESS;
}

int wait_named(MPI_Request *request, MPI_Status *status, const char *fn) {
  return (int)wait_common(request, status, fn, 0);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  return wait_named(request, status, "MPI_Wait");
}

/* MPI_Wait and MPI_Recv with the suspension in the caller (mpi.h): the wait finished (its
 * error code, below 4096), or the context to suspend on, the I-structure read of `done`
 * sent. */
uintptr_t wait_begin(MPI_Request *request, MPI_Status *status, const char *fn) {
  return wait_common(request, status, fn, 1);
}
/* mpi_wait_begin is wait_begin.S: the blocking case by hand; everything else here. */
uintptr_t mpi_wait_begin_general(MPI_Request *request, MPI_Status *status);
uintptr_t mpi_wait_begin_general(MPI_Request *request, MPI_Status *status) {
  return wait_common(request, status, "MPI_Wait", 1);
}
int wait_end(MPI_Request *request, MPI_Status *status, uint32_t value, const char *fn) {
  return wait_woken(request, req_of(*request), status, value, fn);
}
int mpi_wait_end(MPI_Request *request, MPI_Status *status, uint32_t value) {
  return wait_woken(request, req_of(*request), status, value, "MPI_Wait");
}
int mpi_recv_end(MPI_Request *request, MPI_Status *status, uint32_t value) {
  return wait_woken(request, req_of(*request), status, value, "MPI_Recv");
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  int err;
  *flag = 1;
  if (!active(request, "MPI_Test", &err)) {
    empty_status(status);
    return err;
  }
  mpi_request *r = req_of(*request);
  if (r->flags & RF_CANCEL_WAIT) mpi_progress(); /* a cancel's answer decides (cancel.c) */
  if (r->flags & RF_CANCEL_WAIT) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  if (!req_is_complete(r)) {
    /* Protocol messages for this PE wait in its input buffer until the running
     * computation ends its thread: let them run, so that a loop of MPI_Test makes
     * progress. */
    mpi_progress();
    /* ... and wait for what is on its way here (mpi_inbound: a creation, a fetch; r's read) */
    for (unsigned steps = 0; !req_is_complete(r) && mpi_progress_toward(r, &steps);) {
    }
    if (!req_is_complete(r)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  return complete_handle(request, status, "MPI_Test");
}

/* The request-by-request loop of MPI_Waitall from st->next on. split: a plain request
 * that must block is not waited for here: its I-structure read is sent and the context
 * returned, st->next naming it (mpi_waitall_step). Else the result. */
static inline __attribute__((always_inline)) uintptr_t waitall_loop(int count,
                                                                    MPI_Request *requests,
                                                                    MPI_Status *statuses,
                                                                    mpi_waitall_state *st,
                                                                    int split) {
  for (int k = st->next; k < count; ++k) {
    mpi_request *r = req_of(requests[k]);
    if (split && plain(requests[k]) && !(r->flags & RF_COMPLETE)) {
      uint32_t v;
      if (__emx_itake(&r->done, &v)) {
        req_took(r, v);
        r->flags |= RF_COMPLETE; /* the value is taken: wait_handle must not wait for it */
      } else if (__builtin_expect(__emx_ctx_pool != 0, 1)) {
        emx_ctx_t *c = __emx_ctx_get();
        r->flags |= RF_READER;
        emx_send(EMX_PKT_iread, req_gaddr(r), emx_ctx_cont(c));
        st->next = k;
        return (uintptr_t)c;
      }
    }
    MPI_Status *s = statuses ? &statuses[k] : MPI_STATUS_IGNORE;
    if (wait_handle(&requests[k], s, "MPI_Waitall", &st->how)) st->result = MPI_ERR_IN_STATUS;
  }
  if (st->how == W_READY) mpi_progress();
  return (uintptr_t)st->result;
}

/* MPI_Waitall from request `from` on; how: what the requests before it did. */
static int __attribute__((noinline)) waitall_general(int count, MPI_Request *requests,
                                                     MPI_Status *statuses, int from,
                                                     unsigned how) {
  if (count < 0)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Waitall", "negative count %d", count);
  mpi_waitall_state st = {from, MPI_SUCCESS, how};
  return (int)waitall_loop(count, requests, statuses, &st, 0);
}
static uintptr_t __attribute__((noinline)) waitall_split(int count, MPI_Request *requests,
                                                         MPI_Status *statuses,
                                                         mpi_waitall_state *st) {
  return waitall_loop(count, requests, statuses, st, 1);
}

/* The common case in a path that calls nothing (no register saves): plain requests that
 * are complete already, without truncation, finished in one pass. Returns the index of
 * the first other one (count: none), which goes the general way with the rest. */
static inline __attribute__((always_inline)) int waitall_fast(int count, MPI_Request *requests,
                                                              MPI_Status *statuses,
                                                              unsigned *how) {
  for (int k = 0; k < count; ++k) {
    mpi_request *r = req_of(requests[k]);
    uint32_t v;
    if (!plain(requests[k])) return k;
    if (!(r->flags & RF_COMPLETE)) {
      if (!__emx_itake(&r->done, &v)) return k;
      req_took(r, v);
      r->flags |= RF_COMPLETE;
    }
    *how |= r->kind == REQ_RECV ? W_READY : 0;
    if (!finish_plain(&requests[k], r, statuses ? &statuses[k] : MPI_STATUS_IGNORE)) return k;
  }
  return count;
}

int MPI_Waitall(int count, MPI_Request *requests, MPI_Status *statuses) {
  unsigned how = 0;
  const int k = waitall_fast(count, requests, statuses, &how);
  if (k < count || count < 0) return waitall_general(count, requests, statuses, k, how);
  return how == W_READY ? progress_success() : MPI_SUCCESS;
}

/* MPI_Waitall with the suspension in the caller (mpi.h): the result (below 4096), or the
 * context to suspend on for request st->next. */
uintptr_t mpi_waitall_step(int count, MPI_Request *requests, MPI_Status *statuses,
                           mpi_waitall_state *st) {
  if (st->next == 0 && st->how == 0) { /* the first step */
    unsigned how = 0;
    const int k = waitall_fast(count, requests, statuses, &how);
    st->how = how;
    if (count < 0) return (uintptr_t)waitall_general(count, requests, statuses, 0, 0);
    if (k == count) return how == W_READY ? (uintptr_t)progress_success() : MPI_SUCCESS;
    st->next = k;
  }
  return waitall_split(count, requests, statuses, st);
}

/* The blocked request st->next read `value`: finished; the steps go on after it. */
void mpi_waitall_woken(MPI_Request *requests, MPI_Status *statuses, mpi_waitall_state *st,
                       uint32_t value) {
  const int k = st->next;
  mpi_request *r = req_of(requests[k]);
  st->how |= W_BLOCKED | (r->kind == REQ_RECV ? W_READY : 0);
  if (wait_woken(&requests[k], r, statuses ? &statuses[k] : MPI_STATUS_IGNORE, value,
                 "MPI_Waitall"))
    st->result = MPI_ERR_IN_STATUS;
  st->next = k + 1;
}

/* The index of a complete active request, -1 if none; *any: some request is active. */
static int find_complete(int count, MPI_Request *requests, int *any, const char *fn, int *err) {
  *any = 0;
  *err = count < 0 ? mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", count)
                   : MPI_SUCCESS;
  for (int k = 0; k < count; ++k) {
    if (!active(&requests[k], fn, err)) {
      if (*err) return -1;
      continue;
    }
    *any = 1;
    if (req_is_complete(req_of(requests[k]))) return k;
  }
  return -1;
}

int MPI_Waitany(int count, MPI_Request *requests, int *index, MPI_Status *status) {
  int any, err;
  int k = find_complete(count, requests, &any, "MPI_Waitany", &err);
  if (err) return err;
  if (!any) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (k < 0) {
    /* Arm every active request and wait for the first notification. */
    waiter w = {emx_ctx_new(), 0};
    for (int j = 0; j < count; ++j) {
      mpi_request *r = req_of(requests[j]);
      if (!requests[j] || !(r->flags & RF_ACTIVE)) continue;
      if (!(r->flags & RF_ARMED)) req_arm(r);
      r->waiter = &w;
    }
    const mpi_request *fired = (const mpi_request *)(uintptr_t)emx_ctx_wait(w.ctx).a0;
    /* Still in the notify thread's time: no other one ran, so no request points to w
     * after this loop. */
    for (int j = 0; j < count; ++j) {
      mpi_request *r = req_of(requests[j]);
      if (requests[j] && (r->flags & RF_ACTIVE)) r->waiter = 0;
      if (requests[j] && r == fired) k = j;
    }
  }
  *index = k;
  return complete_handle(&requests[k], status, "MPI_Waitany");
}

int MPI_Testany(int count, MPI_Request *requests, int *index, int *flag, MPI_Status *status) {
  int any, err;
  int k = find_complete(count, requests, &any, "MPI_Testany", &err);
  if (err) return err;
  if (k < 0 && any) {
    mpi_progress();
    k = find_complete(count, requests, &any, "MPI_Testany", &err);
  }
  if (k < 0) {
    *flag = !any;
    *index = MPI_UNDEFINED;
    if (!any) empty_status(status);
    return MPI_SUCCESS;
  }
  *flag = 1;
  *index = k;
  return complete_handle(&requests[k], status, "MPI_Testany");
}

static int all_complete(int count, MPI_Request *requests, int *err) {
  *err = count < 0 ? mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Testall", "negative count %d",
                               count)
                   : MPI_SUCCESS;
  for (int k = 0; k < count; ++k) {
    if (!active(&requests[k], "MPI_Testall", err)) {
      if (*err) return 0;
      continue;
    }
    if (!req_is_complete(req_of(requests[k]))) return 0; /* complete ones keep RF_COMPLETE */
  }
  return 1;
}

int MPI_Testall(int count, MPI_Request *requests, int *flag, MPI_Status *statuses) {
  int err;
  *flag = all_complete(count, requests, &err);
  if (err) return err;
  if (!*flag) {
    mpi_progress();
    *flag = all_complete(count, requests, &err);
    if (err || !*flag) return err;
  }
  return MPI_Waitall(count, requests, statuses);
}

int MPI_Waitsome(int incount, MPI_Request *requests, int *outcount, int *indices,
                 MPI_Status *statuses) {
  int index;
  const int err = MPI_Waitany(incount, requests, &index, statuses ? &statuses[0] : 0);
  if (err) return err;
  if (index == MPI_UNDEFINED) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  /* Waitany finished one request; report it and every other complete one. */
  int n = 0;
  indices[n++] = index;
  for (int k = 0; k < incount; ++k) {
    int e;
    if (k == index || !active(&requests[k], "MPI_Waitsome", &e)) continue;
    if (!req_is_complete(req_of(requests[k]))) continue;
    indices[n] = k;
    complete_handle(&requests[k], statuses ? &statuses[n] : MPI_STATUS_IGNORE, "MPI_Waitsome");
    ++n;
  }
  *outcount = n;
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request) {
  int err;
  const MPI_Request h = *request;
  mpi_request *r = req_of(h);
  /* (MPI: the handle must be a request; a freed one is MPI_REQUEST_NULL or stale.) */
  if (!h)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free",
                     "MPI_REQUEST_NULL (freed already?)");
  if (req_handle_ok(h) && (r->flags & RF_USER_FREED))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free",
                     "request %p was freed already", (void *)h);
  if (active(request, "MPI_Request_free", &err) && !req_is_complete(r)) {
    /* Still running: the notify frame gives the cell back when it completes. */
    if (!(r->flags & RF_ARMED)) req_arm(r);
  } else if (err) {
    return err;
  }
  req_release(r);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count) {
  const int size = type_size(type);
  if (size < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Get_count", "invalid datatype %d", type);
  if (size == 0) *count = status->mpi_bytes_ == 0 ? 0 : MPI_UNDEFINED;
  else *count = status->mpi_bytes_ % size ? MPI_UNDEFINED : status->mpi_bytes_ / size;
  return MPI_SUCCESS;
}
