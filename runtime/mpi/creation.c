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

#include "mpi_internal.h"

enum { OP_CREATE, OP_REMOVAL };
typedef struct outbox_op {
  struct outbox_op *next;
  uint8_t op, kind, bits, n;
  uint32_t w[4]; /* OP_REMOVAL: w[0] the request there, bits the side */
} outbox_op;
typedef struct {
  outbox_op *head, *tail;
  uint16_t creates, asked; /* creations waiting; operand segments asked for */
  struct drain_waiter *drained; /* computations waiting for the outbox to empty */
} outbox;
/* On the stack of a computation waiting in proto_drain_wait (several computations of a
 * rank may call MPI at once, MPI_THREAD_MULTIPLE). */
typedef struct drain_waiter {
  emx_ctx_t *ctx;
  struct drain_waiter *next;
} drain_waiter;
/* Segments asked for at once per peer: a peer's frames are never given back to its heap,
 * so the number in flight is bounded (a burst of requests to one peer would otherwise
 * carve a frame for each); 2 keep the requests pipelined across the round trip. */
enum { MAX_ASKED = 2 };

static outbox *outboxes;        /* by peer PE */
uint32_t mpi_outbox_pending;    /* ops waiting, all peers (irecv.S looks at it) */
static mpi_pool op_pool = {.cell_bytes = sizeof(outbox_op), .batch_bytes = 8 * sizeof(outbox_op)};
static unsigned idx_segment, idx_segment_reply;
static emx_thread_fn *request_tmpl;
enum { ARGS = 4 }; /* the request's words start at frame word 4 (slots 1..3 name the kinds) */

static void (*const cores[REQ_KINDS])(unsigned, unsigned, const uint32_t *) = {
    [REQ_SREQ] = sreq_arrived, [REQ_RREQ] = rreq_arrived_words, [REQ_TMP] = tmp_alloc_arrived};

/* The invoked thread: a0 = requester PE | bits << 10, cont = the frame's slot 1 + kind. */
static void request_thread(uint32_t v, uint32_t unused, uint32_t cont) {
  (void)unused;
  uint32_t *f = emx_frame();
  const unsigned kind = ((cont << 10) >> 8) / 4 - (uint32_t)(uintptr_t)f / 4 - 1;
  uint32_t w[4] = {f[ARGS], f[ARGS + 1], f[ARGS + 2], f[ARGS + 3]};
  emx_frame_free(f);
  cores[kind](v & 0x3ff, v >> 10, w);
}

/* On the target: a frame for a requester's creation (arg16 = its PE). */
static void mpi_h_segment(uint32_t unused, uint32_t requester, uint32_t addr) {
  (void)unused, (void)addr;
  void *f = emx_frame_alloc(request_tmpl);
  emx_invoke(requester & 0x3ff, idx_segment_reply, mpi_me, emx_gaddr_mine(f));
}
EMX_HANDLER(mpi_h_segment);

static void send_removal_now(unsigned pe, uint32_t request, unsigned side) {
  emx_invoke(pe, mpi_idx_remove, mpi_me | side << 10, request);
}

/* On the requester: the frame for the oldest waiting creation of `target`; then the
 * messages queued behind it leave, up to the next creation. */
static void mpi_h_segment_reply(uint32_t frame, uint32_t target, uint32_t addr) {
  (void)addr;
  outbox *b = &outboxes[target & 0x3ff];
  outbox_op *o = b->head;
  if (!o || o->op != OP_CREATE) mpi_internal_error("an operand segment nobody asked for");
  emx_put(frame + ARGS, o->w, o->n);
  emx_send(EMX_PKT_invoke1, frame + 1 + o->kind, mpi_me | (uint32_t)o->bits << 10);
  --b->asked;
  if (--b->creates > b->asked) {
    emx_invoke(target & 0x3ff, idx_segment, mpi_me, 0);
    ++b->asked;
  }
  for (;;) {
    b->head = o->next;
    pool_put(&op_pool, o);
    --mpi_outbox_pending;
    o = b->head;
    if (!o || o->op == OP_CREATE) break;
    send_removal_now(target & 0x3ff, o->w[0], o->bits);
  }
  if (!b->head) {
    b->tail = 0;
    for (drain_waiter *w = b->drained, *next; w; w = next) {
      next = w->next; /* (w's computation runs only after this thread) */
      emx_send(EMX_PKT_invoke1, emx_ctx_cont(w->ctx), 0);
    }
    b->drained = 0;
  }
}
EMX_HANDLER(mpi_h_segment_reply);

/* A computation waits until pe's outbox is empty: every request it issued to pe has been
 * invoked there. MPI_Isend and MPI_Irecv do not wait (they are local: the peer's handler
 * may wait behind a long computation there); MPI_Barrier waits for all peers. */
void proto_drain_all_wait(void) {
  for (unsigned pe = 0; mpi_outbox_pending && pe < emx_pe_count(); ++pe) proto_drain_wait(pe);
}

void proto_drain_wait(unsigned pe) {
  outbox *b = &outboxes[pe];
  if (!b->head) return;
  drain_waiter w = {emx_ctx_new(), b->drained};
  b->drained = &w;
  (void)emx_ctx_wait(w.ctx);
}

static void enqueue(unsigned pe, outbox_op *o) {
  outbox *b = &outboxes[pe];
  o->next = 0;
  if (b->tail) b->tail->next = o;
  else b->head = o;
  b->tail = o;
  ++mpi_outbox_pending;
}

void proto_create(unsigned pe, unsigned kind, unsigned bits, const uint32_t *w, unsigned n) {
  outbox_op *o = pool_get(&op_pool);
  o->op = OP_CREATE;
  o->kind = (uint8_t)kind;
  o->bits = (uint8_t)bits;
  o->n = (uint8_t)n;
  for (unsigned k = 0; k < n; ++k) o->w[k] = w[k];
  enqueue(pe, o);
  outbox *b = &outboxes[pe];
  ++b->creates;
  if (b->asked < MAX_ASKED) {
    emx_invoke(pe, idx_segment, mpi_me, 0);
    ++b->asked;
  }
}

void proto_removal_queued(unsigned pe, uint32_t request, int recv_side) {
  if (!outboxes[pe].head) {
    send_removal_now(pe, request, (unsigned)recv_side);
    return;
  }
  outbox_op *o = pool_get(&op_pool);
  o->op = OP_REMOVAL;
  o->bits = (uint8_t)recv_side;
  o->w[0] = request;
  enqueue(pe, o);
}

int proto_peer_quiet(unsigned pe) { return outboxes[pe].head == 0; }

void creation_init(void) {
  idx_segment = EMX_HANDLER_INDEX(mpi_h_segment);
  idx_segment_reply = EMX_HANDLER_INDEX(mpi_h_segment_reply);
  outboxes = calloc(emx_pe_count(), sizeof *outboxes);
  request_tmpl = calloc(1 + REQ_KINDS, sizeof *request_tmpl);
  if (!outboxes || !request_tmpl) mpi_internal_error("no memory for the request outboxes");
  for (unsigned k = 1; k <= REQ_KINDS; ++k) request_tmpl[k] = request_thread;
}
