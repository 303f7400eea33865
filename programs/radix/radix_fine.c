/* Parallel radix sort, fine grain (the paper's steps 1-6): per pass, count the local
 * digits; the global sum and the prefix over lower-numbered PEs by the runtime's
 * butterfly; every digit's start turned into a global pointer once; then every key goes
 * to its place by one remote write (SYSWR) through its digit's pointer, which moves on to
 * the next PE's block at a block boundary; then a global sync (fences + barrier).
 * On EM-X' and EM-4 every remote write is a thread on its receiver, which cannot run
 * while the receiver's own send loop (one atomic thread) runs: the loop suspends itself
 * every `batch` keys (emx_yield) so that the input buffer is drained.
 *   radix_fine N RADIX SEED [keys=random|equal] [batch=B]   docs/experiments/radix.md */
#include <string.h>

#include "radix.h"

static uint32_t *cnt, *start; /* radix words each */
static radix_cursor *cur;
static radix_args args;
static uint32_t *to; /* the array being written, at the same address on every PE */

/* The digit's pointer reached its PE's block end: on to the next PE's block. */
static __attribute__((noinline)) emx_gaddr_t next_block(radix_cursor *c) {
  *c = radix_block_after(&args, to, emx_gaddr_pe(c->g));
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

static __attribute__((noinline)) void transfer(const uint32_t *src, uint32_t n,
                                               uint32_t shift, uint32_t mask, uint32_t batch) {
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
  radix_args *a = &args;
  if (!radix_parse(argc, argv, 1, a)) return 2;
  cnt = radix_alloc_digits(a, 4);
  start = radix_alloc_digits(a, 4);
  cur = (radix_cursor *)radix_alloc_digits(a, sizeof(radix_cursor));
  uint32_t *from = cnt && start && cur ? radix_alloc(a, 2) : NULL;
  if (!from) return 2;
  to = from + (a->n / a->pes + (a->n % a->pes != 0));
  /* Global pointers name the same array on every PE. */
  if (a->pes > 1 && emx_max_i32((int32_t)(uintptr_t)to) != emx_min_i32((int32_t)(uintptr_t)to)) {
    if (a->me == 0) printf("radix: the arrays are at different addresses on the PEs\n");
    return 3;
  }
  radix_generate(a, from);

  radix_phases t;
  memset(&t, 0, sizeof t);
  emx_barrier();
  const uint64_t begin = emx_cycles();
  radix_phase_start(&t);
  for (uint32_t pass = 0; pass < a->passes; ++pass) {
    const uint32_t shift = pass * a->bits, mask = a->radix - 1;
    memset(cnt, 0, a->radix * 4);
    radix_count(from, a->n_local, shift, mask, cnt);
    radix_phase_end(&t, PH_COUNT);
    radix_global_starts(a, cnt, start);
    radix_walk w;
    radix_walk_init(&w, a, to);
    for (uint32_t d = 0; d < a->radix; ++d)
      if (cnt[d]) cur[d] = radix_walk_to(&w, start[d]);
    radix_phase_end(&t, PH_GLOBAL);
    transfer(from, a->n_local, shift, mask, a->batch);
    radix_phase_end(&t, PH_TRANSFER);
    radix_sync();
    radix_phase_end(&t, PH_SYNC);
    uint32_t *tmp = from;
    from = to;
    to = tmp;
  }
  return radix_finish(a, from, emx_cycles() - begin, &t);
}
