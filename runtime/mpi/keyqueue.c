/* Keyed FIFO queues: the associative memory of receive requests on the sender's PE and
 * the request-issued queues (mpi_internal.h). A hash table of keys (peer, tag, context),
 * each key with the FIFO of its items: MPI's order holds among requests with the same
 * key, and `seq` (the insertion order over the whole table) decides between the FIFO of
 * a concrete tag and that of MPI_ANY_TAG. The common lookup (a concrete tag, no
 * MPI_ANY_TAG item in the table) is one hash and usually one comparison.
 *
 * A key whose FIFO empties stays in its chain, idle (no head): the next item is nearly
 * always for the same peer, tag and context again, and then finds its key without an
 * allocation or a chain update. Beyond KQ_IDLE_MAX idle keys the table drops them all,
 * so that programs with many tags do not fill memory with keys. */
#include "mpi_internal.h"

static mpi_pool key_pool = {.cell_bytes = sizeof(kq_key)};

/* a is older than b (seq wraps around). */
static inline int older(const kq_link *a, const kq_link *b) {
  return (int32_t)(a->seq - b->seq) < 0;
}

kq_key *kq_push(kq_table *t, uint32_t pt, uint32_t ctx, kq_link *item) {
  if (!kq_find(t, pt, ctx)) {
    kq_key *k = pool_get(&key_pool);
    k->pt = pt;
    k->ctx = ctx;
    k->head = 0;
    kq_key **b = &t->bucket[kq_hash(pt, ctx)];
    k->chain = *b;
    k->pprev = b;
    if (*b) (*b)->pprev = &k->chain;
    *b = k;
    ++t->idle;
  }
  return kq_push_inline(t, pt, ctx, item);
}

static void drop_key(kq_key *k) {
  *k->pprev = k->chain;
  if (k->chain) k->chain->pprev = k->pprev;
  pool_put(&key_pool, k);
}

void kq_sweep(kq_table *t) {
  for (unsigned b = 0; b < KQ_BUCKETS; ++b)
    for (kq_key *k = t->bucket[b], *next; k; k = next) {
      next = k->chain;
      if (!k->head) drop_key(k);
    }
  t->idle = 0;
}

void kq_key_emptied(kq_table *t, kq_key *k) {
  if (kq_pt_tag(k->pt) == TAG_ANY16) --t->any_keys;
  if (++t->idle > KQ_IDLE_MAX) kq_sweep(t);
}

kq_link *kq_match(const kq_table *t, uint32_t pt, uint32_t ctx, kq_key **found) {
  kq_key *best = 0;
  if (kq_pt_tag(pt) != TAG_ANY16) {
    best = kq_find(t, pt, ctx);
    if (best && !best->head) best = 0;
    if (t->any_keys) {
      kq_key *any = kq_find(t, kq_pt(kq_pt_peer(pt), TAG_ANY16), ctx);
      if (any && any->head && (!best || older(any->head, best->head))) best = any;
    }
  } else {
    /* Rare (a receive request for MPI_ANY_TAG meeting issued send requests): every key
     * of this peer and context. */
    for (unsigned b = 0; b < KQ_BUCKETS; ++b)
      for (kq_key *k = t->bucket[b]; k; k = k->chain)
        if (k->head && kq_pt_peer(k->pt) == kq_pt_peer(pt) && k->ctx == ctx &&
            (!best || older(k->head, best->head)))
          best = k;
  }
  *found = best;
  return best ? best->head : 0;
}
