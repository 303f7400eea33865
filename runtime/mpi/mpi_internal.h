/* Shared by the files of MPI-EMX (docs/mpi.md); not part of the user API.
 *
 * Every PE is one rank and runs handler threads for the protocol messages other ranks
 * send it. Threads are atomic, so the matching structures need no locks; a handler never
 * blocks, and the user's MPI calls block only where the structures are consistent. */
#ifndef EMX_MPI_INTERNAL_H
#define EMX_MPI_INTERNAL_H

#include <emx/emc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- Variants (MPI_Init options) ---------------------------------------------------- */

enum mpi_matching { MATCH_BOTH, MATCH_RECEIVER };
enum mpi_protocol { PROTO_BUFFERED, PROTO_GET, PROTO_SYNC };
extern enum mpi_matching mpi_matching;
extern enum mpi_protocol mpi_protocol;

/* Counts of protocol events on this PE (-mpi-stats: summed over ranks into emx_result
 * records at MPI_Finalize; tests use them to see that each path ran). */
enum mpi_counter {
  C_ONE_SIDED,       /* sends matched on the sender's PE: one remote write */
  C_SEND_REQUESTS,   /* send requests issued */
  C_RECV_REQUESTS,   /* receive requests issued */
  C_HELD,            /* receive requests held back (wildcard before them, or no credit) */
  C_CONCURRENT,      /* send and receive requests crossed (counted at the sender) */
  C_UNEXPECTED,      /* send requests filed before their receive was posted */
  C_REMOVALS,        /* request-issued queue entries removed by a special packet */
  C_FETCHED_WORDS,   /* words read by remote read */
  C_CREDIT_WAITS,    /* sends that found no credit for their receiver (credits.c) */
  C_CREDITS_MINTED,  /* credits granted beyond a sender's share (credits.c) */
  C_RREQ_CREDIT_WAITS, /* receives posted without a credit for their receive request */
  C_RREQ_CREDITS_GRANTED, /* credits for receive requests granted here from the pool */
  C_COUNTERS
};
extern uint32_t mpi_counters[C_COUNTERS];

/* Options beyond the variant (options.c; the table in docs/mpi.md): each switches one
 * shortcut or older mechanism on in place of the paper's mechanism (the default). */
typedef struct {
  uint8_t fetch_per_word; /* -mpi-option=fetch-per-word: SYSRD per word, a thread each */
  uint8_t staged_records; /* staged-records: requests as staged special packets */
  uint8_t rreq_pairs;     /* rreq-pairs: receive requests as 2-input pairs */
  uint8_t sreq_inline;    /* sreq-inline: buffered data of <= 4 bytes in the send request */
  uint8_t done_sized;     /* done-sized: a short message's size in its completion value */
  uint8_t local_isend;    /* local-isend: MPI_Isend does not wait for its operand segment */
  uint8_t block_read;     /* block-read: our block remote read instead of the SYSRD stream */
} mpi_options;
extern mpi_options mpi_opt;
int mpi_parse_option(const char *arg, int *bad); /* 1: arg was an -mpi-option= */
#define COUNT(c) (++mpi_counters[c])

/* ---- Queues keyed by (peer, tag, context): FIFO per key (keyqueue.c) ---------------- */

/* An item of a keyed queue embeds this link; seq orders items of different keys. */
typedef struct kq_link {
  struct kq_link *next;
  uint32_t seq;
} kq_link;

enum { KQ_BITS = 6, KQ_BUCKETS = 1 << KQ_BITS, TAG_ANY16 = 0xffff };

/* A key packs peer PE and tag (TAG_ANY16 for MPI_ANY_TAG) into one word; the context
 * is the other half of the key. */
static inline uint32_t kq_pt(unsigned peer, unsigned tag) { return peer | tag << 16; }
static inline unsigned kq_pt_peer(uint32_t pt) { return pt & 0xffff; }
static inline unsigned kq_pt_tag(uint32_t pt) { return pt >> 16; }

typedef struct kq_key {
  struct kq_key *chain, **pprev; /* the bucket's chain */
  uint32_t pt, ctx;
  kq_link *head, *tail;          /* head 0: idle (keyqueue.c) */
} kq_key;
typedef struct {
  kq_key *bucket[KQ_BUCKETS];
  uint32_t seq;
  uint32_t any_keys; /* non-idle keys with TAG_ANY16: none, and a lookup is one probe */
  uint32_t idle;     /* idle keys */
} kq_table;

static inline unsigned kq_hash(uint32_t pt, uint32_t ctx) {
  return ((pt + ctx * 0x10001u) * 2654435761u) >> (32 - KQ_BITS);
}
static inline kq_key *kq_find_at(const kq_table *t, unsigned h, uint32_t pt, uint32_t ctx) {
  kq_key *k = t->bucket[h];
  while (k && (k->pt != pt || k->ctx != ctx)) k = k->chain;
  return k;
}
static inline kq_key *kq_find(const kq_table *t, uint32_t pt, uint32_t ctx) {
  return kq_find_at(t, kq_hash(pt, ctx), pt, ctx);
}

/* Appends item to the FIFO of (pt, ctx); returns the key, valid while the item is in it
 * (a key goes only when its FIFO is empty). */
kq_key *kq_push(kq_table *t, uint32_t pt, uint32_t ctx, kq_link *item);
/* Appends item to the FIFO of k, a key of t (idle or not). */
static inline void kq_append(kq_table *t, kq_key *k, kq_link *item) {
  item->next = 0;
  item->seq = t->seq++;
  if (k->head) {
    k->tail->next = item;
  } else {
    k->head = item;
    --t->idle;
    if (kq_pt_tag(k->pt) == TAG_ANY16) ++t->any_keys;
  }
  k->tail = item;
}
static inline kq_key *kq_push_inline(kq_table *t, uint32_t pt, uint32_t ctx, kq_link *item) {
  kq_key *k = kq_find(t, pt, ctx);
  if (__builtin_expect(!k, 0)) return kq_push(t, pt, ctx, item); /* a new key */
  kq_append(t, k, item);
  return k;
}
/* The oldest item that a message or request with key (pt, ctx) matches, and its key:
 * for a concrete tag the older head of (peer, tag) and (peer, ANY); for TAG_ANY16 the
 * oldest head of any tag of the peer. NULL if none. */
