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

#include "radix.h"

typedef struct {
  emx_gaddr_t dst;
  uint32_t offset, words;
} run_t;

static uint32_t *pos;  /* per digit: its next place in the buffer */
static run_t *runs;    /* at most radix + P */
static unsigned n_runs;

static int init(const radix_args *a) {
  pos = radix_alloc_digits(a, 4);
  runs = malloc((a->radix + a->pes) * sizeof(run_t));
  return pos && runs;
}

/* The runs of the buffer, in global order (hence sorted by destination PE). */
static void plan(const radix_args *a, const uint32_t *cnt, const uint32_t *start,
                 uint32_t *to) {
  uint32_t offset = 0;
  radix_walk w;
  radix_walk_init(&w, a, to);
  n_runs = 0;
  for (uint32_t d = 0; d < a->radix; ++d) {
    pos[d] = offset;
    uint32_t index = start[d], left = cnt[d];
    while (left > 0) {
      const radix_cursor c = radix_walk_to(&w, index);
      const uint32_t take = c.lim - c.g < left ? c.lim - c.g : left;
      runs[n_runs++] = (run_t){c.g, offset, take};
      index += take;
      offset += take;
      left -= take;
    }
  }
}

/* Every key to its digit's place in buf (the packing loop). */
static __attribute__((noinline)) void pack(const uint32_t *src, uint32_t n, uint32_t shift,
                                           uint32_t mask, uint32_t *buf) {
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t k = src[i];
    buf[pos[(k >> shift) & mask]++] = k;
  }
}

/* A block send to another PE, its instructions counted (the block-send loop; a run to
 * this PE is a local copy, not counted). */
static void put_counted(emx_gaddr_t dst, const uint32_t *src, uint32_t words,
                        radix_phases *t) {
  if (emx_gaddr_is_local(dst)) {
    emx_put(dst, src, words);
    return;
  }
  const uint64_t before = emx_instret();
  emx_put(dst, src, words);
  t->put_instructions += emx_instret() - before;
  t->put_words += words;
}

static __attribute__((noinline)) void send_runs(const radix_args *a, const uint32_t *buf,
                                                radix_phases *t) {
  unsigned first = 0;
  while (first < n_runs && emx_gaddr_pe(runs[first].dst) < a->me) ++first;
  for (unsigned j = 0; j < n_runs; ++j) {
    const run_t *r = &runs[(first + j) % n_runs];
    if (a->batch == 0) {
      put_counted(r->dst, buf + r->offset, r->words, t);
      continue;
    }
    for (uint32_t w = 0; w < r->words; w += a->batch) {
      const uint32_t n = r->words - w < a->batch ? r->words - w : a->batch;
      put_counted(r->dst + w, buf + r->offset + w, n, t);
      radix_suspend();
    }
  }
}

/* The buffer is the third array, after from and to. */
static void move(const radix_args *a, const uint32_t *from, uint32_t shift, uint32_t mask,
                 radix_phases *t) {
  uint32_t *buf = radix_buffer(a);
  pack(from, a->n_local, shift, mask, buf);
  radix_phase_end(t, PH_PACK);
  send_runs(a, buf, t);
}

int main(int argc, char **argv) {
  /* emx_put to this PE is a local copy: no writes to self in flight. */
  static const radix_strategy coarse = {3, init, plan, move, 0};
  return radix_parallel(argc, argv, &coarse);
}
