/* Moving message data: the one-sided send (remote writes straight into the receive
 * buffer, then the status, then completion through the receive request's I-structure)
 * and the receiver's remote read of a send buffer: by SYSRDs replying as remote writes
 * (EM-X, the hardware's read), by block remote reads of the sender's memory unit (EM-X,
 * -mpi-option=block-read), or by a SYSRD per word whose reply is a thread (EM-X',
 * EM-4, and -mpi-option=fetch-per-word). At most FRAMES_MAX frames of either kind are in
 * flight per PE (flow control, docs/mpi-flow-control.md). */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* ---- Remote writes ------------------------------------------------------------------ */

/* A message of n bytes at byte address dst: `head` bytes up to the first word boundary,
 * `mid` whole words, `tail` bytes after them. Remote writes move whole words, so only the
 * middle can go straight into the buffer; the partial words would overwrite the
 * neighbours of the buffer. */
typedef struct {
  uint32_t head, mid, tail;
} split_t;
static split_t split(uint32_t dst, uint32_t n) {
  uint32_t head = (4 - (dst & 3)) & 3;
  if (head > n) head = n;
  const uint32_t mid = (n - head) / 4;
  return (split_t){head, mid, n - head - 4 * mid};
}

/* On EM-X' and EM-4 every remote write is a handler thread at the receiver, and a long
 * stream of them overflows its input buffer (docs/pe.md): there a long message goes in
 * chunks, each behind a fence (a remote read that returns when the writes before it are
 * done). EM-X's memory unit takes writes at the link's rate: no pacing. */
enum { PACE_WORDS = 1024 };
int transfer_paced(uint32_t bytes) {
  return !(emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) && bytes > 4 * PACE_WORDS;
}

static void put_chunk(emx_gaddr_t dst, const char *src, uint32_t words) {
  if (((uintptr_t)src & 3) == 0) {
    emx_put(dst, src, words);
    return;
  }
  uint32_t bounce[64]; /* a source that is not word aligned */
  for (uint32_t done = 0; done < words; done += 64) {
    const uint32_t m = words - done < 64 ? words - done : 64;
    memcpy(bounce, src + 4 * done, 4 * m);
    emx_put(dst + done, bounce, m);
  }
}

static void put_words(emx_gaddr_t dst, const char *src, uint32_t words) {
  if (!transfer_paced(4 * words)) {
    put_chunk(dst, src, words);
    return;
  }
  for (uint32_t done = 0; done < words; done += PACE_WORDS) {
    const uint32_t m = words - done < PACE_WORDS ? words - done : PACE_WORDS;
    put_chunk(dst + done, src + 4 * done, m);
    emx_fence(emx_gaddr_pe(dst));
  }
}

void put_message(unsigned pe, uint32_t dst, uint32_t cap, emx_gaddr_t rreq, const void *src,
                 uint32_t n, uint32_t srctag) {
  if (put_short(pe, dst, cap, rreq, src, n, srctag)) return;
  const uint32_t w = n < cap ? n : cap; /* never past the receive buffer */
  const split_t s = split(dst, w);
  const char *from = src;
  if (s.mid) put_words(emx_gaddr(pe, (void *)(uintptr_t)(dst + s.head)), from + s.head, s.mid);
  emx_write(rreq + REQ_W_SRCTAG, srctag);
  emx_write(rreq + REQ_W_BYTES, n);
  if (s.head | s.tail) {
    /* The partial words travel in the request; a handler there puts their bytes in
     * place and completes the request. */
    uint32_t fix[2] = {0, 0};
    memcpy(&fix[0], from, s.head);
    memcpy(&fix[1], from + s.head + 4 * s.mid, s.tail);
    emx_write(rreq + REQ_W_FIX, fix[0]);
    emx_write(rreq + REQ_W_FIX + 1, fix[1]);
    void mpi_h_fixup(uint32_t, uint32_t, uint32_t);
    EMX_HANDLER_DECLARE(mpi_h_fixup);
    EMX_INVOKE(pe, mpi_h_fixup, 0, (uint32_t)(uintptr_t)emx_gaddr_local(rreq));
  } else {
    /* Ordered after the data on every variant: on EM-X' and EM-4 the writes are handler
     * threads, and so is this flag (emx_iwrite_flag). */
    emx_iwrite_flag(rreq + REQ_W_DONE, 1);
  }
}

void mpi_h_fixup(uint32_t request, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  mpi_request *r = (mpi_request *)(uintptr_t)request;
  const uint32_t w = r->bytes < r->capacity ? r->bytes : r->capacity;
  char *buf = r->buf;
  const split_t s = split((uint32_t)(uintptr_t)buf, w);
  memcpy(buf, &r->fix[0], s.head);
  memcpy(buf + s.head + 4 * s.mid, &r->fix[1], s.tail);
  req_complete(r);
}
EMX_HANDLER(mpi_h_fixup);