kq_link *kq_match(const kq_table *t, uint32_t pt, uint32_t ctx, kq_key **found);
/* k's FIFO became empty: it is idle now, and may go (k is not valid after this). */
void kq_key_emptied(kq_table *t, kq_key *k);
/* Drops every idle key (MPI_Finalize, before counting the cells in use). */
void kq_sweep(kq_table *t);
enum { KQ_IDLE_MAX = 64 }; /* idle keys kept */
/* Removes the head of key k (as kq_match found it); k is not valid after this. */
static inline void kq_pop(kq_table *t, kq_key *k) {
  k->head = k->head->next;
  if (k->head) return;
  if (__builtin_expect(kq_pt_tag(k->pt) == TAG_ANY16 || t->idle >= KQ_IDLE_MAX, 0))
    kq_key_emptied(t, k);
  else
    ++t->idle;
}
/* kq_match for the common case inline: a concrete tag and no MPI_ANY_TAG key. */
static inline kq_link *kq_match_fast(const kq_table *t, uint32_t pt, uint32_t ctx,
                                     kq_key **found) {
  if (__builtin_expect(t->any_keys != 0 || kq_pt_tag(pt) == TAG_ANY16, 0))
    return kq_match(t, pt, ctx, found);
  kq_key *k = kq_find(t, pt, ctx);
  *found = k;
  return k ? k->head : 0;
}

/* ---- Doubly linked lists in arrival order (posted receives, unexpected sends) --------- */

typedef struct dl_link {
  struct dl_link *prev, *next;
} dl_link;
typedef struct {
  dl_link head; /* sentinel */
} dl_list;
static inline void dl_init(dl_list *l) { l->head.prev = l->head.next = &l->head; }
static inline void dl_append(dl_list *l, dl_link *x) {
  x->prev = l->head.prev;
  x->next = &l->head;
  l->head.prev->next = x;
  l->head.prev = x;
}
static inline void dl_remove(dl_link *x) {
  x->prev->next = x->next;
  x->next->prev = x->prev;
  x->prev = x->next = x;
}
#define DL_ENTRY(link, type, member) ((type *)((char *)(link) - __builtin_offsetof(type, member)))

/* ---- Fixed-size cells from free lists (pool.c) -------------------------------------- */

typedef struct {
  void *free;
  uint32_t cell_bytes;
  uint32_t made; /* cells carved; those in use are the ones not in the free list */
  uint32_t batch_bytes; /* carved at once; 0: 2 KiB */
} mpi_pool;
void *pool_refill(mpi_pool *p);
/* A cell, not initialised: a memset of a cell costs more than the rest of a short
 * message's path, so every user sets the fields it needs. Aborts when memory is out. */
static inline void *pool_get(mpi_pool *p) {
  void *c = p->free;
  if (__builtin_expect(!c, 0)) return pool_refill(p);
  p->free = *(void **)c;
  return c;
}
static inline void pool_put(mpi_pool *p, void *cell) {
  *(void **)cell = p->free;
  p->free = cell;
}
/* A temporary buffer for unexpected data, leaving a reserve of the heap (pool.c). */
void *mpi_tmp_alloc(uint32_t bytes);
/* The buffered protocol's: bytes as asked for (the message's size + 8); short ones from a
 * free list (pool.c). Given back with the same size. */
enum { TMP_SMALL_BYTES = 24 };
void *mpi_tmp_alloc_buffered(uint32_t bytes);
void mpi_tmp_free_buffered(void *b, uint32_t bytes);
/* Cells in use in all pools (requests, records, keys): 0 when nothing is pending. */
uint32_t pool_cells_in_use(void);
void pool_register(mpi_pool *p);

/* ---- Facts about this PE, read once at MPI_Init ---------------------------------------- */

extern unsigned mpi_me;      /* this PE */
extern int mpi_direct;       /* EM-X: SYSWR/SYSRD served by the memory unit */
extern uint32_t mpi_mem_end; /* local memory size */
extern unsigned mpi_idx_stage, mpi_idx_rreq, mpi_idx_sreq, mpi_idx_remove; /* handlers */

/* ---- Requests (requests.c) ---------------------------------------------------------- */

enum req_kind { REQ_SEND = 1, REQ_RECV = 2 };
enum req_flag {
  RF_ACTIVE = 1u << 0,     /* started, not yet waited for */
  RF_PERSISTENT = 1u << 1, /* Send_init / Recv_init */
  RF_USER_FREED = 1u << 2, /* the handle is gone (Wait, Request_free) */
  RF_COMPLETE = 1u << 3,   /* completion seen by this PE */
  RF_ARMED = 1u << 4,      /* a notify frame reads `done` (Waitany, Request_free) */
  RF_READER = 1u << 5,     /* a blocked MPI_Wait reads `done` */
  RF_IN_PRQ = 1u << 6,     /* a posted receive not yet matched */
  RF_WILD = 1u << 7,       /* posted with MPI_ANY_SOURCE */
  RF_HELD = 1u << 8,       /* receive request held back: behind a wildcard, or no credit */
  RF_READING = 1u << 9,    /* its data is being read into it, with no thread here (its
                              completion writes `done`: receiver_match.c) */
  RF_NULL_PEER = 1u << 10, /* MPI_PROC_NULL: completes at once */
  RF_PACKED = 1u << 11,    /* a non-contiguous datatype: data through r->pack (pack.c) */
  RF_CANCELLED = 1u << 12, /* MPI_Cancel succeeded (cancel.c); not a plain request then */
  RF_CANCEL_WAIT = 1u << 14, /* a cancel of a complete send waits for its answer (cancel.c) */
};

/* An entry of a request-issued queue (requests.c). */
typedef struct isq_entry {
  kq_link link; /* first: the table's items are these links */
  struct mpi_request *req;
  kq_key *key;  /* where it is filed */
} isq_entry;

/* Word offsets of the fields a remote sender writes (one-sided send). */
enum { REQ_W_DONE = 0, REQ_W_SRCTAG = 1, REQ_W_BYTES = 2, REQ_W_FIX = 3 };
/* The value written into `done`: DONE_SET when `bytes` (and `srctag`) are set already,
 * or DONE_SIZED + n from a short one-sided send, whose completion carries the message's
 * size n itself: one packet fewer on the paper's fast path. */
enum { DONE_SET = 1, DONE_SIZED = 2 };
/* A request's handle (MPI_Request) is its cell's address with a generation in the low 3
 * bits (cells are 8-byte aligned), counted up each time the cell is taken: the cell keeps
 * its live handle in `handle`, only the generation while it is free. A handle the user
 * passes may be anything: its cell is read only if it lies in memory above the guard page
 * ([0x1000, 0x1000 + mpi_req_span), one compare), and it names a request only if it is
 * the cell's live handle. So a wild pointer, a freed handle and a stale copy of one whose
 * cell serves a newer request (up to 7 generations on) are MPI_ERR_REQUEST, never a fault
 * or another request's completion. */
enum { REQ_GEN_MASK = 7 };
extern uint32_t mpi_req_span;
/* Protocol exchanges toward this PE in flight: operand segments it handed out whose
 * invocation has not come (creation.c), fetches running (transfer.c). A probe or test
 * that finds nothing waits for them (mpi_progress_inbound): the message they bring has
 * arrived, as far as the user can tell. */
extern unsigned mpi_inbound;
int mpi_progress_inbound(unsigned *steps); /* steps: 0 at the first call */
/* The same for a test of r, which also waits while r's data is read (RF_READING). */
int mpi_progress_toward(const struct mpi_request *r, unsigned *steps);

