/* The parts of copies and atomics that run on another rank, in special-handler threads.
 * A special packet has room for one word and 16 bits, so the request carries the global
 * address of the origin's descriptor and the handler fetches it (one round trip of
 * split-phase reads): nothing is set aside per peer on either side. */
#include <string.h>

#include "acp_internal.h"

void acp__done_after(unsigned pe, int partial, emx_gaddr_t cont) {
  if (pe == emx_pe_id()) emx_send(EMX_PKT_invoke1, cont, 0);
  else if (partial) emx_after_writes(pe, cont); /* a handler thread behind the byte threads */
  else emx_read_async(emx_gaddr(pe, &__emx_fence_word), cont); /* memory unit, in order */
}

static void push(const acp_desc *d);
static void atomic_here(const acp_desc *d);

/* A request from another rank: data = its descriptor's global address, arg16 = how many
 * words of it to fetch (a copy needs fewer than an atomic). */
static void acp_h_request(uint32_t desc_at, uint32_t words, uint32_t addr) {
  (void)addr;
  acp_desc d;
  emx_get(&d, desc_at, words);
  if (d.kind == K_COPY) push(&d);
  else atomic_here(&d);
}
EMX_HANDLER(acp_h_request);

/* Is the range registered here? If not (and errors return), the request completes
 * without touching memory, so that the origin does not wait for ever. */
static int check_here(const char *what, const acp_desc *d, acp_ga_t ga, uint32_t size) {
  if (acp__region_holds(ga_slot(ga), ga_addr(ga), size)) return 1;
  acp__error(what, "rank %u asked for %u bytes at %#x of registration %u, which is not "
             "(or no longer) registered there", (unsigned)d->origin, (unsigned)size,
             (unsigned)ga_addr(ga), ga_slot(ga));
  emx_send(EMX_PKT_invoke1, d->cont, 0);
  return 0;
}

/* ---- A copy the source pushes ---- */

static void push(const acp_desc *d) {
  if (!check_here("acp_copy (source rank)", d, d->src, d->size)) return;
  const unsigned dpe = ga_pe(d->dst);
  acp__done_after(dpe, emx_put_bytes_paced(dpe, ga_ptr(d->dst), ga_ptr(d->src), d->size),
                  d->cont);
}

int acp__remote_copy_in_software;

/* Can the source's memory unit move it? Whole words only (a SYSWR writes a word: the
 * bytes beside a partial first or last word belong to others), on EM-X. */
static int by_memory_unit(const acp_desc *d) {
  return !acp__remote_copy_in_software &&
         (emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) &&
         ((ga_addr(d->src) | ga_addr(d->dst) | d->size) & 3) == 0 &&
         d->size / 4 <= EMX_GADDR_LOCAL_MASK;
}

/* Remote-to-remote. On EM-X, whole words: one block read by the source's memory unit
 * into the destination, whose completion goes to the destination behind the data and
 * answers the origin from there (emx_move_block: packets rdb + rdbf, no thread but the
 * origin's event). The source's registration is not checked then (docs/acp.md).
 * Otherwise in software: a request to the source (1 packet), the descriptor fetched from
 * the origin (a round trip), the data from the source to the destination, and the
 * completion: a read behind the data from destination to origin. */
void acp__move_remote(const acp_desc *d, emx_gaddr_t desc_at) {
  if (by_memory_unit(d)) {
    emx_move_block(emx_gaddr_make(ga_pe(d->dst), ga_addr(d->dst) >> 2),
                   emx_gaddr_make(ga_pe(d->src), ga_addr(d->src) >> 2), d->size / 4, d->cont);
    return;
  }
  /* (Also a long put from here on EM-X' and EM-4: the handler may block between chunks,
   * acp_copy and the completion thread must not.) */
  EMX_INVOKE(ga_pe(d->src), acp_h_request, DESC_COPY_WORDS, desc_at);
}

/* ---- Atomics ---- */

static uint64_t apply(uint32_t kind, uint64_t old, uint64_t a, uint64_t b) {
  switch (kind) {
    case K_ADD: return old + a;
    case K_SWAP: return a;
    case K_AND: return old & a;
    case K_OR: return old | a;
    case K_XOR: return old ^ a;
    case K_CAS: return old == a ? b : old;
  }
  return old;
}

static void atomic_here(const acp_desc *d) {
  if (!check_here("acp atomic (target rank)", d, d->src, d->size)) return;
  /* No suspension between the read and the write: this thread is not interrupted. */
  uint64_t old;
  if (d->size == 4) {
    volatile uint32_t *w = ga_ptr(d->src);
    old = *w;
    *w = (uint32_t)apply(d->kind, old, d->a, d->b);
  } else {
    volatile uint32_t *w = ga_ptr(d->src); /* 4-aligned: two words, low first */
    old = w[0] | (uint64_t)w[1] << 32;
    const uint64_t v = apply(d->kind, old, d->a, d->b);
    w[0] = (uint32_t)v;
    w[1] = (uint32_t)(v >> 32);
  }
  const unsigned dpe = ga_pe(d->dst);
  acp__done_after(dpe, emx_put_bytes(dpe, ga_ptr(d->dst), &old, d->size), d->cont);
}

void acp__atomic(const acp_desc *d, emx_gaddr_t desc_at) {
  if (ga_pe(d->src) == emx_pe_id()) atomic_here(d);
  else EMX_INVOKE(ga_pe(d->src), acp_h_request, DESC_WORDS, desc_at);
}
