/* Protocol requests by EM-X's normal remote thread creation (the paper's mechanism, the
 * default): obtain an operand segment on the target (a special packet there, whose
 * handler takes a frame from its free list and answers with its global address), write
 * the request's words into it by remote writes, invoke the frame's slot for the kind of
 * request. The thread there runs the request's handler with the words from the frame and
 * gives the frame back. With -mpi-option=staged-records a request is today's staged
 * record of special packets instead (records.c), without the round trip.
 *
 * Order. The protocol relies on a peer seeing this PE's protocol messages in the order
 * they were issued (a removal must reach the sender before any later receive request,
 * docs/mpi.md). A creation takes effect at its invocation, a round trip after it was
 * issued, so every protocol message for a peer issued meanwhile waits in that peer's
 * *outbox* and leaves behind the invocation. The frame requests of one peer are answered
 * in order (one handler there, FIFO both ways), so the answers fill the outbox's waiting
 * creations in order: they are pipelined, not one round trip after another. */
#include <stdlib.h>

#include "arrivals_layout.h"
#include "irecv_layout.h"
#include "mpi_internal.h"
#include "sreq_layout.h"

enum { OP_CREATE, OP_REMOVAL, OP_DIRECT };
typedef struct outbox_op {
  struct outbox_op *next;
  uint8_t op, kind, bits, n;
  uint32_t w[4]; /* OP_REMOVAL: w[0] the request there, bits the side */
} outbox_op;
/* Word-sized counters: halfwords cost a zero extension at every update. */
typedef struct {
  outbox_op *head, *tail;
  uint32_t creates, asked; /* creations waiting; operand segments asked for */
  struct drain_waiter *drained; /* computations waiting for the outbox to empty */
  /* The op of a creation whose issuing computation waits for its operand segment and
   * then writes the words from its request (OP_DIRECT, no words: proto_direct_begin,
   * send_miss.S): it heads the empty outbox, so there is at most one at a time, and it
   * is the outbox's own (an outbox_op's next and header; the header OP_DIRECT). */
  struct {
    struct outbox_op *next;
    uint32_t hdr;
  } direct;
  uint32_t pad; /* 32 bytes: the hand-written paths index by a shift */
} outbox;
/* The outbox's direct op as an op of its queue. */
static inline outbox_op *direct_op(outbox *b) { return (outbox_op *)(void *)&b->direct; }
/* On the stack of a computation waiting in proto_drain_wait (several computations of a
 * rank may call MPI at once, MPI_THREAD_MULTIPLE), or an op cell (pooled: MPI_Irecv
 * queued behind other creations, proto_direct_begin). */
typedef struct drain_waiter {
  emx_ctx_t *ctx;
  struct drain_waiter *next;
  uint32_t pooled;
} drain_waiter;
/* Segments asked for at once per peer: a peer's frames are never given back to its heap,
 * so the number in flight is bounded (a burst of requests to one peer would otherwise
 * carve a frame for each); 2 keep the requests pipelined across the round trip. */
enum { MAX_ASKED = 2 };

/* The layout send_miss.S relies on. */
_Static_assert(__builtin_offsetof(outbox, head) == L_OB_HEAD &&
                   __builtin_offsetof(outbox, tail) == L_OB_TAIL &&
                   __builtin_offsetof(outbox, creates) == L_OB_CREATES &&
                   __builtin_offsetof(outbox, asked) == L_OB_ASKED &&
                   __builtin_offsetof(outbox, drained) == L_OB_DRAINED &&
                   __builtin_offsetof(outbox, direct) == L_OB_DIRECT &&
                   __builtin_offsetof(outbox, direct.hdr) - __builtin_offsetof(outbox, direct) ==
                       __builtin_offsetof(outbox_op, op) &&
                   sizeof(outbox) == L_OB_BYTES && L_OB_BYTES == 1 << L_OB_SHIFT && REQ_ARGS_WORD == L_REQ_ARGS &&
                   EMX_PKT_syswr == 4 && EMX_PKT_invoke1 == 0 && OP_CREATE == 0 &&
                   __builtin_offsetof(outbox_op, next) == 0 &&
                   __builtin_offsetof(outbox_op, op) == L_OP_HDR &&
                   __builtin_offsetof(outbox_op, kind) == L_OP_HDR + 1 &&
                   __builtin_offsetof(outbox_op, bits) == L_OP_HDR + 2 &&
                   __builtin_offsetof(outbox_op, n) == L_OP_HDR + 3 &&
                   __builtin_offsetof(outbox_op, w) == L_OP_W && OP_CREATE == 0 && REQ_SREQ == 0 &&
                   MAX_ASKED == L_MAX_ASKED && EMX_PKT_special == 3 &&
                   L_OP_TMP_HDR == (OP_CREATE | REQ_TMP << 8 | 2u << 24),
               "send_miss.S, segment_reply.S: the outbox's layout");

