/* Receiver-side matching (docs/mpi.md): posted receives, unexpected send requests, the
 * three protocols (buffered, get, sync), the receiver's half of the consistency control,
 * and the rule that holds receive requests back behind a wildcard-source receive. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "irecv_layout.h"
#include "sreq_layout.h"

/* A send request that arrived here: unexpected (in `mpi_unexpected`), or being delivered. */
typedef struct {
  dl_link link;
  uint16_t pe, tag, ctx;
  uint8_t proto, state;
  uint8_t direct;      /* fetched straight into the receive buffer */
  uint8_t in_list;
  uint8_t inline_data; /* buffered, up to 4 bytes: `data` is the data itself */
  emx_gaddr_t sreq;    /* the send request on the sender's PE */
  uint32_t data;       /* the sender's buffer (get, sync) or the temporary one here */
  uint32_t bytes;
  char *tmp;           /* temporary buffer (malloc'd) holding the data at tmp + (data & 3) */
  uint32_t pos;        /* chunked fetch: bytes delivered so far */
  mpi_request *r;      /* the receive it goes to, once matched */
  fetch f;
} send_record;
enum { SR_WAITING, SR_FETCHING, SR_FETCHED };

kq_table mpi_isq_recv;    /* receive requests this PE issued, not yet resolved */
dl_list mpi_posted;         /* unmatched receives, in posting order (sreq.S reads it) */
dl_list mpi_unexpected;     /* unmatched send requests, in arrival order */
unsigned mpi_wild_pending;  /* unmatched MPI_ANY_SOURCE receives */
static unsigned sreq_fast;  /* matching on the receiver only: sreq_arrived's usual case */
static mpi_pool record_pool = {.cell_bytes = sizeof(send_record)};
/* A matched message read through a chunk buffer (below): CHUNK_BYTES, or the smaller one
 * reserved at MPI_Init (it costs every PE its bytes for good: on EM-4 the heap is small),
 * busy or not, with the messages waiting for it. */
enum { CHUNK_BYTES = 1024, RESERVED_CHUNK_BYTES = 256 };
static char *reserved_chunk;
static int reserved_busy;
static dl_list reserved_waiting;

#define RECV_OF_PRQ(l) DL_ENTRY(l, mpi_request, prq)

/* sreq.S's offsets and constants (sreq_layout.h, irecv_layout.h), checked here. */
_Static_assert(S_REQ_FLAGS == __builtin_offsetof(mpi_request, flags), "S_REQ_FLAGS");
_Static_assert(S_REQ_PRQ == __builtin_offsetof(mpi_request, prq), "S_REQ_PRQ");
_Static_assert(__builtin_offsetof(dl_link, prev) == 0 && __builtin_offsetof(dl_link, next) == 4,
               "dl_link");
_Static_assert(L_DL_NEXT == __builtin_offsetof(dl_list, head.next), "L_DL_NEXT");
_Static_assert(L_REQ_PE + 2 == __builtin_offsetof(mpi_request, tag), "pe, tag: one word");
_Static_assert(S_RF_IN_PRQ == RF_IN_PRQ && S_RF_WILD_HELD == (RF_WILD | RF_HELD) &&
                   S_RF_READING == RF_READING && S_RF_COMPLETE == RF_COMPLETE &&
                   S_RF_ARMED_READER == (RF_ARMED | RF_READER),
               "request flags");
_Static_assert(S_SREQ_INLINE == SREQ_INLINE && S_SHORT_BYTES == 4 * SHORT_WORDS &&
                   S_TMP_SMALL_BYTES == TMP_SMALL_BYTES,
               "buffered");
_Static_assert(S_SREQ_PROTO == SREQ_PROTO && PROTO_BUFFERED == 0,
               "send request bits");
_Static_assert(sizeof(sender_credits) == 1 << S_SENDER_SHIFT &&
                   S_SENDER_MINTED == __builtin_offsetof(sender_credits, minted),
               "sender_credits");
