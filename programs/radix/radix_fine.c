/* Parallel radix sort, fine grain (the paper's steps 1-6): per pass, count the local
 * digits; the global sum and the prefix over lower-numbered PEs by the EM-C layer's
 * butterflies (radix.h: global=); every digit's start turned into a global pointer
 * once; then every key goes to its place by one remote write (SYSWR) through its
 * digit's pointer, which moves on to the next PE's block at a block boundary, its own
 * PE's included; then a global sync (fences to every PE, this one too, + barrier).
 * On EM-X' and EM-4 every remote write is a thread on its receiver, which cannot run
 * while the receiver's own send loop (one atomic thread) runs: the loop suspends itself
 * every `batch` keys (emx_yield) so that the input buffer is drained.
 *   radix_fine N RADIX SEED [keys=random|equal] [batch=B] [global=...]
 *   docs/experiments/radix.md */
#include "radix.h"

static radix_cursor *cur; /* per digit: where its next key goes */
static const radix_args *args;
static uint32_t *to;      /* the array being written, at the same address on every PE */

static int init(const radix_args *a) {
  args = a;
  cur = (radix_cursor *)radix_alloc_digits(a, sizeof(radix_cursor));
  return cur != NULL;
}

static void plan(const radix_args *a, const uint32_t *cnt, const uint32_t *start,
                 uint32_t *dst) {
  to = dst;
  radix_walk w;
  radix_walk_init(&w, a, to);
  for (uint32_t d = 0; d < a->radix; ++d)
    if (cnt[d]) cur[d] = radix_walk_to(&w, start[d]);
}

/* The digit's pointer reached its PE's block end: on to the next PE's block. */
static __attribute__((noinline)) emx_gaddr_t next_block(radix_cursor *c) {
  *c = radix_block_after(args, to, emx_gaddr_pe(c->g));
  return c->g;
}

/* Keys [i, end) of src: one remote write each (the paper's 16-instruction loop). */
static inline __attribute__((always_inline)) void send_keys(const uint32_t *src, uint32_t i,
                                                           uint32_t end, uint32_t shift,
                                                           uint32_t mask) {
  for (; i < end; i++) {
    const uint32_t k = src[i];
    radix_cursor *c = &cur[(k >> shift) & mask];
    emx_gaddr_t g = c->g;
    if (__builtin_expect(g == c->lim, 0)) g = next_block(c);
    emx_send(EMX_PKT_syswr, g, k);
    c->g = g + 1;
  }
}

static __attribute__((noinline)) void transfer(const radix_args *a, const uint32_t *src,
                                               uint32_t shift, uint32_t mask,
                                               radix_phases *t) {
  (void)t;
  const uint32_t n = a->n_local, batch = a->batch;
  if (batch == 0) {
    send_keys(src, 0, n, shift, mask);
    return;
  }
  for (uint32_t i = 0; i < n; i += batch) {
    send_keys(src, i, n - i < batch ? n : i + batch, shift, mask);
    radix_suspend();
  }
}

int main(int argc, char **argv) {
  static const radix_strategy fine = {2, init, plan, transfer, 1};
  return radix_parallel(argc, argv, &fine);
}
