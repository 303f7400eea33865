/* Flow control for send requests (docs/mpi-flow-control.md): credits, the per-peer
 * queue of send requests waiting for one, and the buffered protocol's temporary buffer
 * asked for without blocking MPI_Isend. The credits for receive requests are counted
 * here too: a small share per receiver that comes back with the request-issued entries
 * (no packet of its own, mpi_internal.h), and the rest of the sender's budget as a pool
 * it grants from on demand (a special packet each way).
 *
 * An unexpected send request costs its receiver a record until the receive is posted,
 * and nothing in MPI bounds how many a correct program sends ahead. So a sender issues a
 * send request to a receiver only with a *credit* for it: PER_RECEIVER credits per
 * receiver shared by its senders, at least one per sender. The receiver gives a credit
 * back as soon as the send request no longer holds a record (matched on arrival, or its
 * unexpected record matched later): a special packet. Without a credit the send waits in
 * a FIFO per receiver (MPI's order among send requests) and leaves when one returns. The
 * one-sided send needs no credit: the receive's request is its credit.
 *
 * No correct program may deadlock for it. A receive that is matched at the sender
 * (matching on both sides) pulls its send out of the queue: the receive request meets
 * the queued send's entry in the request-issued queue, and the send goes one-sided. A
 * receive that waits in the receiver's posted list (matching on the receiver only,
 * wildcard source, held back behind one) cannot pull: when every credit of a sender it
 * may take a message from is held by unexpected records, the receiver grants that sender
 * one more (*minted*); the credits given back while any minted one is out are retired
 * instead. The records beyond the credits are then those of messages the program sent
 * ahead of the one it receives first, which receiver-side matching has to keep.
 *
 * Buffered: MPI_Isend queues the send and returns; once the send has a credit its
 * temporary buffer is asked for (a request to the receiver, answered by a special
 * packet), and when it heads the queue with the buffer its data is written there and
 * its send request leaves. */
#include <stdlib.h>

#include "mpi_internal.h"
#include "irecv_layout.h"
#include "arrivals_layout.h"

/* The credits of a receiver, shared by its senders (itself included), at least one each:
 * PER_RECEIVER records of about 80 bytes up to 64 PEs, one per sender beyond. */
enum { PER_RECEIVER = 64 };
/* Credits for receive requests (mpi_internal.h): a sender's records of them (16 bytes)
 * may take 1/32 of its local memory. As staged records (3 packets of 8 bytes) they then
 * fill at most 3/64 of memory in its input buffer, within the spill area (1/16 of memory
 * on EM-X, 1/8 on EM-4). Each receiver (itself included) starts with 1/RREQ_INITIAL_PART
 * of an even split, at least one; the rest is the sender's pool, granted on demand. */
enum { RREQ_RECORD_MEM_SHARE = 32 * 16, RREQ_INITIAL_PART = 4 };

/* Credits per peer out of a PE's budget, at least one each. */
static uint32_t share_of(uint32_t budget, unsigned pes) { return budget / pes ? budget / pes : 1; }

/* The state of a send in a queue (SQ_*), in its request's fix[0] (a send's fix[] words
 * are free: only a one-sided send into a receive request writes them); fix[1] the send
 * request's data word. */
#define SQ_STATE(s) ((s)->fix[0])
#define SQ_DATA(s) ((s)->fix[1])
#define SEND_OF(l) DL_ENTRY(l, mpi_request, prq) /* (a send's prq link is free) */

