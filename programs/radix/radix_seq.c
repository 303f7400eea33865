/* Sequential radix sort on one PE (the paper's Fig. 3): per pass, count the digits (the
 * 10-instruction loop), turn the counts into start positions, move every key to its
 * position in the other array. Runs on PE 0; other PEs, if any, do nothing.
 *   radix_seq N RADIX SEED [keys=random|equal]          docs/experiments/radix.md */
#include <string.h>

#include "radix.h"

/* Every key to its place: dst[pos[digit]++] = key. */
static __attribute__((noinline)) void scatter(const uint32_t *src, uint32_t n, uint32_t shift,
                                              uint32_t mask, uint32_t *pos, uint32_t *dst) {
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t k = src[i];
    dst[pos[(k >> shift) & mask]++] = k;
  }
}

int main(int argc, char **argv) {
  if (emx_pe_id() != 0) return 0;
  radix_args a;
  if (!radix_parse(argc, argv, 0, &a)) return 2;
  uint32_t *cnt = radix_alloc_digits(&a, 4);
  uint32_t *src = cnt ? radix_alloc(&a, 2) : NULL;
  if (!src) return 2;
  uint32_t *dst = src + a.n;
  radix_generate(&a, src);

  radix_phases t;
  memset(&t, 0, sizeof t);
  const uint64_t start = emx_cycles();
  radix_phase_start(&t);
  for (uint32_t pass = 0; pass < a.passes; ++pass) {
    const uint32_t shift = pass * a.bits, mask = a.radix - 1;
    memset(cnt, 0, a.radix * 4);
    radix_count(src, a.n, shift, mask, cnt);
    radix_phase_end(&t, PH_COUNT);
    uint32_t base = 0;
    for (uint32_t d = 0; d < a.radix; ++d) {
      const uint32_t c = cnt[d];
      cnt[d] = base;
      base += c;
    }
    radix_phase_end(&t, PH_GLOBAL);
    scatter(src, a.n, shift, mask, cnt, dst);
    radix_phase_end(&t, PH_TRANSFER);
    uint32_t *tmp = src;
    src = dst;
    dst = tmp;
  }
  return radix_finish(&a, src, emx_cycles() - start, &t);
}