/* A computation blocked until one of several armed requests completes (wait.c). */
typedef struct waiter {
  emx_ctx_t *ctx;
  int fired;
} waiter;

typedef struct mpi_request {
  /* Written by a remote sender: keep first and in this order (REQ_W_*). */
  uint32_t done;     /* I-structure: completion */
  uint32_t srctag;   /* source PE | tag << 16 */
  uint32_t bytes;    /* size of the message as sent (may exceed the buffer) */
  uint32_t fix[2];   /* partial head and tail words of an unaligned one-sided send */
  /* Local. */
  uint32_t handle;   /* the live handle (REQ_GEN_MASK: the generation only, when free) */
  uint16_t kind, flags;
  uint16_t refs;     /* protocol references: queues that name this request */
  uint16_t isq_count; /* its entries in a request-issued queue (a persistent request can
                         have the previous round's too) */
  uint8_t proto;     /* a send's protocol (enum mpi_protocol) */
  void *buf;
  uint32_t capacity; /* bytes: a send's size, a receive's buffer */
  MPI_Comm comm;
  int rank;          /* peer rank as the user gave it (or ANY_SOURCE / PROC_NULL) */
  uint16_t pe;       /* peer PE (receives from MPI_ANY_SOURCE: unused) */
  uint16_t tag;      /* TAG_ANY16 for MPI_ANY_TAG */
  uint16_t ctx;      /* context id of the communicator's point-to-point traffic */
  uint16_t base_pe;  /* the communicator's rank 0 */
  dl_link prq;       /* in the posted-receive list */
  isq_entry *isq_newest; /* its newest request-issued queue entry */
  isq_entry isq_own;     /* the entry it uses when that one is free */
  waiter *waiter;    /* a blocked Wait/Waitany on an armed request */
  /* Added for the rest of MPI-1 (set by the C paths only; irecv.S's requests never
   * have RF_PACKED or a COMM_MAPPED base_pe, so it need not set them). */
  const struct comm_map *map;  /* base_pe == COMM_MAPPED: the ranks of the communicator */
  struct pack_state *pack;     /* RF_PACKED: the non-contiguous user buffer (pack.c) */
} mpi_request;

extern mpi_pool mpi_request_pool;
/* The cell a handle names, and a cell's handle. */
static inline mpi_request *req_of(MPI_Request h) {
  return (mpi_request *)((uintptr_t)h & ~(uintptr_t)REQ_GEN_MASK);
}
static inline MPI_Request req_handle(const mpi_request *r) {
  return (MPI_Request)(uintptr_t)r->handle;
}
/* A handle that names a request in use (in memory, its cell's live handle). */
static inline int req_handle_ok(MPI_Request h) {
  return (uintptr_t)h - 0x1000u < mpi_req_span && req_of(h)->handle == (uintptr_t)h;
}
/* ... and the user has not let go of it (a cell back in the free list by a wait keeps
 * its live handle: RF_USER_FREED says it is gone). */
static inline int req_user_handle(MPI_Request h) {
  return req_handle_ok(h) && !(req_of(h)->flags & RF_USER_FREED);
}
/* A cell (from a protocol message) that holds a request. */
static inline int req_live(const mpi_request *r) {
  return (r->handle & ~(uint32_t)REQ_GEN_MASK) == (uint32_t)(uintptr_t)r;
}
/* The cell goes back to the free list: its handle dies, its generation stays. */
static inline void req_drop_handle(mpi_request *r) { r->handle &= REQ_GEN_MASK; }
/* A request with its completion state clear; the caller sets the message fields. */
static inline mpi_request *req_new(int kind) {
  mpi_request *r = pool_get(&mpi_request_pool);
  r->done = 0; /* a recycled cell's element has clear tags: the completion was taken */
  r->handle = (uint32_t)(uintptr_t)r | ((r->handle + 1) & REQ_GEN_MASK);
  r->kind = (uint16_t)kind;
  r->flags = 0;
  r->refs = 0;
  r->isq_count = 0;
  r->isq_own.req = 0;
  r->srctag = r->bytes = 0;
  r->waiter = 0;
  return r;
}
/* r's completion value v has been taken from `done`. */
static inline void req_took(mpi_request *r, uint32_t v) {
  if (v >= DONE_SIZED) r->bytes = v - DONE_SIZED;
}
static inline emx_gaddr_t req_gaddr(const mpi_request *r) {
  return ((emx_gaddr_t)mpi_me << EMX_GADDR_PE_SHIFT) | ((uint32_t)(uintptr_t)&r->done >> 2);
}
/* Marks r complete (on its own PE): a flag when nothing reads `done` (this thread is the
 * only one running), else an I-structure write (a packet to this PE) that wakes the
 * blocked Wait or the notify frame of an armed request. */
static inline void req_complete(mpi_request *r) {
  if (r->flags & (RF_ARMED | RF_READER)) emx_iwrite(req_gaddr(r), 1);
  else r->flags |= RF_COMPLETE;
}
/* Drops a protocol reference / the user's handle; the cell goes back to the free list
 * when both are gone and the request is complete. */
void req_unref(mpi_request *r);
/* r has no references and the user freed it: the cell goes back unless r still runs. */
static inline void req_reclaim(mpi_request *r) {
  if ((r->flags & RF_ACTIVE) && !(r->flags & RF_COMPLETE)) return;
  req_drop_handle(r);
  pool_put(&mpi_request_pool, r);
}
void req_release(mpi_request *r);
/* A request about to be started again (persistent) or new: clear completion state. */
void req_reset(mpi_request *r);
/* The request-issued queues: entries of their own (isq_entry) that name the request and
 * hold a reference, so that a persistent request can be started again while the entry
 * of its previous round waits for its removal packet. */
isq_entry *isq_extra_entry(void);
static inline void isq_add(kq_table *t, mpi_request *r) {
  isq_entry *e = __builtin_expect(r->isq_own.req != 0, 0) ? isq_extra_entry() : &r->isq_own;
  e->req = r;
  e->key = kq_push_inline(t, kq_pt(r->pe, r->tag), r->ctx, &e->link);
  r->isq_newest = e;
  ++r->isq_count;
  ++r->refs;
}
/* Pops the head entry of `key` (found by kq_match); returns its request, whose reference
 * the caller now holds (req_unref). */
mpi_request *isq_take(kq_table *t, kq_key *key);
/* Removes the oldest entry naming r (removals of one peer arrive in order); 0 if none. The
 * caller holds the entry's reference. */
int isq_remove(kq_table *t, mpi_request *r);
/* isq_remove with its usual case inline: r's own entry is its only one and heads its key
 * (the removal handler runs after every one-sided send, often just as the next message
 * arrives). */