_Static_assert(S_BLOCK_BYTES == 4 * FETCH_BLOCK_WORDS, "S_BLOCK_BYTES");
_Static_assert(S_COUNT_FETCHED == 4 * (unsigned)C_FETCHED_WORDS, "S_COUNT_FETCHED");
_Static_assert((uint32_t)S_TAG_ANY_HI << 12 == (uint32_t)TAG_ANY16 << 16, "S_TAG_ANY_HI");
_Static_assert(REQ_W_DONE == 0 && L_REQ_DONE == 0 && DONE_SET == 1 && REQ_ARGS_WORD == 4 &&
                   EMX_GADDR_PE_SHIFT == 22 && EMX_PKT_special == 3 && EMX_PKT_iwrite == 6 &&
                   EMX_PKT_blockread == 11 && EMX_PKT_blockreadn == 12 && EMX_PKT_sysrd == 5 &&
                   EMX_PKT_sysrdw == 14,
               "sreq.S's packets");
_Static_assert(S_READ_SLOT >= REQ_ARGS_WORD + 4 && S_READ_DST == 4 * S_READ_SLOT &&
                   S_READ_DONE == S_READ_DST + 4 && S_READ_SLOT > REQ_KINDS,
               "sreq.S's read slot: after the request's words and the kinds' slots");

EMX_HANDLER_DECLARE(mpi_h_credit);
uint32_t mpi_credit_word; /* emx_special_addr(0, mpi_h_credit's index, mpi_me) (sreq.S) */

void matching_init(void) {
  dl_init(&mpi_posted);
  dl_init(&mpi_unexpected);
  dl_init(&reserved_waiting);
  sreq_fast = mpi_matching != MATCH_BOTH;
  mpi_credit_word = emx_special_addr(0, EMX_HANDLER_INDEX(mpi_h_credit), mpi_me);
  /* The send request's thread; sreq.S's usual cases need EM-X's remote read and a
   * frame with room for the read's slot words. */
  proto_sreq_thread(!sreq_fast ? mpi_sreq_thread_both
                    : mpi_direct_reads && emx_frame_words() > S_READ_SLOT + 1
                        ? mpi_sreq_thread
                        : mpi_sreq_thread_general);
  reserved_chunk = malloc(RESERVED_CHUNK_BYTES + 8);
  if (!reserved_chunk) mpi_internal_error("no memory for the reserved chunk buffer");
}

void recv_finish(mpi_request *r, unsigned src_pe, unsigned tag, uint32_t bytes) {
  r->srctag = src_pe | tag << 16;
  r->bytes = bytes;
  req_complete(r);
}

static inline uint32_t min32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ---- Delivering a send request's data to a receive ---------------------------------- */

static inline __attribute__((always_inline)) send_record *record_new(unsigned pe, uint16_t tag, uint16_t ctx, unsigned bits,
                               const uint32_t *w) {
  send_record *e = pool_get(&record_pool);
  e->pe = (uint16_t)pe;
  e->tag = tag;
  e->ctx = ctx;
  e->state = SR_WAITING;
  e->direct = e->in_list = 0;
  e->inline_data = (bits & SREQ_INLINE) != 0;
  e->proto = (uint8_t)(bits & SREQ_PROTO);
  e->sreq = w[0];
  e->data = w[1];
  e->bytes = w[2];
  e->tmp = 0;
  e->r = 0;
  return e;
}

static void record_free(send_record *e) { pool_put(&record_pool, e); }

/* The temporary buffer holds the data: copy it into the receive and finish both. */
static void copy_out(send_record *e) {
  mpi_request *r = e->r;
  memcpy(r->buf, e->tmp + (e->data & 3), min32(e->bytes, r->capacity));
  if (e->proto == PROTO_BUFFERED) mpi_tmp_free_buffered(e->tmp, e->bytes + 8);
  else free(e->tmp);
  recv_finish(r, e->pe, e->tag, e->bytes);
  record_free(e);
}

/* The last word of a remote read is in. The send completes once its data is read (get:
 * possibly before any receive is posted; sync: only after the match). */
static void fetched(void *arg) {
  send_record *e = arg;
  emx_iwrite(e->sreq + REQ_W_DONE, 1);
  if (e->direct) {
    recv_finish(e->r, e->pe, e->tag, e->bytes);
    record_free(e);
    return;
  }
  e->state = SR_FETCHED;
  if (e->r) copy_out(e);
}