outbox *mpi_outboxes;           /* by peer PE (send_miss.S too) */
uint32_t mpi_outbox_pending;    /* ops waiting, all peers (irecv.S looks at it) */
/* In small data: gp-relative from the hand-written paths (one instruction, not two). */
mpi_pool mpi_op_pool __attribute__((section(".sdata"))) = {.cell_bytes = sizeof(outbox_op),
                                                           .batch_bytes = 8 * sizeof(outbox_op)};
unsigned mpi_idx_segment;
uint32_t mpi_segment_word; /* emx_special_addr(0, mpi_idx_segment, mpi_me) (send_miss.S) */
static unsigned idx_segment_reply;
/* emx_special_addr(0, idx_segment_reply, mpi_me); and the template of a request's frame
 * (both read by segment_reply.S's mpi_h_segment) */
uint32_t mpi_segment_reply_word;
uint32_t mpi_me_gaddr;          /* emx_gaddr(mpi_me, 0) (sreq.S too) */
emx_thread_fn *mpi_request_tmpl;
enum { ARGS = REQ_ARGS_WORD }; /* (slots 1..3 name the kinds) */

/* The invoked threads, one per kind (slot 1 + kind), all by hand: a0 = requester PE | bits
 * << 10, the frame in tp, the words from ARGS (word 4, checked in receiver_match.c). The
 * frame goes back first, the words are read after. A send request's (matching_init
 * chooses): mpi_sreq_thread (sreq.S) with matching on the receiver only and EM-X's block
 * read, mpi_sreq_thread_general (all in C) without it, mpi_sreq_thread_both (arrivals.S)
 * with both sides; a receive request's: mpi_rreq_thread (arrivals.S; on a machine whose
 * remote writes are not the memory unit's, mpi_rreq_thread_indirect); a tmp request's:
 * mpi_tmp_thread (tmp_answer.S). */

/* On the target: the operand segment for a requester's creation. mpi_h_segment is
 * segment_reply.S's (by hand: its answer is on the critical path of every creation):
 * a frame from the free list, its global address to the continuation cont (the
 * requesting computation waits for it: proto_direct_begin, send_miss.S), or with cont 0
 * to the requester's mpi_h_segment_reply (requester = its PE); the frame leaves the free
 * list after the answer, and mpi_inbound counts it until the invocation into it (a probe
 * waits for it). With no frame in the free list: */
void segment_carved(uint32_t requester);
void segment_carved(uint32_t requester) {
  void *f = emx_frame_alloc(mpi_request_tmpl);
  emx_invoke(requester & 0x3ff, idx_segment_reply, mpi_me, emx_gaddr_mine(f));
}
void segment_carved_to(uint32_t cont);
void segment_carved_to(uint32_t cont) {
  void *f = emx_frame_alloc(mpi_request_tmpl);
  emx_send(EMX_PKT_invoke1, cont, emx_gaddr_mine(f));
}
void mpi_h_segment(uint32_t cont, uint32_t requester, uint32_t addr);
EMX_HANDLER(mpi_h_segment);

static void send_removal_now(unsigned pe, uint32_t request, unsigned side) {
  emx_invoke(pe, mpi_idx_remove, mpi_me | side << 10, request);
}

/* What follows a creation's invocation, off the usual path (its own function, so that
 * the reply's handler calls nothing): the messages queued behind it up to the next
 * creation, and the computations waiting for an empty outbox. */
void proto_after_invocation(outbox *b, unsigned target);
void __attribute__((noinline)) proto_after_invocation(outbox *b, unsigned target) {
  for (outbox_op *o = b->head; o && o->op != OP_CREATE; o = b->head) {
    send_removal_now(target, o->w[0], o->bits);
    b->head = o->next;
    pool_put(&mpi_op_pool, o);
    --mpi_outbox_pending;
  }
  if (!b->head) {
    b->tail = 0;
    for (drain_waiter *w = b->drained, *next; w; w = next) {
      next = w->next; /* (w's computation runs only after this thread) */
      emx_send(EMX_PKT_invoke1, emx_ctx_cont(w->ctx), 0);
      if (w->pooled) pool_put(&mpi_op_pool, w);
    }
    b->drained = 0;
  }
}