static inline int isq_remove_fast(kq_table *t, mpi_request *r) {
  isq_entry *e = &r->isq_own;
  kq_key *k = e->key;
  if (r->isq_count != 1 || r->isq_newest != e || k->head != &e->link) return isq_remove(t, r);
  kq_pop(t, k);
  r->isq_count = 0;
  e->req = 0;
  return 1;
}

/* Installs a notify frame on `done` (requests.c). */
void req_arm(mpi_request *r);
int req_is_complete(mpi_request *r); /* takes a present `done` value, never blocks */
/* Lets the threads waiting in this PE's input buffer (protocol messages) run, then
 * continues: what a loop of MPI_Test needs to make progress. Its own function, so that
 * the callers do not save every register for the suspension. */
void mpi_progress(void);
/* Resumes the computation of w with r (once; called by a notify thread). */
void waiter_fire(waiter *w, mpi_request *r);

/* ---- Messages between PEs: special-handler records (records.c) ---------------------- */

/* A protocol message of up to RECORD_STAGED + 1 32-bit words plus 6 bits: the first
 * n-1 words are staged per source PE by one generic handler, the last packet starts the
 * message's handler, which finds the staged words with record_words(). Packets of one
 * source arrive and run in order, and a record is sent by one thread, so the staging
 * area of a source holds one record at a time. */
enum { RECORD_STAGED = 4 };
extern uint32_t *mpi_staging; /* [source PE][RECORD_STAGED] */
static inline void record_send(unsigned pe, unsigned handler_index, unsigned bits6,
                               const uint32_t *words, unsigned n) {
  for (unsigned k = 0; k + 1 < n; ++k) emx_invoke(pe, mpi_idx_stage, mpi_me | k << 10, words[k]);
  emx_invoke(pe, handler_index, mpi_me | bits6 << 10, words[n - 1]);
}
static inline const uint32_t *record_words(unsigned src_pe) {
  return mpi_staging + src_pe * RECORD_STAGED;
}
static inline unsigned record_src(uint32_t arg16) { return arg16 & 0x3ff; }
static inline unsigned record_bits(uint32_t arg16) { return arg16 >> 10; }
void records_init(void);

/* ---- Protocol requests (creation.c) -------------------------------------------------- */

/* The kinds of request, each a handler core taking the requester's PE, 6 bits and the
 * words (sreq, rreq: 4 words, the last tag | context << 16; tmp: bytes, the answer's
 * special address). The words may lie in a frame already given back (creation.c): a core
 * reads them all before it takes a frame. */
enum { REQ_SREQ, REQ_RREQ, REQ_TMP, REQ_KINDS };
void sreq_arrived(unsigned pe, unsigned bits, const uint32_t *w);
/* The send request's thread (sreq.S): its usual case by hand, else sreq_arrived. */
void mpi_sreq_thread(uint32_t v, uint32_t unused, uint32_t cont);
void mpi_sreq_thread_both(uint32_t v, uint32_t unused, uint32_t cont); /* arrivals.S */
void mpi_tmp_thread(uint32_t v, uint32_t unused, uint32_t cont);       /* tmp_answer.S */
void mpi_rreq_thread(uint32_t v, uint32_t unused, uint32_t cont);      /* arrivals.S */
void mpi_rreq_thread_indirect(uint32_t v, uint32_t unused, uint32_t cont); /* (EM-X', EM-4) */
void mpi_sreq_thread_general(uint32_t v, uint32_t unused, uint32_t cont); /* (sreq.S) */
void mpi_sreq_read_done(uint32_t v, uint32_t unused, uint32_t cont);      /* (sreq.S) */
/* The send request's thread (creation.c's template): matching_init's choice. */
void proto_sreq_thread(emx_thread_fn fn);
/* A creation's frame holds the request's words from this word on (creation.c). */
enum { REQ_ARGS_WORD = 4 };
void tmp_alloc_arrived(unsigned pe, unsigned bits, const uint32_t *w);
extern unsigned mpi_idx_record[REQ_KINDS]; /* the staged records' handlers */
extern uint32_t mpi_outbox_pending; /* messages waiting in any outbox */
/* A request of n <= 4 words to PE pe: by remote thread creation (the default), or as a
 * staged record (-mpi-option=staged-records, inline: its packets unrolled). Never
 * blocks. */
void proto_create(unsigned pe, unsigned kind, unsigned bits, const uint32_t *w, unsigned n);
int proto_create4(unsigned pe, unsigned kind, unsigned bits, uint32_t w0, uint32_t w1,
                  uint32_t w2, uint32_t w3); /* returns MPI_SUCCESS */
static inline __attribute__((always_inline)) void proto_request(unsigned pe, unsigned kind,
                                                                unsigned bits,
                                                                const uint32_t *w, unsigned n) {
  if (mpi_opt.staged_records) record_send(pe, mpi_idx_record[kind], bits, w, n);
  else proto_create(pe, kind, bits, w, n);
}
/* A removal from a request-issued queue (a special packet), behind every request to pe
 * that still waits for its operand segment. */
void proto_removal_queued(unsigned pe, uint32_t local_request, int recv_side);
static inline void proto_removal(unsigned pe, uint32_t local_request, int recv_side) {
  if (__builtin_expect(mpi_outbox_pending != 0, 0))
    proto_removal_queued(pe, local_request, recv_side);
  else
    emx_invoke(pe, mpi_idx_remove, mpi_me | (unsigned)recv_side << 10, local_request);
}
/* Blocks the calling computation until every outbox of this PE is empty: its requests
 * have been invoked at their peers (creation.c). MPI_Barrier does it first, so that
 * receives posted before a barrier are in place at their senders after it. */
void proto_drain_wait(unsigned pe);
/* MPI_Irecv's C paths (a receive request that went to pe's outbox): wait until it is
 * invoked there (creation.c). */
void irecv_settle(unsigned pe);
/* MPI_Irecv's C paths: the same for request r (a named source, both sides). */
void irecv_settled_both(const mpi_request *r);
static inline void irecv_settled(const mpi_request *r) {
  if (mpi_matching == MATCH_BOTH) irecv_settled_both(r);
}
uintptr_t proto_direct_begin(unsigned pe, const mpi_request *r);
/* MPI_Isend's C paths (the paper's order, unless -mpi-option=local-isend): when the send
 * s put a creation into its receiver's outbox, the context to suspend on until that
 * outbox is empty (a pooled waiter, as proto_direct_begin's behind others); else
 * MPI_SUCCESS (creation.c). */
uintptr_t isend_settle(const mpi_request *s);
void proto_drain_all_wait(void);
static inline void proto_drain_all(void) {
  if (__builtin_expect(mpi_outbox_pending != 0, 0)) proto_drain_all_wait();
}
/* Nothing waits for pe in its outbox: a message sent now keeps the issue order. */
int proto_peer_quiet(unsigned pe);
void creation_init(void);

/* ---- Transfers (transfer.c) --------------------------------------------------------- */