/* Without memory for a temporary buffer of the whole message, a matched message whose
 * alignment differs from its receive buffer's is read through a small one, a chunk at a
 * time (a correct program must not fail for the library's lack of memory). Without
 * memory even for that, through the chunk buffer reserved at MPI_Init: one message at a
 * time, the others waiting for it in order (linked through their records' list link: a
 * matched record is in no list). */
static void chunk_next(send_record *e);
static inline uint32_t chunk_bytes(const send_record *e) {
  return e->tmp == reserved_chunk ? RESERVED_CHUNK_BYTES : CHUNK_BYTES;
}
/* The chunk buffer of e is done with: freed, or the reserved one to the next waiting. */
static void chunk_buffer_done(send_record *e) {
  if (e->tmp != reserved_chunk) {
    free(e->tmp);
    return;
  }
  if (reserved_waiting.head.next == &reserved_waiting.head) {
    reserved_busy = 0;
    return;
  }
  send_record *next = DL_ENTRY(reserved_waiting.head.next, send_record, link);
  dl_remove(&next->link);
  next->tmp = reserved_chunk;
  chunk_next(next);
}
static void chunk_reserved(send_record *e) {
  if (reserved_busy) {
    dl_append(&reserved_waiting, &e->link);
    return;
  }
  reserved_busy = 1;
  e->tmp = reserved_chunk;
  chunk_next(e);
}
static void chunk_fetched(void *arg) {
  send_record *e = arg;
  mpi_request *r = e->r;
  const uint32_t all = min32(e->bytes, r->capacity), len = min32(all - e->pos, chunk_bytes(e));
  memcpy((char *)r->buf + e->pos, e->tmp + ((e->data + e->pos) & 3), len);
  e->pos += len;
  if (e->pos < all) {
    chunk_next(e);
    return;
  }
  chunk_buffer_done(e);
  emx_iwrite(e->sreq + REQ_W_DONE, 1);
  recv_finish(r, e->pe, e->tag, e->bytes);
  record_free(e);
}
static void chunk_next(send_record *e) {
  const uint32_t all = min32(e->bytes, e->r->capacity), len = min32(all - e->pos, chunk_bytes(e));
  const uint32_t from = e->data + e->pos, off = from & 3;
  fetch_start(&e->f, (uint32_t *)e->tmp, emx_gaddr(e->pe, (void *)(uintptr_t)(from - off)),
              (off + len + 3) / 4, chunk_fetched, e);
}

/* Reads the sender's buffer, zero copy when buffer, size and source are word aligned,
 * else the whole words around it into a temporary buffer. 0 if out of memory. */
static inline __attribute__((always_inline)) int fetch_from_sender(send_record *e,
                                                                 uint32_t bytes, uint32_t *dst) {
  e->state = SR_FETCHING;
  if (dst && ((e->data | (uint32_t)(uintptr_t)dst | bytes) & 3) == 0) {
    e->direct = 1;
    fetch_start(&e->f, dst, emx_gaddr(e->pe, (void *)(uintptr_t)e->data), bytes / 4, fetched, e);
    return 1;
  }
  const uint32_t off = e->data & 3, words = (off + bytes + 3) / 4;
  e->tmp = mpi_tmp_alloc(4 * words + 4); /* (the reserve stays for stacks, frames, cells) */
  if (!e->tmp && dst) { /* matched: it must be read (0 bytes too: it completes) */
    e->pos = 0;
    if ((e->tmp = malloc(CHUNK_BYTES + 8))) chunk_next(e);
    else chunk_reserved(e);
    return 1;
  }
  if (!e->tmp) {
    e->state = SR_WAITING;
    return 0;
  }
  fetch_start(&e->f, (uint32_t *)e->tmp, emx_gaddr(e->pe, (void *)(uintptr_t)(e->data - off)),
              words, fetched, e);
  return 1;
}

/* e (out of any list) matched posted receive r. Inline: the usual case, a fetch, is one
 * function from the send request's thread on. */
static inline __attribute__((always_inline)) void deliver(mpi_request *r, send_record *e) {
  e->r = r;
  if (e->proto == PROTO_BUFFERED) {
    if (e->inline_data) {
      __builtin_memcpy(r->buf, &e->data, min32(e->bytes, r->capacity));
      recv_finish(r, e->pe, e->tag, e->bytes);
      record_free(e);
    } else if (e->bytes) {
      e->tmp = (char *)(uintptr_t)(e->data & ~3u); /* the sender wrote at tmp + (data & 3) */
      copy_out(e);
    } else {
      recv_finish(r, e->pe, e->tag, 0);
      record_free(e);
    }
    return;
  }
  switch (e->state) {
    case SR_FETCHED: copy_out(e); return;
    case SR_FETCHING: return; /* fetched() copies when the data is in */
    default:
      (void)fetch_from_sender(e, min32(e->bytes, r->capacity), r->buf); /* (matched: it reads) */
  }
}

