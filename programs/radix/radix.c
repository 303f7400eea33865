/* What the radix-sort programs share (radix.h). */
#include "radix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_arg(const radix_args *a, const char *what, const char *value) {
  if (a->me == 0)
    fprintf(stderr, "radix: %s '%s' (usage: N RADIX SEED [keys=random|equal] [batch=B] "
            "[global=scalar|scalar_fused|steps|fused|chain|read])\n",
            what, value);
  return 0;
}

static int parse_u32(const char *s, uint32_t *v) {
  char *end;
  const unsigned long x = strtoul(s, &end, 0);
  if (*s == '\0' || *end != '\0' || *s == '-' || x > 0xffffffffu) return 0;
  *v = (uint32_t)x;
  return 1;
}

int radix_parse(int argc, char **argv, int parallel, radix_args *a) {
  memset(a, 0, sizeof *a);
  a->me = emx_pe_id();
  a->pes = parallel ? emx_pe_count() : 1;
  if (argc < 4) return fail_arg(a, "missing arguments", argc > 1 ? argv[argc - 1] : "");
  if (!parse_u32(argv[1], &a->n) || a->n == 0) return fail_arg(a, "bad key count", argv[1]);
  if (!parse_u32(argv[2], &a->radix) || a->radix < 2 || a->radix > 4096 ||
      (a->radix & (a->radix - 1)) != 0)
    return fail_arg(a, "radix must be a power of two from 2 to 4096, not", argv[2]);
  if (!parse_u32(argv[3], &a->seed)) return fail_arg(a, "bad seed", argv[3]);
  while ((1u << a->bits) < a->radix) ++a->bits;
  a->passes = (32 + a->bits - 1) / a->bits;
  a->batch = (emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) ? 0 : RADIX_DEFAULT_BATCH;
  a->global_step = RADIX_GLOBAL_SCALAR;
  for (int i = 4; i < argc; ++i) {
    if (strcmp(argv[i], "keys=random") == 0) a->equal_keys = 0;
    else if (strcmp(argv[i], "keys=equal") == 0) a->equal_keys = 1;
    else if (strncmp(argv[i], "batch=", 6) == 0) {
      if (!parse_u32(argv[i] + 6, &a->batch)) return fail_arg(a, "bad batch", argv[i]);
    } else if (strncmp(argv[i], "global=", 7) == 0) {
      static const char *const names[] = {"steps", "fused", "scalar", "chain", "read", "scalar_fused"};
      const char *g = argv[i] + 7;
      a->global_step = -1;
      for (int m = 0; m < (int)(sizeof names / sizeof *names); ++m)
        if (strcmp(g, names[m]) == 0) a->global_step = m;
      if (a->global_step < 0) return fail_arg(a, "unknown argument", argv[i]);
    } else return fail_arg(a, "unknown argument", argv[i]);
  }
  a->scratch = malloc(a->radix * 8);
  if (!a->scratch) return fail_arg(a, "no memory for the digit arrays of radix", argv[2]);
  a->q = a->n / a->pes;
  a->rem = a->n % a->pes;
  a->n_local = radix_count_of(a, a->me);
  a->first = radix_first_of(a, a->me);
  return 1;
}

uint32_t *radix_alloc_digits(const radix_args *a, unsigned bytes_per_digit) {
  uint32_t *p = calloc(a->radix, bytes_per_digit);
  if (!p && a->me == 0) fprintf(stderr, "radix: no memory for the digit arrays\n");
  return p;
}

uint32_t *radix_alloc(const radix_args *a, unsigned arrays) {
  const uint32_t per_pe = a->q + (a->rem != 0);
  const uint64_t bytes = (uint64_t)per_pe * 4 * arrays;
  uint32_t *p = bytes < 0x7fffffffu ? malloc((size_t)bytes) : NULL;
  if (!p && a->me == 0)
    fprintf(stderr,
            "radix: %u keys on %u PE(s) need %u arrays of %u words = %llu bytes per PE; "
            "the PE has %u bytes of memory (config pe.memory_bytes)\n",
            a->n, a->pes, arrays, per_pe, (unsigned long long)bytes, emx_mem_bytes());
  return p;
}

/* lowbias32 (Chris Wellons' hash): a bijection, so distinct indices give distinct keys. */
static inline uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

static inline uint32_t key_at(const radix_args *a, uint32_t i) {
  return a->equal_keys ? mix(a->seed) : mix(i + a->seed * 0x9e3779b9u);
}

void radix_generate(radix_args *a, uint32_t *keys) {
  uint32_t sum = 0, sum_sq = 0;
  for (uint32_t i = 0; i < a->n_local; ++i) {
    const uint32_t k = key_at(a, a->first + i);
    keys[i] = k;
    sum += k;
    sum_sq += k * k;
  }
  a->sum = sum;
  a->sum_sq = sum_sq;
}