/* One-sided send: writes n bytes from local src into buffer `dst` (a byte address on
 * PE pe, room for cap bytes), then the status into the receive request at `rreq` and
 * completes it: an I-structure write ordered after the data. Blocks (fences) if
 * transfer_paced(n): never call it from a handler then. */
int transfer_paced(uint32_t bytes);
/* put_message for an aligned message to another PE on EM-X, inline: the packets
 * themselves, in order (the memory unit performs them in arrival order, completion
 * last); a short one word by word, a longer one by the block-write loop. Then the status
 * as the paper's one-sided send: source and tag (srctag), the size, the completion (with
 * done-sized the size travels in the completion, DONE_SIZED). 0 if the message is not
 * such a one. */
enum { SHORT_WORDS = 8 }; /* beyond, the block-write loop is faster despite its call */
static inline int put_short(unsigned pe, uint32_t dst, uint32_t cap, emx_gaddr_t rreq,
                            const void *src, uint32_t n, uint32_t srctag) {
  if (!mpi_direct || n > cap || pe == mpi_me || ((dst | (uint32_t)(uintptr_t)src | n) & 3))
    return 0;
  const uint32_t *from = src;
  const emx_gaddr_t g = ((emx_gaddr_t)pe << EMX_GADDR_PE_SHIFT) | (dst >> 2);
  if (n <= 4 * SHORT_WORDS) {
    for (uint32_t k = 0; k < n / 4; ++k) emx_send(EMX_PKT_syswr, g + k, from[k]);
    emx_send(EMX_PKT_syswr, rreq + REQ_W_SRCTAG, srctag);
  } else { /* srctag first: kept across the call, it cost its callers two saved registers */
    emx_send(EMX_PKT_syswr, rreq + REQ_W_SRCTAG, srctag);
    emx_put(g, from, n / 4);
  }
  if (mpi_opt.done_sized) {
    emx_send(EMX_PKT_iwrite, rreq + REQ_W_DONE, DONE_SIZED + n);
  } else { /* the paper's: the status by remote write, then the completion flag */
    emx_send(EMX_PKT_syswr, rreq + REQ_W_BYTES, n);
    emx_send(EMX_PKT_iwrite, rreq + REQ_W_DONE, DONE_SET);
  }
  return 1;
}
void put_message(unsigned pe, uint32_t dst, uint32_t cap, emx_gaddr_t rreq, const void *src,
                 uint32_t n, uint32_t srctag);
/* Copies n bytes into a temporary buffer on PE pe, at the same offset modulo 4 as src
 * (tmp must have n + 8 bytes): returns where the data starts there. */
uint32_t put_covering(unsigned pe, uint32_t tmp, const void *src, uint32_t n);

/* Split-phase remote read of whole words by SYSRD: `words` words from global src into
 * local dst; done(arg) runs in the thread of the last reply. */
typedef void (*fetch_done_fn)(void *arg);
typedef struct fetch {
  uint32_t *dst;
  emx_gaddr_t src;
  uint32_t left;   /* words not yet asked for */
  uint32_t frames; /* frames waiting for replies */
  fetch_done_fn done;
  void *arg;
  struct fetch *next_waiting; /* in the queue of fetches waiting for a frame */
} fetch;
void fetch_start(fetch *f, uint32_t *dst, emx_gaddr_t src, uint32_t words, fetch_done_fn done,
                 void *arg);
void transfer_init(void);
/* Fetches by EM-X's block read (not per word: EM-X', EM-4, -mpi-option=fetch-per-word),
 * at most FETCH_BLOCK_WORDS a block. */
extern unsigned mpi_block_reads;
/* The memory unit's remote read (EM-X, not fetch-per-word): block reads or the SYSRD
 * stream; sreq.S's usual cases need it. */
extern unsigned mpi_direct_reads;
enum { FETCH_BLOCK_WORDS = 2048 };

/* ---- Matching (sender_match.c, receiver_match.c) ------------------------------------ */

extern kq_table mpi_isq_send, mpi_isq_recv;
void send_start(mpi_request *s); /* MPI_Isend and MPI_Start of a send */
/* send_start, then MPI_SUCCESS or, when the send created a request that MPI_Isend waits
 * for (isend_settle), the context to suspend on (for tail calls). */
uintptr_t send_start_ok(mpi_request *s);
/* MPI_Isend's short miss, both sides (send_miss.S): MPI_SUCCESS, or the context the
 * caller suspends on until its creation's operand segment comes (mpi_isend_end).
 * send_miss_at: MPI_Isend's lookup found no receive request filed under the key (looked:
 * put_to_posted_looked's), send_miss looks itself. */
uintptr_t send_miss(mpi_request *s);
uintptr_t send_miss_at(mpi_request *s, uint32_t looked);
/* The 6 bits of a send request: the protocol, and whether the data word is the data. */
enum { SREQ_PROTO = 3, SREQ_INLINE = 4 };
/* A buffered send whose receiver had no memory for it goes as sync (the receiver reads
 * it when matched); when a receive request of the receiver met it while it asked, the
 * consistency rule of buffered was applied already: this bit tells the receiver. */
enum { SREQ_FALLBACK = 8 };
/* A receive request is four words: its address, buffer, capacity, tag | context << 16.
 * Packed forms save packets and threads on the receives that programs post in advance
 * (the PE of the request is the packets' source, so its local word address of 22 bits
 * is enough):
 * - two words, as a 2-input thread invocation (inv2l, inv2r) into the frame that every
 *   PE keeps for each source (mpi_rreq_frames[source], slot context + 1): the memory
 *   unit holds the first word until the second comes, so the request is one thread, as
 *   EM-X's remote thread invocation with two arguments. For a word-aligned buffer of at
 *   most 4092 bytes, a tag below 1023 (or MPI_ANY_TAG), a context below 31, and the
 *   default frame size: the request | capacity in words << 22; the buffer's word
 *   address | tag << 22 (1023: MPI_ANY_TAG).
 * - RREQ_SHORT, three words, for a context below 1024 and a capacity below 64 KiB: the
 *   request | context << 22; the buffer; capacity | tag << 16. */
enum {
  RREQ_SHORT = 1,
  RREQ_SHORT_CTX = 1u << (32 - EMX_GADDR_PE_SHIFT),
  RREQ_PAIR_CTX = 31,
  RREQ_PAIR_WORDS = 1u << (32 - EMX_GADDR_PE_SHIFT),
  RREQ_PAIR_ANY = (1u << (32 - EMX_GADDR_PE_SHIFT)) - 1,
};
/* Frames for the two-word receive requests, by source PE, at the same address on every
 * PE. Used when mpi_rreq_pairs (the default frame size, and the PEs agree on the
 * address: rreq_pairs_agree). */
extern emx_static_frame_t *mpi_rreq_frames;
extern int mpi_rreq_pairs;
extern int mpi_rreq_by_creation; /* neither rreq-pairs nor staged records (irecv.S) */
void rreq_pairs_init(void);
void rreq_pairs_agree(void);
/* Whether a receive request (context, buffer address, capacity, tag or TAG_ANY16) goes
 * as a pair. */
