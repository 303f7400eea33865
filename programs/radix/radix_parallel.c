/* The parallel sorts' driver (radix.h: radix_parallel): set-up, the passes with their
 * phase times, the verification; the strategy (fine or coarse grain) plans and moves. */
#include <string.h>

#include "radix.h"

int radix_parallel(int argc, char **argv, const radix_strategy *s) {
  radix_args args, *a = &args;
  if (!radix_parse(argc, argv, 1, a)) return 2;
  uint32_t *cnt = radix_alloc_digits(a, 4), *start = radix_alloc_digits(a, 4);
  uint32_t *from = cnt && start && s->init(a) ? radix_alloc(a, s->arrays) : NULL;
  if (!from) return 2;
  a->arrays = from;
  a->capacity = a->q + (a->rem != 0);
  uint32_t *to = from + a->capacity;
  /* Global pointers name the same array on every PE (the keys; global=chain writes the
   * next PE's starts, global=read reads the others' counts). */
  if (a->pes > 1 && (emx_max_i32((int32_t)(uintptr_t)to) != emx_min_i32((int32_t)(uintptr_t)to) ||
                     emx_max_i32((int32_t)(uintptr_t)start) !=
                         emx_min_i32((int32_t)(uintptr_t)start) ||
                     emx_max_i32((int32_t)(uintptr_t)cnt) != emx_min_i32((int32_t)(uintptr_t)cnt))) {
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
    s->plan(a, cnt, start, to);
    radix_phase_end(&t, PH_GLOBAL);
    s->move(a, from, shift, mask, &t);
    radix_phase_end(&t, PH_TRANSFER);
    radix_sync(s);
    radix_phase_end(&t, PH_SYNC);
    uint32_t *tmp = from;
    from = to;
    to = tmp;
  }
  return radix_finish(a, from, emx_cycles() - begin, &t);
}
