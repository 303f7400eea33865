/* Sender-side matching (docs/mpi.md): the associative memory of receive requests that
 * receivers posted in advance, the one-sided send, and the sender's half of the
 * consistency control when both sides issue requests at once.
 *
 * Handlers here and the calls that start sends run as whole threads, so every
 * match-and-remove and miss-and-insert is atomic, as one SCB was on EM-X. */
#include <stdlib.h>

#include "irecv_layout.h"
#include "mpi_internal.h"
#include "arrivals_layout.h"

/* The layout arrivals.S relies on. */
#define AT(type, field, off) _Static_assert(__builtin_offsetof(type, field) == (off), #field)
AT(mpi_request, fix, L_REQ_FIX);
AT(mpi_request, flags, L_REQ_FLAGS);
AT(mpi_request, refs, L_REQ_REFS);
AT(mpi_request, isq_count, L_REQ_ISQ_COUNT);
AT(mpi_request, proto, L_REQ_PROTO);
AT(mpi_request, buf, L_REQ_BUF);
AT(mpi_request, capacity, L_REQ_CAPACITY);
AT(mpi_request, handle, L_REQ_HANDLE);
AT(mpi_request, isq_own, L_REQ_ISQ_OWN);
AT(mpi_request, isq_own.req, L_REQ_ISQ_REQ);
AT(mpi_request, isq_own.key, L_REQ_ISQ_KEY);
AT(mpi_request, isq_own.link.seq, L_REQ_ISQ_SEQ);
AT(mpi_request, isq_newest, L_REQ_ISQ_NEWEST);
_Static_assert(L_COUNT_REMOVALS == 4 * C_REMOVALS && L_KEY_PT == __builtin_offsetof(kq_key, pt) &&
                   sizeof(((kq_key *)0)->pt) == 4,
               "arrivals.S: mpi_h_remove's layout");
AT(mpi_request, isq_newest, L_REQ_ISQ_NEWEST);
AT(mpi_request, pe, L_REQ_PE);
AT(mpi_request, tag, L_REQ_PE + 2);
AT(mpi_request, ctx, L_REQ_CTX);
AT(isq_entry, req, L_ISQ_REQ);
AT(kq_key, chain, L_KEY_CHAIN);
AT(kq_key, pt, L_KEY_PT);
AT(kq_key, ctx, L_KEY_CTX);
AT(kq_key, head, L_KEY_HEAD);
AT(kq_key, tail, L_KEY_TAIL);
AT(kq_table, seq, L_KQ_SEQ);
AT(kq_table, any_keys, L_KQ_ANY_KEYS);
AT(kq_table, idle, L_KQ_IDLE);
AT(recv_record, rreq, L_RR_RREQ);
AT(recv_record, buf, L_RR_BUF);
AT(recv_record, capacity, L_RR_CAPACITY);
AT(recv_record, link, 0);
AT(send_queue, q.head.next, L_DL_NEXT);
AT(send_queue, credits, L_SENDQ_CREDITS);
AT(mpi_options, done_sized, L_OPT_DONE_SIZED);
AT(mpi_options, sreq_inline, L_OPT_SREQ_INLINE);
AT(mpi_request, prq, L_REQ_PRQ);
AT(send_queue, q.head.prev, 0);
#undef AT
_Static_assert(sizeof(send_queue) == 1u << L_SENDQ_SHIFT && sizeof(((send_queue *)0)->credits) == 2 &&
               sizeof(((mpi_request *)0)->flags) == 2 && sizeof(((mpi_request *)0)->refs) == 2 &&
               sizeof(((mpi_request *)0)->isq_count) == 2 && sizeof(((mpi_request *)0)->proto) == 1,
               "arrivals.S: field sizes");