static inline int rreq_pair_fits(uint32_t ctx, uint32_t buf, uint32_t cap, uint32_t tag) {
  return mpi_rreq_pairs && ctx < RREQ_PAIR_CTX && ((buf | cap) & 3) == 0 &&
         cap < 4 * RREQ_PAIR_WORDS && (tag < RREQ_PAIR_ANY || tag == TAG_ANY16);
}
/* Sends r's receive request as a pair (rreq_pair_fits). */
static inline void rreq_send_pair(const mpi_request *r) {
  const uint32_t tag = r->tag == TAG_ANY16 ? RREQ_PAIR_ANY : r->tag;
  const emx_gaddr_t slot = emx_gaddr(r->pe, &mpi_rreq_frames[mpi_me].slot[r->ctx]);
  emx_send(EMX_PKT_invoke2l, slot, ((uint32_t)(uintptr_t)&r->done >> 2) | r->capacity << 20);
  emx_send(EMX_PKT_invoke2r, slot,
           (uint32_t)(uintptr_t)r->buf >> 2 | tag << EMX_GADDR_PE_SHIFT);
}

/* A receive request filed on the sender's PE: the associative memory's items. */
typedef struct {
  kq_link link; /* first: the table's items are these links */
  emx_gaddr_t rreq;
  uint32_t buf, capacity;
} recv_record;
extern kq_table mpi_assoc;
extern mpi_pool mpi_recv_record_pool;
/* Receiver-side state that MPI_Irecv's usual case looks at (receiver_match.c). */
extern dl_list mpi_unexpected;
extern unsigned mpi_wild_pending;

/* The paper's fast case, inline in MPI_Isend and MPI_Send: the receive was posted in
 * advance and filed here, the message is short and aligned: remote writes straight into
 * the receive buffer and request, then tell the receiver to forget its issued request.
 * 0 if not this case (nothing was sent). */
static inline __attribute__((always_inline)) int put_to_posted_looked(unsigned pe, unsigned tag,
                                                                      unsigned ctx, const void *buf,
                                                                      uint32_t bytes, int leaf,
                                                                      uint32_t *looked) {
  /* leaf: only cases that need no call go this way (a function that calls saves
   * registers): a message for the word-by-word loop, a key that may go idle without a
   * sweep. Never with an MPI_ANY_TAG key to compare with. looked (or 0): set to the
   * key's bucket offset | 1 when no receive request is filed under the key (send_miss
   * need not look again), else 0. */
  if (looked) *looked = 0;
  if (mpi_matching != MATCH_BOTH || mpi_assoc.any_keys || (leaf && bytes > 4 * SHORT_WORDS) ||
      mpi_outbox_pending)
    return 0;
  const uint32_t pt = kq_pt(pe, tag);
  const unsigned h = kq_hash(pt, ctx);
  kq_key *key = kq_find_at(&mpi_assoc, h, pt, ctx);
  recv_record *rr = key ? (recv_record *)key->head : 0;
  if (!rr) {
    if (looked) *looked = h << 2 | 1;
    return 0;
  }
  if ((leaf && !rr->link.next && mpi_assoc.idle >= KQ_IDLE_MAX) ||
      !put_short(pe, rr->buf, rr->capacity, rr->rreq, buf, bytes, mpi_me | tag << 16))
    return 0;
  if (leaf) {
    key->head = rr->link.next; /* kq_pop of a concrete tag's key, known not to sweep */
    mpi_assoc.idle += key->head == 0;
  } else {
    kq_pop(&mpi_assoc, key);
  }
  COUNT(C_ONE_SIDED);
  emx_invoke(pe, mpi_idx_remove, mpi_me | 1u << 10, (rr->rreq & EMX_GADDR_LOCAL_MASK) << 2);
  pool_put(&mpi_recv_record_pool, rr);
  return 1;
}
static inline __attribute__((always_inline)) int put_to_posted(unsigned pe, unsigned tag,
                                                               unsigned ctx, const void *buf,
                                                               uint32_t bytes, int leaf) {
  return put_to_posted_looked(pe, tag, ctx, buf, bytes, leaf, 0);
}
/* put_to_posted for any size (its own function: it calls). */
int put_to_posted_any(unsigned pe, unsigned tag, unsigned ctx, const void *buf, uint32_t bytes);
void recv_start(mpi_request *r); /* MPI_Irecv and MPI_Start of a receive */
/* The send request of s leaves (it has a credit): sender_match.c. */
void send_request_issue(mpi_request *s, uint32_t data, unsigned bits);
/* Whether a receive in the posted list may take a message from pe (receiver_match.c). */
int posted_wants(unsigned pe);

/* ---- Flow control: credits for send requests (credits.c, docs/mpi-flow-control.md) */

void credits_init(void);
/* Sender: per receiver PE, the sends waiting (linked through their prq, which a send does
 * not use otherwise; their state in fix[], which only a receive's one-sided sender
 * writes) and the credits at hand. */
typedef struct {
  dl_list q;           /* sends waiting, in the order they started */
  dl_link *uncredited; /* the first of them without a credit (&q.head: none) */
  uint16_t credits;    /* credits at hand */
  uint16_t putting;    /* a computation writes the head's data (paced) */
} send_queue;
extern send_queue *mpi_send_queues;
/* A send's state in fix[0] while it waits (credits.c); the low byte its bits. */
enum {
  SQ_QUEUED = 1u << 8,   /* in its receiver's queue */
  SQ_CREDIT = 1u << 9,   /* holds a credit */
  SQ_TMP = 1u << 10,     /* buffered: the temporary buffer is asked for, not yet in */
  SQ_CROSSED = 1u << 11, /* buffered: a receive request met it (buffered's rule applied) */
  SQ_PUT = 1u << 12      /* buffered: the buffer is in (fix[1]), the data not written yet */
};
/* Takes a credit for s's receiver if it has one and nothing waits before s. */
static inline int sendq_credit_now(mpi_request *s) {
  send_queue *b = &mpi_send_queues[s->pe];
  if (b->q.head.next != &b->q.head || !b->credits) return 0;
  --b->credits;
  s->fix[0] = 0; /* not queued */
  return 1;
}
/* MPI_Isend's miss with matching on the receiver only (start_send, p2p.c): the usual
 * case, get or sync with a credit at hand, creates the send request by hand
 * (send_miss.S); anything else goes through send_start. Returns as send_miss. */
uintptr_t send_only(mpi_request *s);
/* Queues s (its send request's data word and bits) until it heads its receiver's queue
 * with a credit; tmp: buffered, its temporary buffer is asked for once it has one. */
void sendq_add(mpi_request *s, uint32_t data, unsigned bits, int tmp);
/* A receive request took s's request-issued entry: SQ_UNISSUED if s's send request had
 * not left (s is out of its queue now: send it one-sided, then sendq_resume), else
 * SQ_ISSUED (or a buffered send under way with its credit). */