int put_to_posted_any(unsigned pe, unsigned tag, unsigned ctx, const void *buf, uint32_t bytes) {
  return put_to_posted(pe, tag, ctx, buf, bytes, 0);
}

uint32_t put_covering(unsigned pe, uint32_t tmp, const void *src, uint32_t n) {
  const uint32_t off = (uintptr_t)src & 3;
  const uint32_t words = (off + n + 3) / 4;
  /* Reading the whole words around the message is harmless; writing them is not, hence
   * the receiver's buffer of n + 8 bytes. */
  const emx_gaddr_t g = emx_gaddr(pe, (void *)(uintptr_t)tmp);
  const uint32_t *from = (const uint32_t *)(uintptr_t)((uintptr_t)src - off);
  if (words <= SHORT_WORDS && pe != mpi_me) { /* short: the remote writes inline */
    for (uint32_t k = 0; k < words; ++k) emx_send(EMX_PKT_syswr, g + k, from[k]);
    return tmp + off;
  }
  put_words(g, (const char *)from, words);
  return tmp + off;
}

/* ---- Remote reads ------------------------------------------------------------------- */

/* ---- Remote read of a SYSRD per word ----
 * Each word's reply is a thread in a fetch frame whose slot k stands for word k-1 of the
 * frame's chunk; replies leave their slot word alone, so slots 1..3 also hold the
 * bookkeeping (as emx_get_async does). A fetch keeps WINDOW frames of up to CHUNK words
 * in flight and reuses a frame for the next chunk when its last word is in. The
 * receiver's execution unit, one thread per word, is the bottleneck. Measured (64 KiB,
 * EM-X): 4 x 31 words in flight, 2.42 MB/s, although most replies spill from the on-chip
 * input buffer; 2 x 4 (no spills) 1.83 MB/s, 2 x 8 2.03, 8 x 31 2.33: with few reads in
 * flight the reissue of a frame waits for a round trip. */
enum { F_DELTA = 1, F_FETCH = 2, F_LEFT = 3, WINDOW = 4, CHUNK = 31 };
static emx_thread_fn *fetch_tmpl;
static uint32_t frame_slots;

static void fetch_issue(fetch *x, uint32_t *f) {
  const uint32_t m = x->left < frame_slots ? x->left : frame_slots;
  f[F_DELTA] = (uint32_t)(uintptr_t)x->dst - (uint32_t)(uintptr_t)&f[1];
  f[F_FETCH] = (uint32_t)(uintptr_t)x;
  f[F_LEFT] = m;
  const emx_gaddr_t cont = emx_gaddr_mine(f);
  for (uint32_t k = 1; k <= m; ++k) emx_send(EMX_PKT_sysrd, x->src + k - 1, cont + k);
  x->dst += m;
  x->src += m;
  x->left -= m;
  ++x->frames;
}

static inline void frame_returned(uint32_t *f);

static void fetch_store(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused;
  uint32_t *f = emx_frame();
  /* cont << 10 >> 8: the slot's local byte address (the PE field shifted out). */
  *(uint32_t *)(uintptr_t)(f[F_DELTA] + ((cont << 10) >> 8)) = value;
  if (--f[F_LEFT]) return; /* the common case */
  fetch *x = (fetch *)(uintptr_t)f[F_FETCH];
  --x->frames;
  if (x->left) {
    fetch_issue(x, f);
    return;
  }
  frame_returned(f);
  if (x->frames == 0) --mpi_inbound, x->done(x->arg);
}

/* ---- Block remote read (EM-X, -mpi-option=block-read: our packet, docs/pe.md) -------
 * The data come as remote writes, one word per link slot, no thread on either side; each
 * block's completion is an I-structure write behind its last word, for which a reader
 * waits with a continuation into the fetch's frame: frame words E0, E1 are the elements of
 * the (at most) two blocks in flight, slots 1 and 2 their continuations. A block is at
 * most BLOCK words, so the sender's memory unit and output port interleave other
 * packets between blocks; two in flight keep the link busy across the round trip. Only
 * the completions are threads here, but a fetch's frame is heap memory and a flood of
 * unexpected get messages would start hundreds at once (memory the library chose to
 * use, beyond the reserve): block fetches take their frame under FRAMES_MAX too. */
enum { B_FETCH = 1, B_E0 = 3, BLOCK = FETCH_BLOCK_WORDS };
unsigned mpi_block_reads, mpi_direct_reads;
static emx_thread_fn *block_tmpl;
static emx_thread_fn *stream_tmpl;
static int fetch_by_sysrd; /* EM-X without -mpi-option=block-read or fetch-per-word */