_Static_assert(L_SQ_QUEUED == SQ_QUEUED && L_SQ_CREDIT == SQ_CREDIT && L_SQ_CROSSED == SQ_CROSSED && L_SHORT_BYTES == 4 * SHORT_WORDS &&
               L_KQ_IDLE_MAX == KQ_IDLE_MAX && L_W_SRCTAG == REQ_W_SRCTAG && L_W_BYTES == REQ_W_BYTES && L_DONE_SET == DONE_SET &&
               L_DONE_SIZED == DONE_SIZED && L_RF_ACTIVE == RF_ACTIVE &&
               L_RF_USER_FREED == RF_USER_FREED && L_RF_COMPLETE == RF_COMPLETE &&
               L_RF_ACTIVE_COMPLETE == (RF_ACTIVE | RF_COMPLETE) &&
               L_RF_ARMED_READER == (RF_ARMED | RF_READER) && L_REQ_GEN_MASK == REQ_GEN_MASK &&
               L_COUNT_ONE_SIDED == 4 * C_ONE_SIDED && L_COUNT_SEND_REQUESTS == 4 * C_SEND_REQUESTS &&
               L_ISQ_ONE == 0x00010001 && L_SQ_TMP_STATE == (SQ_QUEUED | SQ_CREDIT | SQ_TMP | PROTO_BUFFERED) && L_COUNT_CONCURRENT == 4 * C_CONCURRENT &&
               L_SREQ_PROTO == SREQ_PROTO && L_SREQ_FALLBACK == SREQ_FALLBACK &&
               PROTO_BUFFERED == 0 && EMX_PKT_syswr == 4 && EMX_PKT_iwrite == 6 &&
               EMX_GADDR_PE_SHIFT == 22,
               "arrivals.S: constants");

kq_table mpi_assoc;    /* receive requests filed here, by (receiver, tag, context) */
kq_table mpi_isq_send; /* send requests this PE issued, not yet resolved */
mpi_pool mpi_recv_record_pool = {.cell_bytes = sizeof(recv_record)};

static inline uint32_t tagctx(const mpi_request *r) { return r->tag | (uint32_t)r->ctx << 16; }

/* The request-issued queue entry of `local_request` on PE pe is resolved (a special
 * packet: the entry is named by the request's address there). */
void send_isq_removal(unsigned pe, uint32_t local_request, int recv_side) {
  proto_removal(pe, local_request, recv_side);
}
#define send_isq_removal proto_removal

/* The data by remote write, then the status (source and tag, size), then completion; s
 * completes too. */
static inline void one_sided(mpi_request *s, unsigned pe, uint32_t buf, uint32_t cap,
                             emx_gaddr_t rreq) {
  const uint32_t srctag = mpi_me | (uint32_t)s->tag << 16;
  if (!put_short(pe, buf, cap, rreq, s->buf, s->capacity, srctag))
    put_message(pe, buf, cap, rreq, s->buf, s->capacity, srctag);
  req_complete(s);
  COUNT(C_ONE_SIDED);
}

/* A one-sided send decided in a handler, when the data must be paced (blocking): in a
 * computation of its own on this PE. The match is made already, so it may happen later. */
static void one_sided_task(uint32_t *a) {
  one_sided((mpi_request *)(uintptr_t)a[0], a[1], a[2], a[3], a[4]);
}
/* Its own function: emx_spawn contains a suspension (for a remote PE), which would make
 * the handler save every callee-saved register. */
static void __attribute__((noinline)) spawn_one_sided(mpi_request *s, unsigned pe, uint32_t buf,
                                                      uint32_t cap, emx_gaddr_t rreq) {
  const uint32_t args[5] = {(uint32_t)(uintptr_t)s, pe, buf, cap, rreq};
  emx_spawn(mpi_me, one_sided_task, args, 5);
}
static void one_sided_from_handler(mpi_request *s, unsigned pe, uint32_t buf, uint32_t cap,
                                   emx_gaddr_t rreq) {
  if (transfer_paced(s->capacity)) spawn_one_sided(s, pe, buf, cap, rreq);
  else one_sided(s, pe, buf, cap, rreq);
}

/* ---- Buffered protocol: a temporary buffer on the receiver ---------------------------- */

/* words: bytes, then the requester's answer handler (a special packet's address word:
 * credits.c); the answer is the buffer (0: none). */
