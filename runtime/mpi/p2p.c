/* Point-to-point calls: argument checks, request set-up, blocking forms, persistent
 * requests, probes. The matching itself is sender_match.c and receiver_match.c. */
#include <stdlib.h>
#include <string.h>

#include "datatypes.h"
#include "mpi_internal.h"

extern const emx_thread_fn __emx_handlers_start[];

/* ---- Argument checks ------------------------------------------------------------------ */

int check_buffer(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype type,
                 int writable, uint32_t *bytes) {
  if (count < 0) return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
  if (count == 0 && type == MPI_DATATYPE_NULL) { /* no data: MPI lets the type be null */
    *bytes = 0;
    return MPI_SUCCESS;
  }
  const int size = type_size(type);
  if (size == TYPE_HUGE)
    return mpi_error(comm, MPI_ERR_TYPE, fn, "datatype %d has more bytes than an int counts", type);
  if (size < 0) return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid datatype %d", type);
  const dtype *d = type_get(type);
  if (d && !d->committed)
    return mpi_error(comm, MPI_ERR_TYPE, fn, "datatype %d is not committed (MPI_Type_commit)", type);
  const uint64_t n = (uint64_t)(uint32_t)count * (uint32_t)size; /* mul + mulhu */
  if (n > INT32_MAX) /* (statuses and Get_count count bytes in an int) */
    return mpi_error(comm, MPI_ERR_COUNT, fn, "%d elements of datatype %d are %llu bytes, more "
                     "than a message can hold", count, type, (unsigned long long)n);
  /* The bytes the data touches: those of a non-contiguous type lie around buf. */
  int64_t lo = 0, hi = (int64_t)n;
  if (d && !d->contiguous) type_span(type, count, &lo, &hi);
  const int64_t a = (int64_t)(uintptr_t)buf + lo, span = hi - lo;
  /* A receive buffer must be writable memory (above the code and read-only data); any
   * buffer must lie in this PE's memory. Remote writes into anything else would corrupt
   * it silently. */
  const int64_t low = writable ? (int64_t)(uintptr_t)__emx_handlers_start : 0x1000;
  if (n && (a < low || a + span > (int64_t)emx_mem_bytes()))
    return mpi_error(comm, MPI_ERR_BUFFER, fn, "buffer %p of %llu bytes is not in %s memory",
                     buf, (unsigned long long)span, writable ? "writable" : "local");
  *bytes = (uint32_t)n;
  return MPI_SUCCESS;
}

static int check_peer(MPI_Comm comm, const mpi_comm *c, const char *fn, int rank, int is_recv) {
  if (rank == MPI_PROC_NULL || (is_recv && rank == MPI_ANY_SOURCE)) return MPI_SUCCESS;
  if (rank < 0 || rank >= c->size)
    return mpi_error(comm, MPI_ERR_RANK, fn, "invalid %s rank %d (communicator of %d ranks)",
                     is_recv ? "source" : "destination", rank, c->size);
  return MPI_SUCCESS;
}

static int check_tag(MPI_Comm comm, const char *fn, int tag, int is_recv) {
  if ((is_recv && tag == MPI_ANY_TAG) || (tag >= 0 && tag <= MPI_TAG_UB_VALUE))
    return MPI_SUCCESS;
  return mpi_error(comm, MPI_ERR_TAG, fn, "invalid tag %d (0 .. %d%s)", tag, MPI_TAG_UB_VALUE,
                   is_recv ? " or MPI_ANY_TAG" : "");
}

/* ---- Requests --------------------------------------------------------------------------- */