__attribute__((noinline)) void radix_count(const uint32_t *src, uint32_t n, uint32_t shift,
                                           uint32_t mask, uint32_t *cnt) {
  for (uint32_t i = 0; i < n; i++) cnt[(src[i] >> shift) & mask]++;
}

/* The chain's message: the prefix over PEs 0..p-1, block-written by PE p - 1 into PE p's
 * `start` (the same address on every PE), then this flag (an I-structure element). */
static volatile uint32_t chain_arrived;

/* (3) along the PEs: PE p waits for the prefix over the lower-numbered PEs from PE p - 1,
 * adds its own counts and passes the result on to PE p + 1. */
static void chain_prefix(const radix_args *a, const uint32_t *cnt, uint32_t *start) {
  if (a->me == 0) memset(start, 0, a->radix * 4);
  else (void)emx_iread(emx_gaddr_mine(&chain_arrived));
  if (a->me + 1 == a->pes) return;
  uint32_t *next = (uint32_t *)a->scratch + a->radix;
  for (uint32_t d = 0; d < a->radix; ++d) next[d] = start[d] + cnt[d];
  emx_put(emx_gaddr(a->me + 1, start), next, a->radix);
  emx_iwrite_flag(emx_gaddr(a->me + 1, &chain_arrived), 1);
}

/* (2) and (3) by remote reads: every other PE's counts (the same address on every PE),
 * summed into the total and, for the lower-numbered PEs, into the prefix. */
static void read_counts(const radix_args *a, const uint32_t *cnt, int32_t *total,
                        uint32_t *start) {
  uint32_t *theirs = (uint32_t *)a->scratch + a->radix;
  memset(start, 0, a->radix * 4);
  for (unsigned q = 0; q < a->pes; ++q) {
    if (q == a->me) continue;
    emx_get(theirs, emx_gaddr(q, cnt), a->radix);
    for (uint32_t d = 0; d < a->radix; ++d) total[d] += (int32_t)theirs[d];
    if (q < a->me)
      for (uint32_t d = 0; d < a->radix; ++d) start[d] += theirs[d];
  }
}

void radix_global_starts(const radix_args *a, const uint32_t *cnt, uint32_t *start) {
  /* start first receives the exclusive prefix over lower PEs, then the digit offsets.
   * The paper's steps: (2) the global sum of the counts over all PEs and (3) their
   * prefix over the lower-numbered PEs; by default with the EM-C layer's scalar
   * collectives per digit value, the sum and then the prefix (radix.h: RADIX_GLOBAL_*). */
  int32_t *total = a->scratch;
  memcpy(total, cnt, a->radix * 4);
  switch (a->global_step) {
    case RADIX_GLOBAL_SCALAR:
      for (uint32_t d = 0; d < a->radix; ++d) {
        total[d] = emx_sum_i32((int32_t)cnt[d]);
        start[d] = (uint32_t)emx_scan_i32((int32_t)cnt[d], 0);
      }
      break;
    case RADIX_GLOBAL_SCALAR_FUSED:
      for (uint32_t d = 0; d < a->radix; ++d)
        total[d] = emx_sum_scan_i32((int32_t)cnt[d], (int32_t *)&start[d]);
      break;
    case RADIX_GLOBAL_FUSED:
      emx_sum_scan_vec_i32(total, (int32_t *)start, a->radix);
      break;
    case RADIX_GLOBAL_READ:
      read_counts(a, cnt, total, start);
      break;
    case RADIX_GLOBAL_CHAIN:
      emx_allreduce_vec_i32(total, a->radix, EMX_OP_SUM);
      chain_prefix(a, cnt, start);
      break;
    default: { /* RADIX_GLOBAL_STEPS */
      emx_allreduce_vec_i32(total, a->radix, EMX_OP_SUM);
      int32_t *mine = a->scratch + a->radix;
      memcpy(mine, cnt, a->radix * 4);
      emx_sum_scan_vec_i32(mine, (int32_t *)start, a->radix);
    }
  }
  uint32_t base = 0;
  for (uint32_t d = 0; d < a->radix; ++d) {
    start[d] += base;
    base += (uint32_t)total[d];
  }
}

void radix_walk_init(radix_walk *w, const radix_args *a, const uint32_t *base) {
  *w = (radix_walk){a, base, 0, 0, radix_count_of(a, 0)};
}

radix_cursor radix_walk_to(radix_walk *w, uint32_t index) {
  while (index >= w->first + w->count && w->pe + 1 < w->a->pes) {
    w->first += w->count;
    w->count = radix_count_of(w->a, ++w->pe);
  }
  const emx_gaddr_t block = emx_gaddr(w->pe, w->base);
  return (radix_cursor){block + (index - w->first), block + w->count};
}

radix_cursor radix_block_after(const radix_args *a, const uint32_t *base, unsigned pe) {
  do ++pe;
  while (radix_count_of(a, pe) == 0);
  const emx_gaddr_t block = emx_gaddr(pe, base);
  return (radix_cursor){block, block + radix_count_of(a, pe)};
}