void tmp_alloc_arrived(unsigned pe, unsigned bits, const uint32_t *w) {
  (void)pe, (void)bits;
  void *buffer = mpi_tmp_alloc_buffered(w[0]);
  if (buffer) ++mpi_inbound; /* until the send request that fills it (sreq_core) */
  emx_send(EMX_PKT_special, w[1], (uint32_t)(uintptr_t)buffer);
}
/* The same as a staged record (-mpi-option=staged-records). */
void mpi_h_tmp_alloc(uint32_t cont, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const uint32_t w[2] = {record_words(record_src(arg16))[0], cont};
  tmp_alloc_arrived(record_src(arg16), 0, w);
}
EMX_HANDLER(mpi_h_tmp_alloc);

/* ---- Starting a send ------------------------------------------------------------------ */

/* The send request's four words, by creation (a tail call: proto_create4) or as a staged
 * record. */
static inline __attribute__((always_inline)) void sreq_issue(mpi_request *s, unsigned bits,
                                                             uint32_t data) {
  if (__builtin_expect(!mpi_opt.staged_records, 1)) {
    (void)proto_create4(s->pe, REQ_SREQ, bits, req_gaddr(s), data, s->capacity, tagctx(s));
    return;
  }
  const uint32_t w[4] = {req_gaddr(s), data, s->capacity, tagctx(s)};
  proto_request(s->pe, REQ_SREQ, bits, w, 4);
}

/* The send request leaves (with a credit for its receiver: credits.c). */
static inline __attribute__((always_inline)) void issue(mpi_request *s, uint32_t data,
                                                        unsigned bits) {
  COUNT(C_SEND_REQUESTS);
  if (__builtin_expect(s->proto == PROTO_BUFFERED, 0)) {
    sreq_issue(s, bits, data);
    /* The data has left the user's buffer. With matching on the receiver only the
     * receiver completes the send when the request is in (sreq_core), as when the
     * issuing computation itself waited for the creation: woken now, it would hold up
     * the creation's answer here. */
    if (mpi_matching == MATCH_BOTH) req_complete(s);
    return;
  }
  sreq_issue(s, bits, data);
}
void send_request_issue(mpi_request *s, uint32_t data, unsigned bits) { issue(s, data, bits); }

/* Buffered: the data go first (into a temporary buffer there, or in the request). */
static void __attribute__((noinline)) send_request_buffered(mpi_request *s) {
  uint32_t data = (uint32_t)(uintptr_t)s->buf;
  unsigned bits = s->proto;
  if (s->capacity > 4 || !mpi_opt.sreq_inline) {
    /* The temporary buffer is asked for once the send has a credit, without waiting;
     * with the answer, the data is written and the send request leaves, in queue order
     * (credits.c). The entry in the request-issued queue is already there, so a receive
     * request arriving meanwhile is handled by the consistency rule. */
    sendq_add(s, data, bits, 1);
    return;
  }
  /* The whole message fits the send request's buffer word: the receiver's handler copies
   * it out at once, no temporary buffer to ask for. */
  __builtin_memcpy(&data, s->buf, s->capacity);
  bits |= SREQ_INLINE;
  if (sendq_credit_now(s)) issue(s, data, bits);
  else sendq_add(s, data, bits, 0);
}

static inline __attribute__((always_inline)) void send_request(mpi_request *s) {
  if (__builtin_expect(s->proto == PROTO_BUFFERED && s->capacity, 0)) { /* (0 B: no copy) */
    send_request_buffered(s);
    return;
  }
  const uint32_t data = (uint32_t)(uintptr_t)s->buf; /* get, sync: the data stay */
  if (__builtin_expect(sendq_credit_now(s), 1)) issue(s, data, s->proto);
  else sendq_add(s, data, s->proto, 0); /* behind others to this receiver, or for a credit */
}

uintptr_t send_start_ok(mpi_request *s) {
  send_start(s);
  return isend_settle(s);
}