static inline mpi_request *setup(int kind, const mpi_comm *c, uint16_t ctx, void *buf,
                                 uint32_t bytes, int rank, int tag) {
  mpi_request *r = req_new(kind);
  r->buf = buf;
  r->capacity = bytes;
  r->rank = rank;
  r->ctx = ctx;
  r->base_pe = c->base_pe;
  /* r->map and r->pack are read only for a mapped communicator and RF_PACKED. */
  if (__builtin_expect(c->base_pe != COMM_MAPPED, 1)) {
    r->pe = (uint16_t)(c->base_pe + (rank >= 0 ? rank : 0));
  } else {
    r->pe = c->map->rank_pe[rank >= 0 ? rank : 0];
    r->map = c->map;
  }
  r->tag = tag == MPI_ANY_TAG ? TAG_ANY16 : (uint16_t)tag;
  r->proto = PROTO_GET;
  r->comm = MPI_COMM_NULL;
  if (rank == MPI_PROC_NULL) r->flags |= RF_NULL_PEER;
  return r;
}

/* The common case checked in a few instructions: a valid communicator, a basic datatype,
 * a count, rank and tag in range (receives: MPI_ANY_SOURCE and MPI_ANY_TAG too), a buffer
 * in memory. Anything else goes to the checks that name the error (or handle
 * MPI_PROC_NULL). */
static inline int args_ok(MPI_Comm comm, const void *buf, int count, MPI_Datatype type,
                          int rank, int tag, int is_recv, mpi_comm **c, uint32_t *bytes) {
  if ((unsigned)comm >= (unsigned)mpi_comm_count || !(*c = mpi_comm_table[comm])) return 0;
  if ((unsigned)type >= BASIC_TYPES || (unsigned)count > 0xffffffu) return 0;
  const uint32_t n = (uint32_t)count * (uint32_t)basic_types[type].size;
  const uint32_t a = (uint32_t)(uintptr_t)buf;
  const uint32_t low = is_recv ? (uint32_t)(uintptr_t)__emx_handlers_start : 0x1000;
  if (n && (a < low || a + n > mpi_mem_end || a + n < a)) return 0;
  if ((unsigned)rank >= (unsigned)(*c)->size && !(is_recv && rank == MPI_ANY_SOURCE)) return 0;
  if ((unsigned)tag > MPI_TAG_UB_VALUE && !(is_recv && tag == MPI_ANY_TAG)) return 0;
  *bytes = n;
  return basic_types[type].size > 0;
}

mpi_request *post_send(const mpi_comm *c, uint16_t ctx, const void *buf, uint32_t bytes,
                       int rank, int tag, int proto) {
  mpi_request *s = setup(REQ_SEND, c, ctx, (void *)buf, bytes, rank, tag);
  s->proto = (uint8_t)proto;
  s->flags |= RF_ACTIVE;
  send_start(s);
  return s;
}

mpi_request *post_recv(const mpi_comm *c, uint16_t ctx, void *buf, uint32_t bytes, int rank,
                       int tag) {
  mpi_request *r = setup(REQ_RECV, c, ctx, buf, bytes, rank, tag);
  r->flags |= RF_ACTIVE;
  recv_start(r);
  return r;
}

/* Checks the arguments of a send or receive; on success *c and *bytes are set. */
static int check_p2p(const char *fn, const void *buf, int count, MPI_Datatype type, int rank,
                     int tag, MPI_Comm comm, int is_recv, mpi_comm **c, uint32_t *bytes) {
  int err = check_comm(comm, fn, c);
  if (!err) err = check_buffer(comm, fn, buf, count, type, is_recv, bytes);
  if (!err) err = check_peer(comm, *c, fn, rank, is_recv);
  if (!err) err = check_tag(comm, fn, tag, is_recv);
  return err;
}

static int isend(const char *fn, const void *buf, int count, MPI_Datatype type, int dest,
                 int tag, MPI_Comm comm, int proto, int persistent, MPI_Request *request) {
  mpi_comm *c;
  uint32_t bytes;
  const int err = check_p2p(fn, buf, count, type, dest, tag, comm, 0, &c, &bytes);
  if (err) return err;
  struct pack_state *packed = 0;
  if (!type_contiguous(type) && dest != MPI_PROC_NULL) {
    /* Non-contiguous data travels packed (pack.c). */
    if (!(packed = pack_new(comm, fn, buf, count, type, bytes))) return MPI_ERR_NO_MEM;
    if (!persistent) pack_send_data(packed);
    buf = pack_buffer(packed);
  }
  mpi_request *s;
  if (persistent || packed) {
    s = setup(REQ_SEND, c, c->ctx, (void *)buf, bytes, dest, tag);
    s->proto = (uint8_t)proto;
    s->flags |= persistent ? RF_PERSISTENT : RF_ACTIVE;
    if (packed) s->flags |= RF_PACKED, s->pack = packed;
    if (!persistent) send_start(s);
  } else {
    s = post_send(c, c->ctx, buf, bytes, dest, tag, proto);
  }
  s->comm = comm;
  *request = req_handle(s);
  return MPI_SUCCESS;
}

