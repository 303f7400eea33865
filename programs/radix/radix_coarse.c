/* Parallel radix sort, coarse grain: per pass, count the local digits and find every
 * digit's global start as the fine-grain sort does; then pack: every key goes to its
 * digit's place in a local buffer (the keys of one digit, in order, are one contiguous
 * range of global indices, so the buffer is the keys grouped by destination PE); then
 * each (digit, destination block) run is block-sent (emx_put: register-relative sends,
 * 2 clocks a word on EM-X). The runs are sorted by destination; PE i starts with the
 * first run for PE i and goes on cyclically, so that at any time the PEs mostly send to
 * different receivers (a shifted schedule). Then a global sync.
 * On EM-X' and EM-4 the sender suspends after every `batch` words (as radix_fine).
 *   radix_coarse N RADIX SEED [keys=random|equal] [batch=B]   docs/experiments/radix.md */
#include <stdlib.h>
#include <string.h>

#include "radix.h"

typedef struct {
  emx_gaddr_t dst;
  uint32_t offset, words;
} run_t;

static uint32_t *cnt, *start, *pos; /* radix words each */
static run_t *runs;                  /* at most radix + P */

/* Every key to its digit's place in buf (the packing loop). */
static __attribute__((noinline)) void pack(const uint32_t *src, uint32_t n, uint32_t shift,
                                           uint32_t mask, uint32_t *buf) {
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t k = src[i];
    buf[pos[(k >> shift) & mask]++] = k;
  }
}

/* The runs of buf, in global order (hence sorted by destination PE). */
static unsigned make_runs(const radix_args *a, const uint32_t *to) {
  unsigned nr = 0;
  uint32_t offset = 0;
  radix_walk w;
  radix_walk_init(&w, a, to);
  for (uint32_t d = 0; d < a->radix; ++d) {
    uint32_t index = start[d], left = cnt[d];
    while (left > 0) {
      const radix_cursor c = radix_walk_to(&w, index);
      const uint32_t take = c.lim - c.g < left ? c.lim - c.g : left;
      runs[nr++] = (run_t){c.g, offset, take};
      index += take;
      offset += take;
      left -= take;
    }
  }
  return nr;
}

static __attribute__((noinline)) void send_runs(const radix_args *a, const uint32_t *buf,
                                                unsigned nr) {
  unsigned first = 0;
  while (first < nr && emx_gaddr_pe(runs[first].dst) < a->me) ++first;
  for (unsigned j = 0; j < nr; ++j) {
    const run_t *r = &runs[(first + j) % nr];
    if (a->batch == 0) {
      emx_put(r->dst, buf + r->offset, r->words);
      continue;
    }
    for (uint32_t w = 0; w < r->words; w += a->batch) {
      const uint32_t n = r->words - w < a->batch ? r->words - w : a->batch;
      emx_put(r->dst + w, buf + r->offset + w, n);
      radix_suspend();
    }
  }
}

int main(int argc, char **argv) {
  radix_args args, *a = &args;
  if (!radix_parse(argc, argv, 1, a)) return 2;
  cnt = radix_alloc_digits(a, 4);
  start = radix_alloc_digits(a, 4);
  pos = radix_alloc_digits(a, 4);
  runs = malloc((a->radix + a->pes) * sizeof(run_t));
  uint32_t *from = cnt && start && pos && runs ? radix_alloc(a, 3) : NULL;
  if (!from) return 2;
  const uint32_t per_pe = a->n / a->pes + (a->n % a->pes != 0);
  uint32_t *to = from + per_pe, *buf = to + per_pe;
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
    uint32_t local = 0;
    for (uint32_t d = 0; d < a->radix; ++d) {
      pos[d] = local;
      local += cnt[d];
    }
    const unsigned nr = make_runs(a, to);
    radix_phase_end(&t, PH_GLOBAL);
    pack(from, a->n_local, shift, mask, buf);
    radix_phase_end(&t, PH_PACK);
    send_runs(a, buf, nr);
    radix_phase_end(&t, PH_TRANSFER);
    radix_sync();
    radix_phase_end(&t, PH_SYNC);
    uint32_t *tmp = from;
    from = to;
    to = tmp;
  }
  return radix_finish(a, from, emx_cycles() - begin, &t);
}