static inline __attribute__((always_inline)) void block_issue(fetch *x, uint32_t *f,
                                                              unsigned k) {
  const uint32_t m = x->left < BLOCK ? x->left : BLOCK;
  const emx_gaddr_t e = emx_gaddr_mine(&f[B_E0 + k]);
  emx_read_block(emx_gaddr_mine(x->dst), x->src, m, e);
  /* The continuation reads the element (an I-structure read from here: either order of
   * it and the completion's write is right), after the read is on its way. */
  emx_send(EMX_PKT_iread, e, emx_gaddr_mine(&f[1 + k]));
  x->dst += m;
  x->src += m;
  x->left -= m;
  ++x->frames;
}

static void block_arrived(uint32_t words, uint32_t unused, uint32_t cont) {
  (void)words, (void)unused;
  uint32_t *f = emx_frame();
  fetch *x = (fetch *)(uintptr_t)f[B_FETCH];
  --x->frames; /* (counts blocks in flight here) */
  if (x->left) {
    /* cont << 10 >> 8: the slot's local byte address; slot 1 or 2 names the element. */
    block_issue(x, f, (uint32_t)(((cont << 10) >> 8) - (uint32_t)(uintptr_t)&f[1]) / 4);
    return;
  }
  if (x->frames) return;
  frame_returned(f);
  --mpi_inbound;
  x->done(x->arg);
}

static int fetch_by_blocks(void) { return mpi_block_reads; }

/* ---- Remote read by a stream of SYSRDs (EM-X: the default) ----------------------------
 * EM-X's SYSRD as its hardware is described: the sender's memory unit reads one word per
 * request and replies either to a continuation or as a remote write to the global address
 * the request carries (sysrdw, docs/pe.md). The receiver's loop asks for every word but a
 * chunk's last by a sysrdw whose reply goes straight into the receive buffer (no thread
 * on either side; emx_read_words), two instructions a word as the block-send loop; the last word's
 * plain SYSRD replies to a continuation into the fetch's frame, behind the chunk's words
 * (one memory unit, one path: FIFO), and that thread stores it. Frames as the block
 * read's: two chunks in flight, the frame's words E0, E1 their last words' destinations. */
/* A chunk: whole turns of the loop, and the last word. */
enum { STREAM = 64 * 32 + 1 };
static void stream_issue(fetch *x, uint32_t *f, unsigned k) {
  const uint32_t m = x->left < STREAM ? x->left : STREAM;
  emx_read_words(emx_gaddr_mine(x->dst), x->src, m - 1);
  f[B_E0 + k] = (uint32_t)(uintptr_t)(x->dst + m - 1);
  emx_send(EMX_PKT_sysrd, x->src + m - 1, emx_gaddr_mine(&f[1 + k]));
  x->dst += m;
  x->src += m;
  x->left -= m;
  ++x->frames;
}

static void stream_arrived(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused;
  uint32_t *f = emx_frame();
  fetch *x = (fetch *)(uintptr_t)f[B_FETCH];
  /* cont << 10 >> 8: the slot's local byte address; slot 1 or 2 names the chunk. */
  const unsigned k = (uint32_t)(((cont << 10) >> 8) - (uint32_t)(uintptr_t)&f[1]) / 4;
  *(uint32_t *)(uintptr_t)f[B_E0 + k] = value;
  --x->frames;
  if (x->left) {
    stream_issue(x, f, k);
    return;
  }
  if (x->frames) return;
  frame_returned(f);
  --mpi_inbound;
  x->done(x->arg);
}

/* ---- Frames in flight over all fetches, of both kinds, are bounded ----
 * Every per-word reply and every block's completion is a thread packet in this PE's
 * input buffer, each frame heap memory, and hundreds of messages fetched at once (a
 * flood of unexpected sends under get) would overflow the input buffer's spill area.
 * A fetch that finds no frame free waits, in order, for the next frame given back. A
 * block fetch takes one frame (its blocks in flight, at most two), a per-word fetch up
 * to WINDOW. */
enum { FRAMES_MAX = 16 };
static uint32_t frames_out;
static fetch *waiting_head, *waiting_tail;
/* One frame reserved at MPI_Init, so that a matched message is read even when the program
 * has used up its memory (the runtime carves frames from the heap): taken when the pool is
 * empty and the heap has no room for a batch, given back by the next fetch that ends. */
static uint32_t *spare_frame;

/* A frame for a fetch, or 0: none now (the fetch waits for one to come back: the spare
 * is out, so a fetch holds a frame). */
static uint32_t *__attribute__((noinline)) frame_take(const emx_thread_fn *tmpl) {
  if (!__emx_frame_pool) {
    void *probe = malloc(2 * 2048 + 256); /* room for a batch of frames (frames.c) */
    if (probe) {
      free(probe);
    } else {
      uint32_t *f = spare_frame;
      if (f) {
        spare_frame = 0;
        f[0] = (uint32_t)(uintptr_t)tmpl;
      }
      return f;
    }
  }
  return emx_frame_alloc(tmpl);
}