/* ---- Posted receives -------------------------------------------------------------------- */

static inline int tag_matches(uint16_t want, uint16_t tag) {
  return want == TAG_ANY16 || want == tag;
}

/* The oldest posted receive a message from pe with tag and ctx matches. */
static inline mpi_request *posted_match(unsigned pe, uint16_t tag, uint16_t ctx) {
  for (dl_link *l = mpi_posted.head.next; l != &mpi_posted.head; l = l->next) {
    mpi_request *r = RECV_OF_PRQ(l);
    if (r->ctx == ctx && ((r->flags & RF_WILD) || r->pe == pe) && tag_matches(r->tag, tag))
      return r;
  }
  return 0;
}

static void __attribute__((noinline)) posted_taken_special(uint16_t flags) {
  if (flags & RF_HELD) --mpi_held_pending;
  if (flags & RF_WILD) {
    --mpi_wild_pending;
    release_held_requests();
  }
}
/* r is matched: out of the posted list; a matched wildcard may free held requests. */
static inline __attribute__((always_inline)) void posted_take(mpi_request *r) {
  dl_remove(&r->prq);
  const uint16_t flags = r->flags;
  r->flags = flags & (uint16_t)~(RF_IN_PRQ | RF_HELD);
  if (__builtin_expect(flags & (RF_WILD | RF_HELD), 0)) posted_taken_special(flags);
}

/* MPI_Cancel of a receive (cancel.c): taken out of the posted list if it is still
 * there (nothing else knows it then); 0 if it is not. */
int posted_cancel(mpi_request *r) {
  if (!(r->flags & RF_IN_PRQ)) return 0;
  posted_take(r);
  return 1;
}

/* MPI_Cancel of a send (cancel.c): the send request `sreq` from pe leaves the unexpected
 * list if it waits there with nothing read yet (sync, or get without memory): the sender
 * is then the only one that knows the message. 0 if it is not there so (matched, being
 * read, buffered data here already, or not arrived). */
int unexpected_withdraw(unsigned pe, emx_gaddr_t sreq) {
  for (dl_link *l = mpi_unexpected.head.next; l != &mpi_unexpected.head; l = l->next) {
    send_record *e = DL_ENTRY(l, send_record, link);
    /* (A record that is read or buffered may be of an earlier send whose request cell
     * completed and was used again: only a waiting one is the live request's.) */
    if (e->pe != pe || e->sreq != sreq || e->proto == PROTO_BUFFERED || e->state != SR_WAITING)
      continue;
    dl_remove(&e->link);
    record_free(e);
    credit_matched(pe); /* its credit goes back */
    return 1;
  }
  return 0;
}

/* MPI_Cancel of a send whose data moved here (cancel.c): the newest unexpected record of
 * the send request `sreq` from pe with this tag and context leaves the list, its buffer
 * freed, if its data is in (get: read; buffered: written). By MPI's order the newest such
 * record is the send's own while it is unmatched (an older one of an earlier use of its
 * request cell, same tag and context, would have been matched first). 0 if there is none
 * or it is being read. */
int unexpected_withdraw_moved(unsigned pe, emx_gaddr_t sreq, uint16_t tag, uint16_t ctx) {
  send_record *e = 0;
  for (dl_link *l = mpi_unexpected.head.next; l != &mpi_unexpected.head; l = l->next) {
    send_record *x = DL_ENTRY(l, send_record, link);
    if (x->pe == pe && x->sreq == sreq && x->tag == tag && x->ctx == ctx) e = x;
  }
  if (!e || e->state == SR_FETCHING) return 0;
  dl_remove(&e->link);
  if (e->proto == PROTO_BUFFERED && !e->inline_data && e->bytes)
    mpi_tmp_free_buffered((void *)(uintptr_t)(e->data & ~3u), e->bytes + 8); /* this PE's */
  else
    free(e->tmp); /* get: read into a temporary buffer (0: none) */
  record_free(e);
  credit_matched(pe);
  return 1;
}