void send_start(mpi_request *s) {
  if (__builtin_expect(s->flags & RF_NULL_PEER, 0)) {
    req_complete(s);
    return;
  }
  const uint32_t pt = kq_pt(s->pe, s->tag);
  if (mpi_matching == MATCH_BOTH) {
    kq_key *key;
    kq_link *hit = kq_match_fast(&mpi_assoc, pt, s->ctx, &key);
    if (hit) {
      kq_pop(&mpi_assoc, key);
      recv_record *rr = (recv_record *)hit;
      one_sided(s, s->pe, rr->buf, rr->capacity, rr->rreq);
      /* The receiver filed its receive request as issued: no send request will come to
       * drop it, so tell it to forget it. */
      send_isq_removal(s->pe, (uint32_t)(uintptr_t)emx_gaddr_local(rr->rreq), 1);
      pool_put(&mpi_recv_record_pool, rr);
      return;
    }
    /* Miss-and-insert: in the same thread as the lookup. */
    isq_add(&mpi_isq_send, s);
  }
  send_request(s);
}

/* MPI_Isend's short miss with matching on both sides (start_send, p2p.c): send_miss.S. */

/* ---- A send request arrives, matching on both sides ----------------------------------- */

/* sreq_both (a send request with matching on both sides, dropped when our receive request
 * for it is issued) is arrivals.S, with sreq_arrived (receiver_match.c) for the rest. */

/* ---- A receive request arrives ---------------------------------------------------------- */

/* A receive request arrived (rreq on PE pe, its buffer, capacity, tag and context; also
 * from arrivals.S). */
void __attribute__((noinline)) rreq_arrived(unsigned pe, emx_gaddr_t rreq, uint32_t buf,
                                            uint32_t cap, uint32_t tag, uint32_t ctx) {
  const uint32_t pt = kq_pt(pe, tag);
  kq_key *key;
  kq_link *issued = kq_match_fast(&mpi_isq_send, pt, ctx, &key);
  if (issued) {
    /* Both sides issued requests for the same message. Sync and get: drop our send
     * request (the receiver will), send by remote write, which is faster. Buffered: the
     * data is on its way to the receiver already; drop this receive request. */
    mpi_request *s = isq_take(&mpi_isq_send, key);
    COUNT(C_CONCURRENT);
    if (sendq_crossed(s) == SQ_UNISSUED) {
      /* Our send request never left (it waited for a credit): a one-sided send as on a
       * hit, and the receiver forgets its request, before any later send request. */
      one_sided_from_handler(s, pe, buf, cap, rreq);
      send_isq_removal(pe, (uint32_t)(uintptr_t)emx_gaddr_local(rreq), 1);
      sendq_resume(pe);
    } else if (s->proto != PROTO_BUFFERED) {
      one_sided_from_handler(s, pe, buf, cap, rreq);
      credit_reclaim(pe); /* the receiver drops our send request: its credit is back */
    }
    req_unref(s);
    return;
  }
  recv_record *rr = pool_get(&mpi_recv_record_pool);
  rr->rreq = rreq;
  rr->buf = buf;
  rr->capacity = cap;
  kq_push_inline(&mpi_assoc, pt, ctx, &rr->link);
}

/* A receive request met our send request s, issued for it (the naive ping-pong's every
 * message, both sides): the usual case of rreq_arrived's rule for get and sync, without
 * a call -- s's only entry heads its key and stays the last call's business: a short,
 * aligned message to another PE on EM-X, by remote writes from here; s completes, its
 * send request's credit is back (the receiver drops it). Else rreq_arrived decides. Its
 * own function, tail-called: inline, it made the filing thread save eight registers. */
void __attribute__((noinline)) rreq_arrived(unsigned pe, emx_gaddr_t rreq, uint32_t buf,
                                            uint32_t cap, uint32_t tag, uint32_t ctx);
