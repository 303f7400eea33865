/* Fixed-size cells from free lists: requests, receive-request records, unexpected
 * messages, keys. Carved from malloc in batches (2 KiB, less on small memories) and never
 * given back, as the original
 * kept its request objects in a free list (a few instructions to take one; the fast
 * path is inline in mpi_internal.h). */
#include <stdlib.h>

#include "mpi_internal.h"

enum { BATCH_BYTES = 2048, MAX_POOLS = 12 };
static mpi_pool *pools[MAX_POOLS];
static unsigned npools;

void pool_register(mpi_pool *p) {
  if (npools < MAX_POOLS) pools[npools++] = p;
}

void *pool_refill(mpi_pool *p) {
  if (!p->made) pool_register(p);
  const uint32_t size = (p->cell_bytes + 7) & ~7u;
  /* Batches are never given back: at most 1/512 of local memory each (1 KiB on EM-4's
   * 512 KiB, whose heap beside a program's data is small). */
  const uint32_t small = emx_mem_bytes() / 512 < BATCH_BYTES ? emx_mem_bytes() / 512 : BATCH_BYTES;
  const uint32_t batch_bytes = p->batch_bytes ? p->batch_bytes : small;
  const uint32_t n = size >= batch_bytes ? 1 : batch_bytes / size;
  char *batch = malloc(n * size);
  if (!batch) mpi_internal_error("no memory for MPI's request objects");
  /* Fresh memory may carry tags from an earlier use; a request's first word is its
   * I-structure element. */
  for (uint32_t k = 0; k < n; ++k) emx_wtag(batch + k * size, 0);
  for (uint32_t k = 1; k < n; ++k) {
    *(void **)(batch + k * size) = p->free;
    p->free = batch + k * size;
  }
  p->made += n;
  return batch;
}

/* Derived when asked (MPI_Finalize), not counted at every get and put. */
uint32_t pool_cells_in_use(void) {
  uint32_t n = mpi_inbound; /* (exchanges still counted as on their way: none, or a bug) */
  for (unsigned k = 0; k < npools; ++k) {
    n += pools[k]->made;
    for (void *c = pools[k]->free; c; c = *(void **)c) --n;
  }
  return n;
}

/* A temporary buffer for a message nobody asked for yet (get: fetched before its
 * receive; buffered: asked for by the sender): only while a reserve of the heap stays
 * free for MPI's own cells, the runtime's frames and the program, so that a flood of
 * unexpected data makes the protocols wait (as sync) rather than the run abort. 0: none. */
void *mpi_tmp_alloc(uint32_t bytes) {
  const uint32_t reserve = mpi_mem_end / 32; /* 128 KiB of EM-X's 4 MiB */
  void *probe = malloc(bytes + reserve);
  if (!probe) return 0;
  free(probe);
  return malloc(bytes);
}

/* The buffered protocol's temporary buffers for short messages (asked for with the
 * message's size + 8): from a free list, as the original took its objects (a few
 * instructions instead of a probe of the heap and two allocations); a buffer given back
 * stays in the list. The list grows by mpi_tmp_alloc, with its reserve. */
void *mpi_tmp_small_free; /* (sreq.S gives buffers back to it too) */

void *mpi_tmp_alloc_buffered(uint32_t bytes) {
  if (bytes > TMP_SMALL_BYTES) return mpi_tmp_alloc(bytes);
  void *b = mpi_tmp_small_free;
  if (__builtin_expect(!b, 0)) return mpi_tmp_alloc(TMP_SMALL_BYTES);
  mpi_tmp_small_free = *(void **)b;
  return b;
}

void mpi_tmp_free_buffered(void *b, uint32_t bytes) {
  if (bytes > TMP_SMALL_BYTES) {
    free(b);
    return;
  }
  *(void **)b = mpi_tmp_small_free;
  mpi_tmp_small_free = b;
}