static int irecv(const char *fn, void *buf, int count, MPI_Datatype type, int source, int tag,
                 MPI_Comm comm, int persistent, MPI_Request *request) {
  mpi_comm *c;
  uint32_t bytes;
  const int err = check_p2p(fn, buf, count, type, source, tag, comm, 1, &c, &bytes);
  if (err) return err;
  struct pack_state *packed = 0;
  if (!type_contiguous(type) && source != MPI_PROC_NULL) {
    /* Received into a buffer of the data's size, unpacked at completion (pack.c). */
    if (!(packed = pack_new(comm, fn, buf, count, type, bytes))) return MPI_ERR_NO_MEM;
    buf = pack_buffer(packed);
  }
  mpi_request *r;
  if (persistent || packed) {
    r = setup(REQ_RECV, c, c->ctx, buf, bytes, source, tag);
    r->flags |= persistent ? RF_PERSISTENT : RF_ACTIVE;
    if (packed) r->flags |= RF_PACKED, r->pack = packed;
    if (!persistent) recv_start(r);
  } else {
    r = post_recv(c, c->ctx, buf, bytes, source, tag);
  }
  r->comm = comm;
  *request = req_handle(r);
  return MPI_SUCCESS;
}

/* A new send request s that did not go out by the short one-sided send (start_send). */
static uintptr_t __attribute__((noinline)) send_started(mpi_request *s) {
  if (s->capacity <= 4 * SHORT_WORDS ||
      !put_to_posted_any(s->pe, s->tag, s->ctx, s->buf, s->capacity))
    return send_start_ok(s);
  s->flags |= RF_COMPLETE;
  return MPI_SUCCESS;
}

/* isend() for start_send, and the wait for what it created (isend_settle). */
static uintptr_t __attribute__((noinline)) isend_checked(const char *fn, const void *buf,
                                                         int count, MPI_Datatype type,
                                                         int dest, int tag, MPI_Comm comm,
                                                         MPI_Request *request) {
  const int err = isend(fn, buf, count, type, dest, tag, comm, mpi_protocol, 0, request);
  return err ? (uintptr_t)err : isend_settle(req_of(*request));
}

/* MPI_Isend and MPI_Send: the fast path, or the checks that report as `fn`. It calls
 * nothing but in tail calls, so that it saves no registers: a request cell at hand, the
 * short one-sided send inline (put_to_posted), everything else after *request is set.
 * MPI_SUCCESS, an error, or the context to suspend on until the operand segment of the
 * request it created comes (mpi_isend_end; the paper's order, unless
 * -mpi-option=local-isend). */
static inline __attribute__((always_inline)) uintptr_t
start_send(const char *fn, const void *buf, int count, MPI_Datatype type, int dest, int tag,
           MPI_Comm comm, MPI_Request *request) {
  mpi_comm *c;
  uint32_t bytes;
  if (__builtin_expect(!args_ok(comm, buf, count, type, dest, tag, 0, &c, &bytes) ||
                           !mpi_request_pool.free,
                       0))
    return isend_checked(fn, buf, count, type, dest, tag, comm, request);
  mpi_request *s = setup(REQ_SEND, c, c->ctx, (void *)buf, bytes, dest, tag);
  s->proto = (uint8_t)mpi_protocol;
  s->flags |= RF_ACTIVE;
  s->comm = comm;
  *request = req_handle(s);
  if (mpi_matching != MATCH_BOTH) return send_only(s); /* no lookup here */
  if (bytes <= 4 * SHORT_WORDS) {
    uint32_t looked;
    if (put_to_posted_looked(s->pe, s->tag, s->ctx, s->buf, bytes, 1, &looked)) {
      s->flags |= RF_COMPLETE;
      return MPI_SUCCESS;
    }
    return looked ? send_miss_at(s, looked) : send_miss(s);
  }
  return send_started(s);
}