/* The receive request of r, filed in the request-issued queue. */
static inline __attribute__((always_inline)) void send_recv_request(mpi_request *r) {
  COUNT(C_RECV_REQUESTS);
  const uint32_t buf = (uint32_t)(uintptr_t)r->buf, word = (uint32_t)(uintptr_t)&r->done >> 2;
  if (rreq_pair_fits(r->ctx, buf, r->capacity, r->tag) && proto_peer_quiet(r->pe)) {
    rreq_send_pair(r); /* -mpi-option=rreq-pairs */
  } else if (mpi_opt.staged_records && r->ctx < RREQ_SHORT_CTX && r->capacity <= 0xffff) {
    const uint32_t w[3] = {word | (uint32_t)r->ctx << EMX_GADDR_PE_SHIFT, buf,
                           r->capacity | (uint32_t)r->tag << 16};
    proto_request(r->pe, REQ_RREQ, RREQ_SHORT, w, 3);
  } else {
    const uint32_t w[4] = {req_gaddr(r), buf, r->capacity, r->tag | (uint32_t)r->ctx << 16};
    proto_request(r->pe, REQ_RREQ, 0, w, 4);
  }
}

/* A receive whose request is issued leaves the posted list: arriving send requests find
 * it in the request-issued queue, which is searched first, and an issued receive is older
 * than every receive still posted (those are wildcards and the receives held back behind
 * them). The sender may complete it by remote write at any time, with no thread here. */
static inline __attribute__((always_inline)) void issue_recv_request(mpi_request *r) {
  if (r->flags & RF_IN_PRQ) {
    dl_remove(&r->prq);
    r->flags &= (uint16_t)~RF_IN_PRQ;
  }
  isq_add(&mpi_isq_recv, r);
  /* For the paths that do not write it (a one-sided send does). */
  r->srctag = r->pe | (uint32_t)r->tag << 16;
  send_recv_request(r);
}

/* irecv.S's request when it does not go to the request-issued queue: r is set up. */
int mpi_irecv_post(mpi_request *r);
int mpi_irecv_post(mpi_request *r) {
  recv_start(r);
  irecv_settled(r);
  return MPI_SUCCESS;
}

/* irecv.S's usual case when the receive request does not go as a pair: r is filed and
 * its srctag set. */
int mpi_irecv_request(mpi_request *r);
int mpi_irecv_request(mpi_request *r) {
  send_recv_request(r);
  return MPI_SUCCESS;
}

/* A receive request may be issued only while no unmatched MPI_ANY_SOURCE receive was
 * posted before it: otherwise the sender could match a message by remote write that the
 * wildcard receive should get. Nor before an earlier receive from the same source that
 * waits for a credit (the sender would match the later one first). Walk the posted
 * receives in order up to the first unmatched wildcard and issue what was held back and
 * has a credit now (from `only`, or any source: -1). Credits only go during a walk, so
 * a receive skipped for lack of one leaves every later one from its source held too; its
 * sender is asked for more. Returns whether a receive from `only` still waits. */
static int release_held(int only) {
  dl_link *l = mpi_posted.head.next;
  for (dl_link *next; l != &mpi_posted.head; l = next) {
    next = l->next; /* issuing takes r out of the list */
    mpi_request *r = RECV_OF_PRQ(l);
    if (r->flags & RF_WILD) break;
    if (!(r->flags & RF_HELD) || (only >= 0 && r->pe != (unsigned)only)) continue;
    if (!rreq_credit_take(r->pe)) {
      rreq_credit_ask(r->pe);
      if (only >= 0) return 1;
      continue;
    }
    r->flags &= (uint16_t)~RF_HELD;
    --mpi_held_pending;
    issue_recv_request(r);
  }
  if (only < 0) return 0;
  for (; l != &mpi_posted.head; l = l->next) { /* behind the wildcard */
    const mpi_request *r = RECV_OF_PRQ(l);
    if ((r->flags & RF_HELD) && r->pe == (unsigned)only) return 1;
  }
  return 0;
}
void release_held_requests(void) { (void)release_held(-1); }
/* Credits for receive requests to pe came while receives are held. */
int release_held_for(unsigned pe) { return release_held((int)pe); }