enum { SQ_ISSUED, SQ_UNISSUED };
int sendq_dequeue(mpi_request *s);
static inline int sendq_crossed(mpi_request *s) {
  return s->fix[0] & SQ_QUEUED ? sendq_dequeue(s) : SQ_ISSUED;
}
void sendq_resume(unsigned pe);
/* MPI_Cancel of s: taken out of its queue (and the request-issued queue) if its send
 * request has not left and nothing was asked for it; 0 if not. */
int sendq_cancel(mpi_request *s);
/* A send request of ours that the receiver will drop (consistency rule): its credit. */
static inline void credit_reclaim(unsigned pe) {
  send_queue *b = &mpi_send_queues[pe];
  ++b->credits;
  if (__builtin_expect(b->q.head.next != &b->q.head, 0)) sendq_resume(pe);
}
/* Receiver: a send request of pe resolved on arrival (its credit goes back), filed as
 * unexpected (its credit stays with the record), its record matched later; a receive
 * waits in the posted list for pe (-1: any source). */
typedef struct {
  uint32_t held;   /* its send requests filed here as unexpected, each with its credit */
  uint32_t minted; /* credits granted beyond its share and not retired yet */
} sender_credits;
extern sender_credits *mpi_senders; /* by sender PE */
extern uint32_t mpi_held_total;     /* held, all senders */
extern unsigned mpi_idx_credit;
void credit_retire(unsigned pe);
static inline void credit_release(unsigned pe) {
  if (__builtin_expect(mpi_senders[pe].minted != 0, 0)) credit_retire(pe);
  else emx_invoke(pe, mpi_idx_credit, mpi_me, 1);
}
void credit_filed(unsigned pe);
void credit_matched(unsigned pe);
void credit_wanted_held(int pe);
static inline void credit_wanted(int pe) {
  if (__builtin_expect(mpi_held_total != 0, 0)) credit_wanted_held(pe);
}
/* Receiver: credits for receive requests (credits.c), per sender PE (a word each:
 * irecv.S takes one). A receive request costs its sender a record until the send comes;
 * the credit comes back with its request-issued entry (the removal after the one-sided
 * send, the send request that meets it, a cancel). A receive without one stays in the
 * posted list, held back (RF_HELD), and is issued when a credit comes, in posting order,
 * or matched here by the send request. Each receiver starts with a small share of the
 * sender's budget; one that runs out asks the sender for a batch from the rest (its
 * pool), and once none of its receives waits for that sender and its idle credits reach
 * the even share it gives back all but its initial share. */
extern uint32_t *mpi_rreq_credits;
extern uint32_t mpi_held_pending; /* posted receives held back (RF_HELD), for any reason */
extern uint32_t mpi_rreq_return_at; /* idle credits from which the extra goes back */
static inline int rreq_credit_take(unsigned pe) {
  uint32_t *c = &mpi_rreq_credits[pe];
  if (!*c) return 0;
  --*c;
  return 1;
}
/* MPI_Irecv asks the sender for more credits once it holds half its initial share: the
 * grant comes while its receives wait for their operand segments, so that a receiver
 * posting many does not run out (and hold receives back beyond its call) when it need
 * not. */
extern uint32_t mpi_rreq_ask_at;
void rreq_credit_ask(unsigned pe);
static inline void rreq_credit_low(unsigned pe) {
  if (mpi_rreq_credits[pe] <= mpi_rreq_ask_at) rreq_credit_ask(pe);
}
/* Issues the held receives for pe that credits allow; whether any still waits for pe. */
int release_held_for(unsigned pe);
/* Credits came to pe's account (back or granted): held receives first, the extra to the
 * pool. */
void rreq_credits_came(unsigned pe);
static inline void rreq_credit_back(unsigned pe) {
  const uint32_t c = ++mpi_rreq_credits[pe];
  if (__builtin_expect(mpi_held_pending != 0 || c >= mpi_rreq_return_at, 0)) rreq_credits_came(pe);
}
/* No credit for a receive request to pe while receives wait for one: ask pe's pool
 * (one request per sender at a time). */
void rreq_credit_ask(unsigned pe);
/* Issues the receive requests held back behind wildcard-source receives that are all
 * matched now (those with a credit). */
void release_held_requests(void);
/* Tells PE pe to drop the request at local address `request` there from its
 * request-issued queue of receive requests (recv_side) or send requests. */
void send_isq_removal(unsigned pe, uint32_t request, int recv_side);
void matching_init(void);
/* Probing: the oldest unexpected message matching (source PE or ANY, tag, ctx). */
int unexpected_probe(int src_pe, uint16_t tag, uint16_t ctx, MPI_Status *st, int base_pe);

/* Fields of a receive completed on this PE. */
void recv_finish(mpi_request *r, unsigned src_pe, unsigned tag, uint32_t bytes);
/* A completed request with RF_PACKED: unpacks `bytes` received bytes (pack.c). */
void pack_finish(mpi_request *r, uint32_t bytes);

/* ---- Communicators (comm.c) --------------------------------------------------------- */

/* The ranks of a communicator that is not a range of PEs (Comm_split, Comm_create,
 * Graph/Cart with reordering): rank -> PE and PE -> rank (-1: not a member). Shared by
 * the communicators made from one another (refs); such a communicator has base_pe
 * COMM_MAPPED and a context id of at least COMM_MAPPED_CTX. */
typedef struct comm_map {
  int refs, size;
  uint16_t *rank_pe;
  int16_t *pe_rank; /* [emx_pe_count()] */
} comm_map;
enum { COMM_MAPPED = 0xffff };
/* irecv.S (the hand-written MPI_Irecv) adds base_pe to the rank; it leaves every context
 * from RREQ_PAIR_CTX on to the C path, which translates: the mapped ones start there. */
enum { COMM_MAPPED_CTX = 32 };

typedef struct mpi_comm {
  uint16_t ctx;      /* point-to-point context; collectives use ctx + 1 */
  uint16_t base_pe;  /* rank r is PE base_pe + r (COMM_MAPPED: see map) */
  int size, rank;
  MPI_Errhandler errhandler;
  int topo;          /* MPI_CART, MPI_GRAPH or 0 */
  int ndims;
  int *dims, *periods;
  comm_map *map;     /* base_pe == COMM_MAPPED */
  int nnodes, *index, *edges; /* MPI_GRAPH (topology.c) */
  struct attr_node *attrs;    /* cached attributes (attributes.c) */
  char *name;                 /* MPI_Comm_set_name (malloc'ed), 0: none */
  struct intercomm *inter;    /* an intercommunicator (intercomm.c): size, map and the
                                 ranks of point to point are the remote group's */
} mpi_comm;
/* The PE of rank r (0 <= r < size) and the rank of PE pe in c (-1 if not a member). */
static inline unsigned comm_pe(const mpi_comm *c, int r) {
  return __builtin_expect(c->base_pe != COMM_MAPPED, 1) ? c->base_pe + (unsigned)r
                                                        : c->map->rank_pe[r];
}
static inline int comm_rank_of(const mpi_comm *c, unsigned pe) {
  if (c->base_pe != COMM_MAPPED) {
    const int r = (int)pe - c->base_pe;
    return r >= 0 && r < c->size ? r : -1;
  }
  return c->map->pe_rank[pe];
}
/* The source rank of a completed receive r (its status holds the source PE); no call,
 * so that the waits that use it stay leaf functions. */