send_queue *mpi_send_queues;  /* by receiver PE */
sender_credits *mpi_senders;  /* by sender PE */
uint32_t *mpi_rreq_credits;   /* by sender PE: receive requests we may issue to it */
uint32_t mpi_held_pending;
uint32_t mpi_held_total;
unsigned mpi_idx_credit;
static uint32_t share;        /* credits per sender */
unsigned mpi_idx_tmp_answer; /* (send_miss.S too) */
uint32_t mpi_tmp_answer_word; /* emx_special_addr(mpi_me, mpi_idx_tmp_answer, 0) (send_miss.S) */
uint32_t mpi_rreq_return_at;  /* receiver: twice rreq_initial */
uint32_t mpi_rreq_ask_at;     /* receiver: asks for more at this many (half the initial) */
static uint32_t rreq_initial; /* a receiver's credits for receive requests to start with */
static uint32_t rreq_pool;    /* sender: its credits for receive requests no receiver holds */
static uint32_t rreq_batch;   /* sender: the most one grant gives (the initial share) */
static uint32_t *rreq_wanted; /* sender: by receiver, a request the pool could not answer */
static unsigned rreq_waiting; /* sender: receivers with such a request */
static unsigned rreq_next;    /* sender: where the next round of them starts */
static uint8_t *rreq_asking;  /* receiver: by sender, a request of ours not answered yet */
static unsigned idx_rreq_pool, idx_rreq_grant;

/* ---- Sender ----------------------------------------------------------------------------- */

static void ask_tmp(mpi_request *s);

/* Credits at hand go to the waiting sends in order; a buffered one then asks for its
 * temporary buffer. */
static void assign(send_queue *b) {
  while (b->credits && b->uncredited != &b->q.head) {
    mpi_request *s = SEND_OF(b->uncredited);
    b->uncredited = b->uncredited->next;
    --b->credits;
    SQ_STATE(s) |= SQ_CREDIT;
    if (SQ_STATE(s) & SQ_TMP) ask_tmp(s);
  }
}

static void put_task(uint32_t *a);
/* Its own function: emx_spawn contains a suspension (for a remote PE), which would make
 * the caller save every callee-saved register. */
static void __attribute__((noinline)) spawn_put(mpi_request *s) {
  const uint32_t arg = (uint32_t)(uintptr_t)s;
  emx_spawn(mpi_me, put_task, &arg, 1);
}

/* The sends at the head that hold a credit and their data leave, in order. A buffered
 * one's data is written into the receiver's buffer first, here, so that one message at
 * a time streams to a receiver: on EM-X' and EM-4, where every remote write is a thread
 * there, a long one is paced (its fences block: a computation of its own) and several
 * at once would overflow the receiver's input buffer. */
static void pump(send_queue *b) {
  while (b->q.head.next != &b->q.head && !b->putting) {
    mpi_request *s = SEND_OF(b->q.head.next);
    const uint32_t st = SQ_STATE(s);
    if (!(st & SQ_CREDIT) || (st & SQ_TMP)) return;
    if (st & SQ_PUT) {
      if (transfer_paced(s->capacity)) {
        b->putting = 1;
        spawn_put(s);
        return;
      }
      SQ_DATA(s) = put_covering(s->pe, SQ_DATA(s), s->buf, s->capacity);
    }
    dl_remove(&s->prq);
    SQ_STATE(s) = 0;
    send_request_issue(s, SQ_DATA(s), st & 0xff);
  }
}

static void resume(unsigned pe) {
  send_queue *b = &mpi_send_queues[pe];
  assign(b);
  pump(b);
}

/* Credits at hand mean that every waiting send has one (assign runs whenever credits
 * come), and the new last one cannot make the head leave: no pump here. */
void sendq_add(mpi_request *s, uint32_t data, unsigned bits, int tmp) {
  send_queue *b = &mpi_send_queues[s->pe];
  SQ_STATE(s) = SQ_QUEUED | (tmp ? SQ_TMP : 0) | bits;
  SQ_DATA(s) = data;
  dl_append(&b->q, &s->prq);
  if (!b->credits) {
    if (b->uncredited == &b->q.head) b->uncredited = &s->prq;
    COUNT(C_CREDIT_WAITS);
    return;
  }
  --b->credits;
  SQ_STATE(s) |= SQ_CREDIT;
  if (tmp) ask_tmp(s);
}