/* ---- Unexpected send requests ------------------------------------------------------------ */

static send_record *unexpected_match(int pe, uint16_t tag, uint16_t ctx) {
  for (dl_link *l = mpi_unexpected.head.next; l != &mpi_unexpected.head; l = l->next) {
    send_record *e = DL_ENTRY(l, send_record, link);
    if (e->ctx == ctx && (pe < 0 || e->pe == pe) && tag_matches(tag, e->tag)) return e;
  }
  return 0;
}

int unexpected_probe(int src_pe, uint16_t tag, uint16_t ctx, MPI_Status *st, int base_pe) {
  const send_record *e = unexpected_match(src_pe, tag, ctx);
  if (!e) return 0;
  if (st) {
    st->MPI_SOURCE = e->pe - base_pe;
    st->MPI_TAG = e->tag;
    st->MPI_ERROR = MPI_SUCCESS;
    st->mpi_bytes_ = (int)e->bytes;
    st->mpi_cancelled_ = 0;
  }
  return 1;
}

void recv_start(mpi_request *r) {
  if (r->flags & RF_NULL_PEER) {
    req_complete(r);
    return;
  }
  const int wild = r->rank == MPI_ANY_SOURCE;
  if (mpi_unexpected.head.next != &mpi_unexpected.head) {
    send_record *e = unexpected_match(wild ? -1 : r->pe, r->tag, r->ctx);
    if (e) {
      dl_remove(&e->link);
      e->in_list = 0;
      credit_matched(e->pe);
      deliver(r, e);
      return;
    }
  }
  if (!wild && mpi_matching == MATCH_BOTH && !mpi_wild_pending && rreq_credit_take(r->pe)) {
    issue_recv_request(r); /* the common case: straight to the sender */
    return;
  }
  dl_append(&mpi_posted, &r->prq);
  r->flags |= RF_IN_PRQ;
  if (wild) {
    r->flags |= RF_WILD;
    ++mpi_wild_pending;
  } else if (mpi_matching == MATCH_BOTH) {
    /* Behind a wildcard, or without a credit (then no earlier receive from pe is held:
     * a credit that comes back issues those first). Matched here if the send request
     * comes first. */
    r->flags |= RF_HELD;
    ++mpi_held_pending;
    COUNT(C_HELD);
    if (!mpi_wild_pending) {
      COUNT(C_RREQ_CREDIT_WAITS);
      rreq_credit_ask(r->pe);
    }
  }
  credit_wanted(wild ? -1 : (int)r->pe); /* a sender whose credits are all held here */
}

/* Whether a receive in the posted list may take a message from pe (credits.c). */
int posted_wants(unsigned pe) {
  for (dl_link *l = mpi_posted.head.next; l != &mpi_posted.head; l = l->next) {
    const mpi_request *r = RECV_OF_PRQ(l);
    if ((r->flags & RF_WILD) || r->pe == pe) return 1;
  }
  return 0;
}

/* ---- A send request arrives ----------------------------------------------------------- */

/* words: send request, data address (or the data: SREQ_INLINE), bytes, tag | context
 * << 16; bits: protocol and SREQ_INLINE. */