/* Inline in fetch_start: a short message's fetch is one function. */
static inline __attribute__((always_inline)) void fetch_grant(fetch *x) {
  if (fetch_by_sysrd) {
    uint32_t *fr;
    if (frames_out < FRAMES_MAX && (fr = frame_take(stream_tmpl))) {
      ++frames_out;
      fr[B_FETCH] = (uint32_t)(uintptr_t)x;
      for (unsigned k = 0; k < 2 && x->left; ++k) stream_issue(x, fr, k);
    }
  } else if (fetch_by_blocks()) {
    uint32_t *fr;
    if (frames_out < FRAMES_MAX && (fr = frame_take(block_tmpl))) {
      ++frames_out;
      fr[B_FETCH] = (uint32_t)(uintptr_t)x;
      for (unsigned k = 0; k < 2 && x->left; ++k) block_issue(x, fr, k);
    }
  } else {
    uint32_t *fr;
    while (x->frames < WINDOW && x->left && frames_out < FRAMES_MAX &&
           (fr = frame_take(fetch_tmpl))) {
      ++frames_out;
      fetch_issue(x, fr);
    }
  }
  if (x->left && x->frames == 0) {
    x->next_waiting = 0;
    if (waiting_tail) waiting_tail->next_waiting = x;
    else waiting_head = x;
    waiting_tail = x;
  }
}

static void __attribute__((noinline)) grant_waiting(void) {
  fetch *w = waiting_head;
  waiting_head = w->next_waiting;
  if (!waiting_head) waiting_tail = 0;
  fetch_grant(w);
}

/* A frame is back (kept as the spare if that is out): the usual case (nobody waits)
 * calls nothing. */
static inline void frame_returned(uint32_t *f) {
  if (__builtin_expect(spare_frame != 0, 1)) emx_frame_free(f);
  else spare_frame = f;
  --frames_out;
  if (__builtin_expect(waiting_head != 0, 0)) grant_waiting();
}

static void __attribute__((noinline)) fetch_general(fetch *f) {
  if (f->left == 0 || emx_gaddr_is_local(f->src)) {
    memcpy(f->dst, emx_gaddr_local(f->src), 4 * f->left);
    --mpi_inbound;
    f->done(f->arg);
    return;
  }
  fetch_grant(f);
}

void fetch_start(fetch *f, uint32_t *dst, emx_gaddr_t src, uint32_t words, fetch_done_fn done,
                 void *arg) {
  ++mpi_inbound; /* until it is done (a test waits for it) */
  mpi_counters[C_FETCHED_WORDS] += words;
  /* The usual case, one block from another PE with a frame at hand, calls nothing; the
   * read leaves first, the fetch's state (as block_issue leaves it) is written after. */
  if (__builtin_expect(words - 1 < BLOCK && !emx_gaddr_is_local(src) && fetch_by_blocks() &&
                           frames_out < FRAMES_MAX && __emx_frame_pool,
                       1)) {
    ++frames_out;
    uint32_t *fr = emx_frame_alloc(block_tmpl);
    const emx_gaddr_t e = emx_gaddr_mine(&fr[B_E0]);
    emx_read_block(emx_gaddr_mine(dst), src, words, e);
    emx_send(EMX_PKT_iread, e, emx_gaddr_mine(&fr[1])); /* (as block_issue) */
    fr[B_FETCH] = (uint32_t)(uintptr_t)f;
    *f = (fetch){dst + words, src + words, 0, 1, done, arg, 0};
    return;
  }
  *f = (fetch){dst, src, words, 0, done, arg, 0};
  fetch_general(f);
}

void transfer_init(void) {
  const unsigned words = emx_frame_words();
  fetch_tmpl = malloc(words * sizeof *fetch_tmpl);
  if (!fetch_tmpl) mpi_internal_error("no memory for the fetch template");
  fetch_tmpl[0] = 0;
  for (unsigned k = 1; k < words; ++k) fetch_tmpl[k] = fetch_store;
  frame_slots = words - 1 < CHUNK ? words - 1 : CHUNK;
  const int direct = (emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) && !mpi_opt.fetch_per_word;
  mpi_direct_reads = direct;
  fetch_by_sysrd = direct && !mpi_opt.block_read;
  mpi_block_reads = direct && mpi_opt.block_read;
  /* One two-chunk template, of the read in use (init memory); the spare frame's template
   * is set when it is taken. */
  emx_thread_fn *const two = calloc(words, sizeof *two);
  if (!two) mpi_internal_error("no memory for the fetch template");
  two[1] = two[2] = fetch_by_sysrd ? stream_arrived : block_arrived;
  if (fetch_by_sysrd) stream_tmpl = two;
  else block_tmpl = two;
  spare_frame = emx_frame_alloc(two);
}