static void __attribute__((noinline, noreturn)) segment_unasked(void) {
  mpi_internal_error("an operand segment nobody asked for");
}

/* On the requester: the frame for the oldest waiting creation of `target`: its words by
 * remote writes, the invocation; then the messages queued behind it leave, up to the
 * next creation. The handler is segment_reply.S (its usual case by hand), this its
 * general form. */
void mpi_h_segment_reply(uint32_t frame, uint32_t target, uint32_t addr);
void segment_reply_general(uint32_t frame, uint32_t target, uint32_t addr);
void segment_reply_general(uint32_t frame, uint32_t target, uint32_t addr) {
  (void)addr;
  target &= 0x3ff;
  outbox *b = &mpi_outboxes[target];
  outbox_op *o = b->head;
  if (__builtin_expect(!o || o->op != OP_CREATE, 0)) segment_unasked();
  const emx_gaddr_t g = frame + ARGS;
  if (!o->n) { /* send_only's send request: the words from the send (segment_reply.S) */
    const mpi_request *s = (const mpi_request *)(uintptr_t)o->w[0];
    o->w[0] = req_gaddr(s);
    o->w[1] = (uint32_t)(uintptr_t)s->buf;
    o->w[2] = s->capacity;
    o->w[3] = s->tag | (uint32_t)s->ctx << 16;
    o->n = 4;
  }
  if (__builtin_expect(target != mpi_me, 1)) { /* 2 or 4 words (proto_create) */
    emx_send(EMX_PKT_syswr, g, o->w[0]);
    emx_send(EMX_PKT_syswr, g + 1, o->w[1]);
    if (o->n > 2) {
      emx_send(EMX_PKT_syswr, g + 2, o->w[2]);
      emx_send(EMX_PKT_syswr, g + 3, o->w[3]);
    }
  } else {
    uint32_t *to = emx_gaddr_local(g);
    for (unsigned k = 0; k < o->n; ++k) to[k] = o->w[k];
  }
  emx_send(EMX_PKT_invoke1, frame + 1 + o->kind, mpi_me | (uint32_t)o->bits << 10);
  const uint32_t creates = --b->creates;
  if (creates >= b->asked) /* one more waits for a segment: ask (this answer's slot) */
    emx_invoke(target, mpi_idx_segment, mpi_me, 0);
  else
    --b->asked;
  b->head = o->next;
  pool_put(&mpi_op_pool, o);
  --mpi_outbox_pending;
  if (!b->head) {
    b->tail = 0;
    if (__builtin_expect(b->drained != 0, 0)) proto_after_invocation(b, target);
  } else if (__builtin_expect(b->head->op != OP_CREATE, 0)) {
    proto_after_invocation(b, target);
  }
}
EMX_HANDLER(mpi_h_segment_reply);
void mpi_h_segment_reply_separate(uint32_t frame, uint32_t target, uint32_t addr);
EMX_HANDLER(mpi_h_segment_reply_separate); /* without the send's displacement form */

/* A computation waits until pe's outbox is empty: every request it issued to pe has been
 * invoked there. MPI_Isend and MPI_Irecv wait for their own creations (mpi_isend_end,
 * isend_settle, proto_direct_begin; with -mpi-option=local-isend MPI_Isend does not);
 * MPI_Barrier waits for all peers. */
void proto_drain_all_wait(void) {
  for (unsigned pe = 0; mpi_outbox_pending && pe < emx_pe_count(); ++pe) proto_drain_wait(pe);
}

void proto_drain_wait(unsigned pe) {
  outbox *b = &mpi_outboxes[pe];
  if (!b->head) return;
  drain_waiter w = {emx_ctx_new(), b->drained, 0};
  b->drained = &w;
  (void)emx_ctx_wait(w.ctx);
}

static inline void enqueue(outbox *b, outbox_op *o) {
  o->next = 0;
  if (b->tail) b->tail->next = o;
  else b->head = o;
  b->tail = o;
  ++mpi_outbox_pending;
}

/* The op cell when the pool is empty (its own function: the usual case calls nothing). */
static void __attribute__((noinline)) create_refill(unsigned pe, unsigned kind, unsigned bits,
                                                    unsigned n, uint32_t w0, uint32_t w1,
                                                    uint32_t w2, uint32_t w3) {
  pool_put(&mpi_op_pool, pool_refill(&mpi_op_pool));
  const uint32_t w[4] = {w0, w1, w2, w3};
  proto_create(pe, kind, bits, w, n);
}