/* s leaves its queue without its send request; a credit it held is at hand again. */
static void unlink_send(mpi_request *s) {
  send_queue *b = &mpi_send_queues[s->pe];
  if (b->uncredited == &s->prq) b->uncredited = s->prq.next;
  dl_remove(&s->prq);
  if (SQ_STATE(s) & SQ_CREDIT) ++b->credits;
  SQ_STATE(s) = 0;
}

int sendq_dequeue(mpi_request *s) {
  /* Its current round's entry was taken, and its send request has not left. */
  if (s->isq_count) return SQ_ISSUED;
  if (s->proto == PROTO_BUFFERED && (SQ_STATE(s) & SQ_CREDIT)) {
    SQ_STATE(s) |= SQ_CROSSED; /* its data goes to the receiver's buffer: it keeps going */
    return SQ_ISSUED;
  }
  unlink_send(s);
  return SQ_UNISSUED;
}

void sendq_resume(unsigned pe) { resume(pe); }

int sendq_cancel(mpi_request *s) {
  /* Not a buffered one with its credit (its buffer may be asked for: it goes on), nor one
   * whose earlier round's entry still waits for its removal (which takes the oldest). */
  if (!(SQ_STATE(s) & SQ_QUEUED) || (s->proto == PROTO_BUFFERED && (SQ_STATE(s) & SQ_CREDIT)) ||
      s->isq_count > 1)
    return 0;
  if (s->isq_count) {
    if (!isq_remove(&mpi_isq_send, s)) return 0;
    req_unref(s); /* the entry's (s is not complete: it stays) */
  }
  unlink_send(s);
  resume(s->pe);
  return 1;
}

/* A credit came back (or was granted) from PE pe, a0 = how many. */
static void mpi_h_credit(uint32_t n, uint32_t arg16, uint32_t addr) {
  (void)addr;
  send_queue *b = &mpi_send_queues[arg16 & 0x3ff];
  b->credits += n;
  if (b->q.head.next != &b->q.head) resume(arg16 & 0x3ff);
}
EMX_HANDLER(mpi_h_credit);

/* ---- Sender: the buffered protocol's temporary buffer, without blocking ---------------- */

static void put_task(uint32_t *a) {
  mpi_request *s = (mpi_request *)(uintptr_t)a[0];
  SQ_DATA(s) = put_covering(s->pe, SQ_DATA(s), s->buf, s->capacity);
  SQ_STATE(s) &= ~SQ_PUT;
  mpi_send_queues[s->pe].putting = 0;
  resume(s->pe);
}

/* The answer from PE arg16, a0 = the buffer there (0: no memory: the send goes as sync,
 * which the receiver reads when matched; SREQ_FALLBACK tells it when a receive request
 * met the send meanwhile, under buffered's rule). A receiver answers in the order it was
 * asked, and a send that asked stays in the queue until its answer is in: the answer is
 * the first one's still asking. The usual case is by hand (tmp_answer.S: the data by
 * remote writes, the send request created without the queue's pump); this is the rest. */
void tmp_answer_general(uint32_t tmp, uint32_t arg16);
void tmp_answer_general(uint32_t tmp, uint32_t arg16) {
  const unsigned pe = arg16 & 0x3ff;
  send_queue *b = &mpi_send_queues[pe];
  dl_link *l = b->q.head.next;
  while (l != &b->q.head && !(SQ_STATE(SEND_OF(l)) & SQ_TMP)) l = l->next;
  if (l == &b->q.head) mpi_internal_error("a temporary buffer nobody asked for");
  mpi_request *s = SEND_OF(l);
  if (!tmp) {
    s->proto = PROTO_SYNC;
    SQ_STATE(s) = (SQ_STATE(s) & ~(0xffu | SQ_TMP)) | PROTO_SYNC |
                  (SQ_STATE(s) & SQ_CROSSED ? SREQ_FALLBACK : 0);
  } else {
    SQ_DATA(s) = tmp;
    SQ_STATE(s) = (SQ_STATE(s) & ~SQ_TMP) | SQ_PUT;
  }
  if (l == b->q.head.next) pump(b); /* (else the head still waits) */
}