/* With the suspension in the caller (mpi.h): done (its error code), or the context. */
uintptr_t mpi_isend_begin(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request) {
  return start_send("MPI_Isend", buf, count, type, dest, tag, comm, request);
}

/* The wait for the operand segment in a function of its own (a function with a
 * suspension saves every callee-saved register: not MPI_Isend's usual case). */
static int __attribute__((noinline)) isend_wait(MPI_Request *request, uintptr_t c) {
  return mpi_isend_end(request, __emx_suspend((emx_ctx_t *)c).a0);
}

/* MPI_Isend for callers without mpi.h's inline form (the library, C++,
 * MPI_EMX_NO_INLINE_WAIT): it waits here for its request's operand segment. */
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
  const uintptr_t c = start_send("MPI_Isend", buf, count, type, dest, tag, comm, request);
  if (__builtin_expect(c < 4096, 1)) return (int)c;
  return isend_wait(request, c);
}
/* Synchronous mode: the sync protocol completes the send only once it is matched (a
 * sender-side match means the receive is posted already). */
int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return isend("MPI_Issend", buf, count, type, dest, tag, comm, PROTO_SYNC, 0, request);
}
int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return isend("MPI_Irsend", buf, count, type, dest, tag, comm, mpi_protocol, 0, request);
}
static inline int start_recv(const char *fn, void *buf, int count, MPI_Datatype type,
                             int source, int tag, MPI_Comm comm, MPI_Request *request) {
  mpi_comm *c;
  uint32_t bytes;
  if (__builtin_expect(!args_ok(comm, buf, count, type, source, tag, 1, &c, &bytes), 0))
    return irecv(fn, buf, count, type, source, tag, comm, 0, request);
  mpi_request *r = setup(REQ_RECV, c, c->ctx, buf, bytes, source, tag);
  r->flags |= RF_ACTIVE;
  r->comm = comm;
  recv_start(r);
  *request = req_handle(r);
  return MPI_SUCCESS;
}

int mpi_irecv_general(void *buf, int count, MPI_Datatype type, int source, int tag,
                      MPI_Comm comm, MPI_Request *request);
int mpi_irecv_general(void *buf, int count, MPI_Datatype type, int source, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  const int err = start_recv("MPI_Irecv", buf, count, type, source, tag, comm, request);
  if (!err) irecv_settled(req_of(*request));
  return err;
}

/* MPI_Irecv for callers without mpi.h's inline form (the library, C++,
 * MPI_EMX_NO_INLINE_WAIT): it waits here for its receive request's operand segment. */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
  const uintptr_t c = mpi_irecv_begin(buf, count, type, source, tag, comm, request);
  if (c < 4096) return (int)c;
  return mpi_irecv_end(request, __emx_suspend((emx_ctx_t *)c).a0);
}

/* mpi_irecv_begin is irecv.S: MPI_Irecv's usual case by hand, as the original had its
 * hot paths in assembly (a receive posted in advance: a named source, nothing
 * unexpected or wildcard around, a request at hand, the key filed in the request-issued
 * queue before, a receive request that goes as a pair or by creation; what recv_start's
 * issue_recv_request does for a new request), and everything else here. The layout it relies on is checked in
 * irecv_layout.c. */

static int blocking_send(const char *fn, const void *buf, int count, MPI_Datatype type,
                         int dest, int tag, MPI_Comm comm, int proto) {
  MPI_Request r;
  const int err = isend(fn, buf, count, type, dest, tag, comm, proto, 0, &r);
  return err ? err : wait_request(req_of(r), MPI_STATUS_IGNORE);
}