static inline __attribute__((always_inline)) void sreq_core(unsigned pe, unsigned bits,
                                                            const uint32_t *w) {
  const uint32_t last = w[3];
  const uint16_t tag = (uint16_t)last, ctx = (uint16_t)(last >> 16);
  const unsigned proto = bits & SREQ_PROTO;
  /* A buffered message in a buffer this PE gave (tmp_alloc_arrived) has arrived. */
  if (proto == PROTO_BUFFERED && !(bits & (SREQ_INLINE | SREQ_FALLBACK)) && w[2]) --mpi_inbound;
  if (mpi_matching == MATCH_BOTH) {
    kq_key *key;
    kq_link *issued = kq_match_fast(&mpi_isq_recv, kq_pt(pe, tag), ctx, &key);
    if (issued) {
      /* Both sides issued requests (see mpi_h_rreq for the sender's half): buffered
       * keeps this send request, sync and get drop it and the sender writes the data
       * into the receive. Either way the receive is matched now. */
      mpi_request *r = isq_take(&mpi_isq_recv, key);
      rreq_credit_back(pe); /* its receive request holds no record there */
      if (proto == PROTO_BUFFERED || (bits & SREQ_FALLBACK)) {
        deliver(r, record_new(pe, tag, ctx, bits, w));
        credit_release(pe); /* (a dropped one's credit the sender took back itself) */
      }
      req_unref(r);
      return;
    }
    /* No receive request of ours will meet this send request at the sender: it must
     * forget it before any later receive request of ours arrives there. */
    proto_removal(pe, (uint32_t)(uintptr_t)emx_gaddr_local(w[0]), 0);
  } else if (proto == PROTO_BUFFERED) {
    emx_iwrite(w[0] + REQ_W_DONE, DONE_SET); /* matching on the receiver only (issue) */
  }
  send_record *e = record_new(pe, tag, ctx, bits, w);
  mpi_request *r = posted_match(pe, tag, ctx);
  if (r) {
    posted_take(r);
    deliver(r, e);
    credit_release(pe);
    return;
  }
  dl_append(&mpi_unexpected, &e->link);
  e->in_list = 1;
  COUNT(C_UNEXPECTED);
  credit_filed(pe); /* its credit stays with the record */
  if (proto == PROTO_GET) {
    /* Get: read the data into a temporary buffer now, so the send can complete (if
     * there is no memory, it waits for the receive like sync). */
    if (e->bytes == 0) {
      e->state = SR_FETCHED;
      emx_iwrite(e->sreq + REQ_W_DONE, 1);
    } else {
      (void)fetch_from_sender(e, e->bytes, 0);
    }
  }
}

static void __attribute__((noinline)) sreq_general(unsigned pe, unsigned bits,
                                                   const uint32_t *w) {
  sreq_core(pe, bits, w);
}

/* The usual case's read, with no thread on either side (EM-X's block read, docs/pe.md):
 * the words go straight into the receive buffer, and the read's completion is the
 * receive's own `done` I-structure, as a one-sided send's is: its write wakes a blocked
 * MPI_Wait. The read's completion writes the count of words read, which `done` takes as
 * DONE_SET only when it is 1 (a larger value carries a size, DONE_SIZED), so a longer
 * message goes as two reads, its last word by itself: that one's completion comes after
 * every word (one source, one destination: FIFO). The sender's completion follows the
 * read requests to its PE, whose memory unit serves them in arrival order, so the send
 * buffer has been read when the send completes. */
static inline __attribute__((always_inline)) void read_into_request(mpi_request *r, unsigned pe,
                                                                    uint32_t data,
                                                                    uint32_t words) {
  const emx_gaddr_t dst = emx_gaddr_mine(r->buf), src = emx_gaddr(pe, (void *)(uintptr_t)data);
  if (__builtin_expect(words > 1, 0)) {
    emx_read_block(dst, src, words - 1, 0);
    emx_read_block(dst + words - 1, src + words - 1, 1, req_gaddr(r));
  } else {
    emx_read_block(dst, src, 1, req_gaddr(r));
  }
  mpi_counters[C_FETCHED_WORDS] += words;
}

/* The copy of sreq_buffered off its usual path (its own function, so that the usual one
 * saves no register): n bytes from the temporary buffer at data (sent + 8 bytes from
 * data & ~3), then the receive completes and the buffer goes back. */
static void __attribute__((noinline)) buffered_copy(mpi_request *r, uint32_t data, uint32_t n,
                                                    uint32_t sent) {
  memcpy(r->buf, (const void *)(uintptr_t)data, n);
  req_complete(r);
  mpi_tmp_free_buffered((void *)(uintptr_t)(data & ~3u), sent + 8);
}

/* sreq_arrived's buffered case (its own function, so that the get and sync case saves no
 * register): posted receive r takes the message, copied out of the temporary buffer this
 * PE gave (or out of the request itself: SREQ_INLINE), the buffer back to its free list;
 * the send completes (issue in sender_match.c). Calls only in tail position. */