static inline int req_source(const mpi_request *r) {
  if (__builtin_expect(r->base_pe != COMM_MAPPED, 1)) return (int)(r->srctag & 0xffff) - r->base_pe;
  return r->rank >= 0 ? r->rank : r->map->pe_rank[r->srctag & 0xffff];
}
/* A communicator of the PEs pes[0..n) (rank order), with proto's other fields, made by
 * every member of parent; members get it in *out, the others MPI_COMM_NULL. */
int comm_new_pes(const mpi_comm *proto, MPI_Comm parent, const uint16_t *pes, int n,
                 MPI_Comm *out);
void comm_map_unref(comm_map *m);
/* comm_new_pes with the context id ctx agreed by the caller (intercomm.c: over two
 * groups) and rank `rank` (-1: this PE's place in pes). comm_inter_begin returns this PE's
 * next free intercommunicator context id (the upper half of the ids), comm_inter_end
 * marks ids up to ctx + 1 used (ctx < 0: none); -1 if one is already being agreed on
 * this PE (comm.c). */
int comm_make_pes(const mpi_comm *proto, MPI_Comm parent, const uint16_t *pes, int n, int rank,
                  uint16_t ctx, MPI_Comm *out);
int comm_inter_begin(void);
void comm_inter_end(int ctx);
/* Intercommunicators (intercomm.c). */
int inter_local_size(const mpi_comm *c);
int inter_dup(MPI_Comm comm, const mpi_comm *c, MPI_Comm *newcomm);
int inter_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm); /* MPI-2 */
void inter_free(struct intercomm *ic);
MPI_Comm inter_local(const mpi_comm *c); /* its own group's communicator */
int group_of_pes(const char *fn, const uint16_t *pes, int n, MPI_Group *out); /* groups.c */
void comm_pes(const mpi_comm *c, uint16_t *pes); /* its PEs in rank order */
mpi_comm comm_plain_proto(const mpi_comm *c);   /* its fields without topology, attributes */
/* Attributes (attributes.c): copies for MPI_Comm_dup, deletion at MPI_Comm_free. */
int attrs_copy(MPI_Comm oldcomm, const mpi_comm *from, mpi_comm *to);
int attrs_delete_all(MPI_Comm comm, mpi_comm *c);
/* Calls the communicator's user error handler, if it has one (errors.c). */
int errhandler_call(MPI_Comm comm, const mpi_comm *c, int code);
extern mpi_comm **mpi_comm_table; /* by handle; 0 entries before MPI_Init and after */
extern int mpi_comm_count;          /* MPI_Finalize */
mpi_comm *comm_get(MPI_Comm c);     /* NULL if not a valid communicator */
/* A new communicator like proto with a fresh context id, agreed over `parent` (all its
 * members call this; those that are not members of the new one get MPI_COMM_NULL). */
int comm_new(const mpi_comm *proto, MPI_Comm parent, int member, MPI_Comm *out);
void comm_init(void);

/* ---- Datatypes and operations (datatypes.c, ops.c) ---------------------------------- */

int type_size(MPI_Datatype t); /* bytes, -1 if not a valid datatype, TYPE_HUGE: > INT_MAX */
enum { TYPE_HUGE = -2 };
/* The basic type t repeats, and how many of it one element of t holds; 0 if invalid. */
int type_base(MPI_Datatype t, int *elements);
int op_valid(MPI_Op op);
int op_commutative(MPI_Op op);
/* inout[i] = in[i] op inout[i] for n elements of type t, both in packed form (the user's
 * form for a contiguous type); MPI_SUCCESS or an error (n = 0: is op defined on t). */
int op_apply(MPI_Op op, const void *in, void *inout, int n, MPI_Datatype t);

/* ---- Errors (errors.c) -------------------------------------------------------------- */

/* Reports an error of `fn` (e.g. "MPI_Send"): under MPI_ERRORS_ARE_FATAL prints rank,
 * function and reason and aborts every rank; under MPI_ERRORS_RETURN returns code. */
int mpi_error(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void mpi_internal_error(const char *what) __attribute__((noreturn));
extern int mpi_initialized, mpi_finalized;
#define MPI_REQUIRE_INIT(fn)                                                            \
  do {                                                                                  \
    if (!mpi_initialized || mpi_finalized)                                              \
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_OTHER, fn,                               \
                       mpi_finalized ? "called after MPI_Finalize" : "called before MPI_Init"); \
  } while (0)

/* ---- Point to point inside the library (p2p.c, wait.c) ------------------------------- */

/* Requests without argument checks, on context ctx (a communicator's own, or its
 * collective context ctx + 1). rank may be MPI_PROC_NULL, and MPI_ANY_SOURCE for
 * receives; tag TAG_ANY16 for receives. */
mpi_request *post_send(const mpi_comm *c, uint16_t ctx, const void *buf, uint32_t bytes,
                       int rank, int tag, int proto);
mpi_request *post_recv(const mpi_comm *c, uint16_t ctx, void *buf, uint32_t bytes, int rank,
                       int tag);
/* Blocks until r completes, fills *st (may be NULL), releases a non-persistent request
 * and returns its error (MPI_ERR_TRUNCATE) without reporting it. */
int wait_request(mpi_request *r, MPI_Status *st);
/* MPI_Wait, reporting errors as `fn` (MPI_Recv waits through it). */
int wait_named(MPI_Request *request, MPI_Status *status, const char *fn);
/* wait_named up to a suspension that the caller makes (mpi.h): the error code (< 4096),
 * or the context to suspend on. */
uintptr_t wait_begin(MPI_Request *request, MPI_Status *status, const char *fn);
/* ... and after the suspension: finishes the request with the value read. */
int wait_end(MPI_Request *request, MPI_Status *status, uint32_t value, const char *fn);
/* "message of N bytes truncated to ..." for a status with MPI_ERR_TRUNCATE (wait.c). */
const char *truncation_message(const MPI_Status *st);

/* Argument checks: MPI_SUCCESS or the error already reported (mpi_error). */
int check_comm(MPI_Comm comm, const char *fn, mpi_comm **out);
/* check_comm, and not an intercommunicator (collectives, communicator constructors). */
int check_intra(MPI_Comm comm, const char *fn, mpi_comm **out);
int check_buffer(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype type,
                 int writable, uint32_t *bytes);

#endif