static int fail(const radix_args *a, const char *what, uint32_t i, uint32_t x, uint32_t y) {
  fprintf(stderr, "radix: PE %u: %s (at %u: %u, %u)\n", a->me, what, i, x, y);
  return 1;
}

int radix_finish(const radix_args *a, const uint32_t *keys, uint64_t clocks,
                 const radix_phases *t) {
  int bad = 0;
  for (uint32_t i = 1; i < a->n_local && !bad; ++i)
    if (keys[i - 1] > keys[i]) bad = fail(a, "not sorted", i, keys[i - 1], keys[i]);
  /* The next non-empty PE's first key is not smaller than our last. */
  if (!bad && a->n_local > 0 && a->pes > 1) {
    unsigned q = a->me + 1;
    while (q < a->pes && radix_count_of(a, q) == 0) ++q;
    if (q < a->pes) {
      const uint32_t next = emx_read(emx_gaddr(q, keys));
      if (next < keys[a->n_local - 1])
        bad = fail(a, "not sorted across PEs", a->n_local, keys[a->n_local - 1], next);
    }
  }
  /* Same multiset: the sums of the keys and of their squares, before and after. */
  uint32_t sum = 0, hsum = 0, want = a->sum, hwant = a->sum_sq;
  for (uint32_t i = 0; i < a->n_local; ++i) {
    sum += keys[i];
    hsum += keys[i] * keys[i];
  }
  if (a->pes > 1) {
    sum = (uint32_t)emx_sum_i32((int32_t)sum);
    hsum = (uint32_t)emx_sum_i32((int32_t)hsum);
    want = (uint32_t)emx_sum_i32((int32_t)want);
    hwant = (uint32_t)emx_sum_i32((int32_t)hwant);
    bad = emx_max_i32(bad);
  }
  if (!bad && (sum != want || hsum != hwant)) {
    if (a->me == 0) fail(a, "checksum differs: keys lost or duplicated", 0, sum, want);
    bad = 1;
  }
  /* Phase times: the maximum over PEs of each PE's sum over the passes. */
  double us[PH_N];
  const double per_us = emx_clock_khz() / 1000.0;
  for (int p = 0; p < PH_N; ++p) {
    int32_t c = (int32_t)t->clocks[p];
    if (a->pes > 1) c = emx_max_i32(c);
    us[p] = c / per_us;
  }
  /* Instructions per key and pass of the count, the packing and the transfer, and per
   * word of the block sends to other PEs: the mean over the PEs that had any. */
  const double moved = (double)a->n_local * a->passes; /* keys x passes */
  float per_key[3] = {0, 0, 0}, per_word = 0;
  const int phase_of[3] = {PH_COUNT, PH_PACK, PH_TRANSFER};
  for (int k = 0; k < 3; ++k)
    if (moved > 0) per_key[k] = (float)(t->instructions[phase_of[k]] / moved);
  if (t->put_words) per_word = (float)((double)t->put_instructions / t->put_words);
  int32_t with_keys = moved > 0, with_puts = t->put_words > 0;
  if (a->pes > 1) {
    for (int k = 0; k < 3; ++k) per_key[k] = emx_sum_f32(per_key[k]);
    per_word = emx_sum_f32(per_word);
    with_keys = emx_sum_i32(with_keys);
    with_puts = emx_sum_i32(with_puts);
  }
  if (a->me == 0) {
    const double total_us = (double)clocks / per_us;
    emx_result_int("verified", !bad);
    emx_result_int("keys", a->n);
    emx_result_int("radix", a->radix);
    emx_result_int("pes", a->pes);
    emx_result_int("passes", a->passes);
    emx_result_int("batch", a->batch);
    emx_result_int("global_step", a->global_step); /* RADIX_GLOBAL_*, the order of global= names */
    emx_result_int("clocks", (long long)clocks);
    emx_result("time_us", total_us);
    emx_result("keys_per_s", a->n / (total_us * 1e-6));
    emx_result("count_us", us[PH_COUNT]);
    emx_result("global_us", us[PH_GLOBAL]);
    emx_result("pack_us", us[PH_PACK]);
    emx_result("transfer_us", us[PH_TRANSFER]);
    emx_result("sync_us", us[PH_SYNC]);
    emx_result("count_instructions_per_key", per_key[0] / with_keys);
    emx_result("pack_instructions_per_key", per_key[1] / with_keys);
    emx_result("transfer_instructions_per_key", per_key[2] / with_keys);
    if (with_puts) emx_result("put_instructions_per_word", per_word / with_puts);
    printf("radix: %u keys, radix %u, %u PE(s): %s, %.1f us, %.0f keys/s\n", a->n, a->radix,
           a->pes, bad ? "FAILED" : "sorted", total_us, a->n / (total_us * 1e-6));
  }
  return bad;
}