/* n words: 2 (a tmp request) or 4 (a send or receive request). */
static inline __attribute__((always_inline)) void create(unsigned pe, unsigned kind,
                                                         unsigned bits, unsigned n, uint32_t w0,
                                                         uint32_t w1, uint32_t w2, uint32_t w3) {
  outbox_op *o = mpi_op_pool.free;
  if (__builtin_expect(!o, 0)) {
    create_refill(pe, kind, bits, n, w0, w1, w2, w3);
    return;
  }
  mpi_op_pool.free = o->next;
  o->op = OP_CREATE;
  o->kind = (uint8_t)kind;
  o->bits = (uint8_t)bits;
  o->n = (uint8_t)n;
  o->w[0] = w0;
  o->w[1] = w1;
  o->w[2] = w2;
  o->w[3] = w3;
  outbox *b = &mpi_outboxes[pe];
  enqueue(b, o);
  ++b->creates;
  if (b->asked < MAX_ASKED) {
    emx_invoke(pe, mpi_idx_segment, mpi_me, 0);
    ++b->asked;
  }
}

void proto_create(unsigned pe, unsigned kind, unsigned bits, const uint32_t *w, unsigned n) {
  if (n > 2) create(pe, kind, bits, 4, w[0], w[1], w[2], w[3]);
  else create(pe, kind, bits, 2, w[0], w[1], 0, 0);
}

/* A request of four words in registers; returns MPI_SUCCESS. */
int proto_create4(unsigned pe, unsigned kind, unsigned bits, uint32_t w0, uint32_t w1,
                  uint32_t w2, uint32_t w3) {
  create(pe, kind, bits, 4, w0, w1, w2, w3);
  return MPI_SUCCESS;
}

/* The outbox's direct op heads pe's outbox (it is empty) and the segment is asked for
 * with continuation c; returns c. */
static inline __attribute__((always_inline)) uintptr_t direct_ask(outbox *b, emx_ctx_t *c,
                                                                 unsigned pe) {
  outbox_op *o = direct_op(b); /* (its next is 0 while it is free: DIRECT_OP_OFF) */
  b->head = b->tail = o;
  ++mpi_outbox_pending;
  emx_invoke(pe, mpi_idx_segment, mpi_me, emx_ctx_cont(c));
  return (uintptr_t)c;
}

/* The rest of proto_direct_begin: credits to ask for, a cell or context to make, or
 * something before it in pe's outbox (or pe is this PE: then the request queues and
 * the computation waits here for the outbox to empty). Its own function, so that the
 * usual case calls nothing and saves no register. */
/* A receive request's four words (mpi_irecv_end writes the same). */
#define RREQ_WORDS(r) req_gaddr(r), (uint32_t)(uintptr_t)(r)->buf, (r)->capacity, \
                      (r)->tag | (uint32_t)(r)->ctx << 16

uintptr_t direct_slow(unsigned pe, const mpi_request *r);
uintptr_t direct_slow(unsigned pe, const mpi_request *r) {
  rreq_credit_low(pe);
  outbox *b = &mpi_outboxes[pe];
  if (b->head != 0 || pe == mpi_me) {
    create(pe, REQ_RREQ, 0, 4, RREQ_WORDS(r));
    proto_drain_wait(pe);
    return 0;
  }
  emx_ctx_t *c = emx_ctx_new();
  return direct_ask(b, c, pe);
}

/* proto_direct_begin(pe, r) is irecv.S's (MPI_Irecv ends in it): a receive request created
 * by the issuing computation itself. It asks for the operand segment with its own
 * continuation and returns the context to suspend on (mpi.h compiles the suspension into
 * MPI_Irecv's caller, as for MPI_Wait); its op heads pe's outbox meanwhile, so that
 * messages to pe issued by handlers in between leave behind the invocation (pe answers
 * in order, this answer first; mpi_irecv_end reads the words from the request). Behind
 * other creations to pe (the naive ping-pong's buffered sender, its send request still
 * asking) it is one more creation, its words in its op, and the computation waits until
 * the outbox is empty, as in proto_drain_wait, without a call: the waiter is an op cell,
 * the caller suspends (mpi_irecv_end then has nothing to do). Anything else (credits to
 * ask for, no cell or context at hand, pe this PE): direct_slow, which returns the
 * context or 0 once the outbox is empty. */