static void __attribute__((noinline)) sreq_buffered(mpi_request *r, unsigned pe, unsigned bits,
                                                    const uint32_t *w) {
  const uint32_t data = w[1], sent = w[2], n = min32(sent, r->capacity);
  emx_iwrite(w[0] + REQ_W_DONE, DONE_SET);
  emx_invoke(pe, mpi_idx_credit, mpi_me, 1); /* credit_release, minted is 0 */
  dl_remove(&r->prq); /* posted_take of a receive neither wildcard nor held */
  r->flags &= (uint16_t)~RF_IN_PRQ;
  r->srctag = pe | (w[3] & 0xffff) << 16;
  r->bytes = sent;
  if (bits & SREQ_INLINE) {
    char *to = r->buf;
    for (uint32_t k = 0; k < n; ++k) to[k] = (char)(data >> 8 * k);
    req_complete(r);
    return;
  }
  if (!sent) {
    req_complete(r);
    return;
  }
  --mpi_inbound; /* the buffer it asked for is filled (tmp_alloc_arrived) */
  if (__builtin_expect(((data | (uint32_t)(uintptr_t)r->buf | n) & 3) || n > 4 * SHORT_WORDS, 0)) {
    buffered_copy(r, data, n, sent);
    return;
  }
  const uint32_t *from = (const uint32_t *)(uintptr_t)data;
  uint32_t *to = r->buf;
  for (uint32_t k = 0; k < n / 4; ++k) to[k] = from[k];
  req_complete(r);
  mpi_tmp_free_buffered((void *)(uintptr_t)(data & ~3u), sent + 8);
}

/* Invoked in a frame (creation.c). The usual send request with matching on the receiver
 * only (a receive from that source posted, not a wildcard one, no minted credit out):
 * matched and finished in this thread, its credit sent back, nothing kept here. Get and
 * sync (buffers word aligned, another PE on EM-X, at most a block): the block read of the
 * data leaves first, straight into the receive buffer with the receive's completion
 * (read_into_request), then the send's completion; no thread follows. Buffered: the send
 * completes (issue in sender_match.c), the data is copied out. Anything else:
 * sreq_core. */
void sreq_arrived(unsigned pe, unsigned bits, const uint32_t *w) {
  if (__builtin_expect(!sreq_fast, 0)) { /* (before the words are read: both sides) */
    sreq_general(pe, bits, w);
    return;
  }
  const uint32_t sreq = w[0], data = w[1], sent = w[2], last = w[3];
  const uint16_t tag = (uint16_t)last, ctx = (uint16_t)(last >> 16);
  mpi_request *r;
  if (__builtin_expect(pe == mpi_me || mpi_senders[pe].minted != 0 ||
                           (bits & SREQ_FALLBACK) || !(r = posted_match(pe, tag, ctx)) ||
                           (r->flags & (RF_WILD | RF_HELD)),
                       0)) {
    sreq_general(pe, bits, w);
    return;
  }
  if ((bits & SREQ_PROTO) == PROTO_BUFFERED) {
    sreq_buffered(r, pe, bits, w);
  } else {
    const uint32_t dst = (uint32_t)(uintptr_t)r->buf, bytes = min32(sent, r->capacity);
    if (__builtin_expect(!mpi_block_reads || !dst || ((data | dst | bytes) & 3) ||
                             bytes > 4 * FETCH_BLOCK_WORDS,
                         0)) {
      sreq_general(pe, bits, w);
      return;
    }
    if (bytes) read_into_request(r, pe, data, bytes / 4);
    emx_iwrite(sreq + REQ_W_DONE, DONE_SET); /* (behind the read at the sender) */
    emx_invoke(pe, mpi_idx_credit, mpi_me, 1); /* credit_release, minted is 0 */
    dl_remove(&r->prq); /* posted_take of a receive neither wildcard nor held */
    r->srctag = pe | (uint32_t)tag << 16;
    r->bytes = sent;
    /* A test of r waits for the read (RF_READING, cleared at its restart). */
    const uint16_t flags = r->flags & (uint16_t)~RF_IN_PRQ;
    r->flags = bytes ? flags | RF_READING : flags;
    if (!bytes) req_complete(r);
  }
}
void mpi_h_sreq(uint32_t last, uint32_t arg16, uint32_t addr) {
  (void)addr;
  const unsigned pe = record_src(arg16);
  const uint32_t *st = record_words(pe);
  const uint32_t w[4] = {st[0], st[1], st[2], last};
  sreq_core(pe, record_bits(arg16), w);
}
EMX_HANDLER(mpi_h_sreq);