/* MPI_Send beyond the short one-sided send: a longer one-sided send, or a request to
 * wait for. Returns MPI_SUCCESS or an error when done, else the context to suspend on
 * (wait_begin). */
static uintptr_t __attribute__((noinline)) send_begin(const void *buf, int count,
                                                      MPI_Datatype type, int dest, int tag,
                                                      MPI_Comm comm, MPI_Request *r) {
  mpi_comm *c;
  uint32_t bytes;
  if (args_ok(comm, buf, count, type, dest, tag, 0, &c, &bytes) &&
      put_to_posted_any(comm_pe(c, dest), (unsigned)tag, c->ctx, buf, bytes))
    return MPI_SUCCESS;
  const uintptr_t w = start_send("MPI_Send", buf, count, type, dest, tag, comm, r);
  if (w >= 4096) (void)isend_wait(r, w); /* its operand segment first, as MPI_Isend's */
  else if (w) return w;
  return wait_begin(r, MPI_STATUS_IGNORE, "MPI_Send");
}

/* MPI_Send's usual case: a blocking send that goes out one-sided at once needs no
 * request (nothing will wait for it), and this path calls nothing and saves no
 * registers. */
static inline __attribute__((always_inline)) int send_short(const void *buf, int count,
                                                            MPI_Datatype type, int dest,
                                                            int tag, MPI_Comm comm) {
  mpi_comm *c;
  uint32_t bytes;
  return __builtin_expect(args_ok(comm, buf, count, type, dest, tag, 0, &c, &bytes), 1) &&
         put_to_posted(comm_pe(c, dest), (unsigned)tag, c->ctx, buf, bytes, 1);
}

/* With the suspension in the caller (mpi.h): done (its error code), or the context. */
uintptr_t mpi_send_begin(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request) {
  if (send_short(buf, count, type, dest, tag, comm)) return MPI_SUCCESS;
  return send_begin(buf, count, type, dest, tag, comm, request);
}
int mpi_send_end(MPI_Request *request, uint32_t value) {
  return wait_end(request, MPI_STATUS_IGNORE, value, "MPI_Send");
}

static int __attribute__((noinline)) send_blocking(const void *buf, int count,
                                                   MPI_Datatype type, int dest, int tag,
                                                   MPI_Comm comm) {
  MPI_Request r;
  const uintptr_t ctx = send_begin(buf, count, type, dest, tag, comm, &r);
  if (ctx < 4096) return (int)ctx;
  return wait_end(&r, MPI_STATUS_IGNORE, __emx_suspend((emx_ctx_t *)ctx).a0, "MPI_Send");
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (send_short(buf, count, type, dest, tag, comm)) return MPI_SUCCESS;
  return send_blocking(buf, count, type, dest, tag, comm);
}
int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Ssend", buf, count, type, dest, tag, comm, PROTO_SYNC);
}
int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Rsend", buf, count, type, dest, tag, comm, mpi_protocol);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  MPI_Request r;
  const int err = start_recv("MPI_Recv", buf, count, type, source, tag, comm, &r);
  return err ? err : wait_named(&r, status, "MPI_Recv");
}
/* MPI_Recv with the suspension in the caller (mpi.h). */
uintptr_t mpi_recv_begin(void *buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Status *status, MPI_Request *request) {
  const int err = start_recv("MPI_Recv", buf, count, type, source, tag, comm, request);
  return err ? (uintptr_t)err : wait_begin(request, status, "MPI_Recv");
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status) {
  MPI_Request r, s;
  int err = irecv("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &r);
  if (err) return err;
  err = isend("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm, mpi_protocol,
              0, &s);
  if (err) return err;
  (void)wait_request(req_of(s), MPI_STATUS_IGNORE);
  MPI_Status st;
  err = wait_request(req_of(r), &st);
  if (status) *status = st;
  if (err) return mpi_error(comm, err, "MPI_Sendrecv", "%s", truncation_message(&st));
  return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  mpi_comm *c;
  uint32_t bytes;
  int err = check_p2p("MPI_Sendrecv_replace", buf, count, type, dest, sendtag, comm, 1, &c,
                      &bytes);
  if (err) return err;
  void *copy = malloc(bytes ? bytes : 1);
  if (!copy) return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace", "no memory");
  type_pack(buf, count, type, copy); /* (a strided type's data lie around buf) */
  err = MPI_Sendrecv(copy, (int)bytes, MPI_PACKED, dest, sendtag, buf, count, type, source,
                     recvtag, comm, status);
  free(copy);
  return err;
}

/* ---- Persistent requests ------------------------------------------------------------------ */

int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request) {
  return isend("MPI_Send_init", buf, count, type, dest, tag, comm, mpi_protocol, 1, request);
}
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request) {
  return isend("MPI_Ssend_init", buf, count, type, dest, tag, comm, PROTO_SYNC, 1, request);
}
int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  return irecv("MPI_Recv_init", buf, count, type, source, tag, comm, 1, request);
}