_Static_assert(OP_DIRECT == L_OP_DIRECT && REQ_RREQ == L_REQ_RREQ &&
                   L_OP_RREQ_HDR == (OP_CREATE | REQ_RREQ << 8 | 4u << 24) &&
                   __builtin_offsetof(drain_waiter, ctx) == 0 &&
                   __builtin_offsetof(drain_waiter, next) == 4 &&
                   __builtin_offsetof(drain_waiter, pooled) == 8,
               "irecv.S: proto_direct_begin's layout");

/* mpi_irecv_end (MPI_Irecv's end when its caller was resumed with the segment: the
 * receive request's words from the request, the invocation, the op out of the outbox) is
 * irecv.S's; what queued behind the op, or computations waiting for the empty outbox: */
int irecv_end_after(outbox *b, unsigned pe);
int irecv_end_after(outbox *b, unsigned pe) {
  proto_after_invocation(b, pe);
  return MPI_SUCCESS;
}

/* mpi_isend_end (MPI_Isend's end when its caller was resumed with the segment: its op
 * heads the outbox, OP_DIRECT, from send_miss.S's ASK_SEGMENT) is send_miss.S's, with
 * irecv_end_after for what queued behind the op. */
/* MPI_Isend's C paths: a creation of s's went into its receiver's outbox (or waits
 * there behind others): the computation waits until the outbox is empty. */
uintptr_t isend_settle(const mpi_request *s) {
  const unsigned pe = s->pe;
  if (mpi_opt.local_isend || (s->flags & RF_NULL_PEER) || pe == mpi_me) return MPI_SUCCESS;
  outbox *b = &mpi_outboxes[pe];
  if (!b->head) return MPI_SUCCESS;
  drain_waiter *w = pool_get(&mpi_op_pool);
  *w = (drain_waiter){emx_ctx_new(), b->drained, 1};
  b->drained = w;
  return (uintptr_t)w->ctx;
}

void irecv_settle(unsigned pe) { proto_drain_wait(pe); }

void irecv_settled_both(const mpi_request *r) {
  if (r && r->rank >= 0 && !(r->flags & RF_NULL_PEER)) {
    rreq_credit_low(r->pe);
    irecv_settle(r->pe);
  }
}

void proto_removal_queued(unsigned pe, uint32_t request, int recv_side) {
  outbox *b = &mpi_outboxes[pe];
  if (!b->head) {
    send_removal_now(pe, request, (unsigned)recv_side);
    return;
  }
  outbox_op *o = pool_get(&mpi_op_pool);
  o->op = OP_REMOVAL;
  o->bits = (uint8_t)recv_side;
  o->w[0] = request;
  enqueue(b, o);
}

int proto_peer_quiet(unsigned pe) { return mpi_outboxes[pe].head == 0; }

void proto_sreq_thread(emx_thread_fn fn) { mpi_request_tmpl[1 + REQ_SREQ] = fn; }

void creation_init(void) {
  mpi_idx_segment = EMX_HANDLER_INDEX(mpi_h_segment);
  mpi_segment_word = emx_special_addr(0, mpi_idx_segment, mpi_me);
  idx_segment_reply = emx_features() & EMX_FEATURE_SEND_DISPLACEMENT
                          ? EMX_HANDLER_INDEX(mpi_h_segment_reply)
                          : EMX_HANDLER_INDEX(mpi_h_segment_reply_separate);
  mpi_segment_reply_word = emx_special_addr(0, idx_segment_reply, mpi_me);
  mpi_me_gaddr = emx_gaddr(mpi_me, 0);
  mpi_outboxes = calloc(emx_pe_count(), sizeof *mpi_outboxes);
  mpi_request_tmpl = calloc(S_READ_SLOT + 1, sizeof *mpi_request_tmpl);
  if (!mpi_outboxes || !mpi_request_tmpl) mpi_internal_error("no memory for the request outboxes");
  for (unsigned pe = 0; pe < emx_pe_count(); ++pe) direct_op(&mpi_outboxes[pe])->op = OP_DIRECT;
  /* (slot 1 + REQ_SREQ: matching_init chooses, once the machine's block read is known) */
  mpi_request_tmpl[1 + REQ_RREQ] = mpi_direct ? mpi_rreq_thread : mpi_rreq_thread_indirect;
  mpi_request_tmpl[1 + REQ_TMP] = mpi_tmp_thread;
  mpi_request_tmpl[S_READ_SLOT] = mpi_sreq_read_done; /* (sreq.S's remote read's reply) */
}