void mpi_h_tmp_answer(uint32_t tmp, uint32_t arg16, uint32_t addr); /* tmp_answer.S */
_Static_assert(L_SENDQ_PUTTING == __builtin_offsetof(send_queue, putting) &&
                   sizeof(((send_queue *)0)->putting) == 2 &&
                   L_SQ_TMP_CREDIT == (SQ_TMP | SQ_CREDIT) && L_MATCH_BOTH == MATCH_BOTH &&
                   sizeof mpi_matching == 4 && L_REQ_FIX == __builtin_offsetof(mpi_request, fix) &&
                   L_REQ_PE + 2 == __builtin_offsetof(mpi_request, tag) &&
                   L_REQ_CTX == __builtin_offsetof(mpi_request, ctx),
               "tmp_answer.S");
EMX_HANDLER(mpi_h_tmp_answer);

static void ask_tmp(mpi_request *s) {
  const uint32_t w[2] = {s->capacity + 8, emx_special_addr(mpi_me, mpi_idx_tmp_answer, s->pe)};
  proto_request(s->pe, REQ_TMP, 0, w, 2);
}

/* ---- Receiver ----------------------------------------------------------------------------- */

static inline int stalled(unsigned pe) {
  return mpi_senders[pe].held >= share + mpi_senders[pe].minted;
}

static void mint(unsigned pe) {
  ++mpi_senders[pe].minted;
  COUNT(C_CREDITS_MINTED);
  emx_invoke(pe, mpi_idx_credit, mpi_me, 1);
}

/* A credit comes back while minted ones are out: one of them is retired, unless that
 * would leave the sender with all its credits held here and a receive still waiting for
 * it (the credit goes back then). */
void credit_retire(unsigned pe) {
  sender_credits *c = &mpi_senders[pe];
  if (c->held + 1 >= share + c->minted && posted_wants(pe)) emx_invoke(pe, mpi_idx_credit, mpi_me, 1);
  else --c->minted;
}

void credit_filed(unsigned pe) {
  ++mpi_senders[pe].held;
  ++mpi_held_total;
  if (stalled(pe) && posted_wants(pe)) mint(pe);
}

void credit_matched(unsigned pe) {
  --mpi_senders[pe].held;
  --mpi_held_total;
  credit_release(pe);
}

void credit_wanted_held(int pe) {
  if (pe >= 0) {
    if (stalled((unsigned)pe)) mint((unsigned)pe);
    return;
  }
  for (unsigned p = 0, n = emx_pe_count(); p < n; ++p)
    if (mpi_senders[p].held && stalled(p)) mint(p);
}

/* ---- Credits for receive requests granted on demand ------------------------------------ */

/* Sender: as many of the n credits receiver pe asked for as the pool has, at most a
 * batch of the initial share: receivers that ask at once then share the pool round by
 * round (each asks again when its batch is used), not first come takes all. */
static void rreq_grant(unsigned pe, uint32_t n) {
  if (n > rreq_batch) n = rreq_batch;
  const uint32_t g = n < rreq_pool ? n : rreq_pool;
  rreq_pool -= g;
  if (rreq_wanted[pe]) --rreq_waiting;
  rreq_wanted[pe] = 0;
  mpi_counters[C_RREQ_CREDITS_GRANTED] += g;
  emx_invoke(pe, idx_rreq_grant, mpi_me, g);
}

/* Sender: receiver arg16 asks for n credits, or (bit 10) gives n back. A request the
 * pool cannot answer waits until credits come back; those are granted to the waiting
 * receivers in turn, from the one after the last served. */