int MPI_Start(MPI_Request *request) {
  MPI_REQUIRE_INIT("MPI_Start");
  const MPI_Request h = request ? *request : 0;
  mpi_request *r = req_of(h);
  if (!h || !req_user_handle(h) || !(r->flags & RF_PERSISTENT))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Start", "not a persistent request");
  if (r->flags & RF_ACTIVE)
    return mpi_error(r->comm, MPI_ERR_REQUEST, "MPI_Start", "the request is active already");
  r->flags &= (uint16_t)~RF_CANCELLED;
  req_reset(r);
  if (r->rank == MPI_PROC_NULL) r->flags |= RF_NULL_PEER;
  if (r->kind == REQ_SEND && (r->flags & RF_PACKED)) pack_send_data(r->pack);
  if (r->kind == REQ_SEND) send_start(r);
  else recv_start(r);
  return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request *requests) {
  if (count < 0)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Startall", "negative count %d", count);
  for (int k = 0; k < count; ++k) {
    const int err = MPI_Start(&requests[k]);
    if (err) return err;
  }
  return MPI_SUCCESS;
}

/* ---- Probes -------------------------------------------------------------------------------- */

/* Only messages that are not matched yet can be probed, and those are exactly the
 * unexpected send requests on this PE: a one-sided send is always matched already. */
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  mpi_comm *c;
  int err = check_comm(comm, "MPI_Iprobe", &c);
  if (!err) err = check_peer(comm, c, "MPI_Iprobe", source, 1);
  if (!err) err = check_tag(comm, "MPI_Iprobe", tag, 1);
  if (err) return err;
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    if (status) *status = (MPI_Status){MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    return MPI_SUCCESS;
  }
  const int pe = source == MPI_ANY_SOURCE ? -1 : (int)comm_pe(c, source);
  const uint16_t t = tag == MPI_ANY_TAG ? TAG_ANY16 : (uint16_t)tag;
  const int base = c->base_pe == COMM_MAPPED ? 0 : c->base_pe; /* mapped: PE, then rank */
  *flag = unexpected_probe(pe, t, c->ctx, status, base);
  if (!*flag) {
    mpi_progress(); /* let arriving send requests be filed */
    *flag = unexpected_probe(pe, t, c->ctx, status, base);
    /* ... and those whose creation is under way (mpi_inbound) */
    for (unsigned steps = 0; !*flag && mpi_progress_inbound(&steps);)
      *flag = unexpected_probe(pe, t, c->ctx, status, base);
    if (!*flag) credit_wanted(pe); /* its message may wait behind held credits */
  }
  if (*flag && status && c->base_pe == COMM_MAPPED)
    status->MPI_SOURCE = comm_rank_of(c, (unsigned)status->MPI_SOURCE);
  return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  int flag = 0;
  while (!flag) {
    const int err = MPI_Iprobe(source, tag, comm, &flag, status);
    if (err) return err;
  }
  return MPI_SUCCESS;
}