static void __attribute__((noinline)) rreq_crossed(kq_key *issued, unsigned pe, emx_gaddr_t rreq,
                                                   uint32_t buf, uint32_t cap, uint32_t tag,
                                                   uint32_t ctx) {
  isq_entry *e = (isq_entry *)issued->head;
  mpi_request *s = e->req;
  const uint32_t n = s->capacity, src = (uint32_t)(uintptr_t)s->buf;
  send_queue *b = &mpi_send_queues[pe];
  if (__builtin_expect(tag == TAG_ANY16 || mpi_isq_send.any_keys || e != &s->isq_own ||
                           s->isq_count != 1 || (s->fix[0] & SQ_QUEUED) ||
                           !mpi_direct || n > cap ||
                           n > 4 * SHORT_WORDS || ((buf | src | n) & 3) || pe == mpi_me ||
                           b->q.head.next != &b->q.head ||
                           (!e->link.next && mpi_isq_send.idle >= KQ_IDLE_MAX),
                       0)) {
    rreq_arrived(pe, rreq, buf, cap, tag, ctx);
    return;
  }
  issued->head = e->link.next; /* isq_take, a key known not to sweep */
  mpi_isq_send.idle += issued->head == 0;
  s->isq_count = 0;
  e->req = 0;
  COUNT(C_CONCURRENT);
  (void)put_short(pe, buf, cap, rreq, s->buf, n, mpi_me | tag << 16); /* one_sided */
  req_complete(s);
  COUNT(C_ONE_SIDED);
  ++b->credits; /* credit_reclaim: nothing waits for it */
  if (--s->refs == 0 && (s->flags & RF_USER_FREED)) req_reclaim(s); /* req_unref */
}

/* Files a receive request that arrived. The usual case, under a key that exists, with a
 * record at hand and no send request of ours to meet, without a call: a thread that
 * calls saves and restores every register it uses. */
static inline __attribute__((always_inline)) void rreq_file(unsigned pe, emx_gaddr_t rreq,
                                                            uint32_t buf, uint32_t cap,
                                                            uint32_t tag, uint32_t ctx) {
  const uint32_t pt = kq_pt(pe, tag);
  recv_record *rr = mpi_recv_record_pool.free;
  kq_key *issued = kq_find(&mpi_isq_send, pt, ctx), *key = kq_find(&mpi_assoc, pt, ctx);
  if (issued && issued->head && ((isq_entry *)issued->head)->req->proto != PROTO_BUFFERED) {
    rreq_crossed(issued, pe, rreq, buf, cap, tag, ctx);
    return;
  }
  if (__builtin_expect(!rr || tag == TAG_ANY16 || mpi_isq_send.any_keys || !key ||
                           (issued && issued->head),
                       0)) {
    rreq_arrived(pe, rreq, buf, cap, tag, ctx);
    return;
  }
  (void)pool_get(&mpi_recv_record_pool); /* rr */
  rr->rreq = rreq;
  rr->buf = buf;
  rr->capacity = cap;
  kq_append(&mpi_assoc, key, &rr->link);
}

/* A receive request in three words (bits RREQ_SHORT, mpi_internal.h) or four. */
static inline __attribute__((always_inline)) void rreq_core(unsigned pe, unsigned bits,
                                                            const uint32_t *w) {
  if (bits & RREQ_SHORT)
    rreq_file(pe, (emx_gaddr_t)pe << EMX_GADDR_PE_SHIFT | (w[0] & EMX_GADDR_LOCAL_MASK), w[1],
              w[2] & 0xffff, w[2] >> 16, w[0] >> EMX_GADDR_PE_SHIFT);
  else
    rreq_file(pe, w[0], w[1], w[2], w[3] & 0xffff, w[3] >> 16);
}

/* arrivals.S's crossed case, after its thread's work: the idle keys of t swept (t not 0)
 * and the sends waiting for credits to pe go on (resume not 0: credit_reclaim's). */
void rreq_crossed_after(kq_table *t, unsigned pe, uint32_t resume);
void rreq_crossed_after(kq_table *t, unsigned pe, uint32_t resume) {
  if (t) kq_sweep(t);
  if (resume) sendq_resume(pe);
}

/* Invoked in a frame (creation.c): arrivals.S's rreq_arrived_words does the usual cases by
 * hand and everything else here. */
void rreq_words_general(unsigned pe, unsigned bits, const uint32_t *w);
void rreq_words_general(unsigned pe, unsigned bits, const uint32_t *w) { rreq_core(pe, bits, w); }
void mpi_h_rreq(uint32_t last, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = record_src(arg16), bits = record_bits(arg16);
  const uint32_t *st = record_words(pe);
  const uint32_t w[4] = {st[0], st[1], bits & RREQ_SHORT ? last : st[2], last};
  rreq_core(pe, bits, w);
}
EMX_HANDLER(mpi_h_rreq);

/* A receive request in two words, the 2-input thread of the frame kept for its source
 * (mpi_internal.h): the frame names the source, the slot the context. */