static void mpi_h_rreq_pool(uint32_t n, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = arg16 & 0x3ff;
  if (!(arg16 & 1u << 10)) {
    if (rreq_pool) rreq_grant(pe, n);
    else rreq_wanted[pe] = n, ++rreq_waiting;
    return;
  }
  rreq_pool += n;
  if (!rreq_waiting) return;
  for (unsigned k = 0, pes = emx_pe_count(); k < pes && rreq_pool; ++k, rreq_next = (rreq_next + 1) % pes)
    if (rreq_wanted[rreq_next]) rreq_grant(rreq_next, rreq_wanted[rreq_next]);
}
EMX_HANDLER(mpi_h_rreq_pool);

/* Receiver: sender arg16 granted n credits (perhaps 0: its pool emptied meanwhile). */
static void mpi_h_rreq_grant(uint32_t n, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = arg16 & 0x3ff;
  rreq_asking[pe] = 0;
  mpi_rreq_credits[pe] += n;
  rreq_credits_came(pe);
}
EMX_HANDLER(mpi_h_rreq_grant);

void rreq_credit_ask(unsigned pe) {
  if (rreq_asking[pe]) return;
  rreq_asking[pe] = 1;
  emx_invoke(pe, idx_rreq_pool, mpi_me, rreq_initial); /* a batch */
}

/* Held receives take the credits first (a receive still held: the credits stay). Idle
 * credits beyond twice the initial share go back to the sender's pool, down to the
 * share, so that no receiver keeps a batch it no longer needs. */
void rreq_credits_came(unsigned pe) {
  if (mpi_held_pending && release_held_for(pe)) return;
  const uint32_t c = mpi_rreq_credits[pe];
  if (c < mpi_rreq_return_at) return;
  mpi_rreq_credits[pe] = rreq_initial;
  emx_invoke(pe, idx_rreq_pool, mpi_me | 1u << 10, c - rreq_initial);
}

void credits_init(void) {
  const unsigned n = emx_pe_count();
  share = share_of(PER_RECEIVER, n);
  mpi_idx_credit = EMX_HANDLER_INDEX(mpi_h_credit);
  mpi_send_queues = malloc(n * sizeof *mpi_send_queues);
  mpi_senders = calloc(n, sizeof *mpi_senders);
  mpi_rreq_credits = malloc(n * sizeof *mpi_rreq_credits);
  rreq_wanted = calloc(n, sizeof *rreq_wanted);
  rreq_asking = calloc(n, sizeof *rreq_asking);
  mpi_idx_tmp_answer = EMX_HANDLER_INDEX(mpi_h_tmp_answer);
  mpi_tmp_answer_word = emx_special_addr(mpi_me, mpi_idx_tmp_answer, 0);
  idx_rreq_pool = EMX_HANDLER_INDEX(mpi_h_rreq_pool);
  idx_rreq_grant = EMX_HANDLER_INDEX(mpi_h_rreq_grant);
  if (!mpi_send_queues || !mpi_senders || !mpi_rreq_credits || !rreq_wanted || !rreq_asking)
    mpi_internal_error("no memory for the credits");
  const uint32_t rreq_budget = emx_mem_bytes() / RREQ_RECORD_MEM_SHARE;
  const uint32_t even = share_of(rreq_budget, n);
  rreq_initial = share_of(even, RREQ_INITIAL_PART);
  rreq_pool = rreq_budget > n * rreq_initial ? rreq_budget - n * rreq_initial : 0;
  mpi_rreq_return_at = even > rreq_initial ? even : rreq_initial + 1;
  mpi_rreq_ask_at = rreq_initial / 2;
  rreq_batch = rreq_initial;
  for (unsigned p = 0; p < n; ++p) {
    dl_init(&mpi_send_queues[p].q);
    mpi_send_queues[p].uncredited = &mpi_send_queues[p].q.head;
    mpi_send_queues[p].credits = (uint16_t)share;
    mpi_send_queues[p].putting = 0;
    mpi_rreq_credits[p] = rreq_initial;
  }
}