emx_static_frame_t *mpi_rreq_frames;
int mpi_rreq_pairs;
int mpi_rreq_by_creation; /* neither pairs nor staged records: irecv.S's test */

static void mpi_t_rreq(uint32_t left, uint32_t right, uint32_t cont) {
  const emx_static_frame_t *f = emx_frame();
  const unsigned pe = (unsigned)(f - mpi_rreq_frames);
  const uint32_t tag = right >> EMX_GADDR_PE_SHIFT;
  rreq_file(pe, (emx_gaddr_t)pe << EMX_GADDR_PE_SHIFT | (left & EMX_GADDR_LOCAL_MASK),
            (right & EMX_GADDR_LOCAL_MASK) << 2, (left >> EMX_GADDR_PE_SHIFT) * 4,
            tag == RREQ_PAIR_ANY ? TAG_ANY16 : tag,
            (cont & EMX_GADDR_LOCAL_MASK) - ((uint32_t)(uintptr_t)f >> 2) - 1);
}

/* The frames, one per source PE, in one block aligned to the frame size. Every PE has
 * run the same code up to MPI_Init, so the block is normally at the same address on
 * every PE; rreq_pairs_agree checks that, and the two-word form is used only then. */
void rreq_pairs_init(void) {
  static const emx_thread_fn tmpl[32] = {[0 ... 31] = mpi_t_rreq};
  const unsigned fb = sizeof(emx_static_frame_t), n = emx_pe_count();
  /* Only for -mpi-option=rreq-pairs: the default library sends no pairs, and the block
   * (128 bytes per PE of the machine: 128 KiB on each of 1024 PEs) would cost simulated
   * and host memory for nothing. */
  if (!mpi_opt.rreq_pairs) return;
  /* The default frame size only, and at most 1/32 of local memory for the block (1024
   * PEs of EM-X: 128 KiB of 4 MiB). */
  if (emx_frame_words() * 4 != fb || n * fb > emx_mem_bytes() / 32) return;
  char *raw = malloc(n * fb + fb - 8); /* malloc aligns to 8 */
  if (!raw) return;
  mpi_rreq_frames = (emx_static_frame_t *)(((uintptr_t)raw + fb - 1) & ~(uintptr_t)(fb - 1));
  for (unsigned k = 0; k < n; ++k) mpi_rreq_frames[k].tmpl = tmpl;
}

/* Collective (all PEs, in MPI_Init), and a barrier: no protocol message reaches a PE
 * before its tables exist. */
void rreq_pairs_agree(void) {
  const int32_t base = (int32_t)(uintptr_t)mpi_rreq_frames;
  /* (Two scalar reductions: the vector one would link a large buffer in.) */
  const int32_t high = emx_max_i32(base), low = emx_min_i32(base);
  mpi_rreq_pairs = mpi_opt.rreq_pairs && base != 0 && high == base && low == base;
  mpi_rreq_by_creation = !mpi_rreq_pairs && !mpi_opt.staged_records;
}

/* data = the request's address here; bits: 1 = a receive request, 0 = a send request.
 * After every one-sided send the receiver runs this, often just before the next message
 * arrives: its usual case (the entry alone heads its key, nothing more to do for the
 * credit) is arrivals.S's mpi_h_remove, by hand; this the rest. */
void mpi_h_remove(uint32_t request, uint32_t arg16, uint32_t addr);
void remove_general(uint32_t request, uint32_t arg16);
void remove_general(uint32_t request, uint32_t arg16) {
  mpi_request *r = (mpi_request *)(uintptr_t)request;
  kq_table *t = record_bits(arg16) ? &mpi_isq_recv : &mpi_isq_send;
  if (!req_live(r) || !isq_remove_fast(t, r))
    mpi_internal_error("removal of a request that is not in the request-issued queue");
  COUNT(C_REMOVALS);
  if (record_bits(arg16)) rreq_credit_back(r->pe); /* the sender's record is gone */
  if (--r->refs == 0 && (r->flags & RF_USER_FREED)) req_reclaim(r);
  emx_end(); /* never blocks: no stack to give back */
}
EMX_HANDLER(mpi_h_remove);
