/* Radix sort on EM-X, EM-X' and EM-4 (docs/experiments/radix.md): what the sequential,
 * fine-grain and coarse-grain programs share. Keys are N random 32-bit integers: key i
 * is a hash of (seed, i), so the same seed gives the same keys on every machine and
 * every PE count. PE p holds n_p = N/P keys, one more on the first N mod P PEs, at the
 * same local address on every PE (the global index i is PE p's word i - first(p)). */
#ifndef RADIX_H
#define RADIX_H

#include <emx/emc.h>
#include <stdio.h>
#include <stdint.h>

/* The global step (global=...), the paper's (2) sum and (3) prefix over lower-numbered
 * PEs of each digit value's count: by default (scalar) the EM-C layer's scalar
 * collectives per digit value, the sum and then the prefix, two butterflies
 * (emx_sum_i32, emx_scan_i32); one butterfly per digit value that gives both
 * (scalar_fused, emx_sum_scan_i32); the runtime's vector collectives, the sum and then
 * the prefix as two butterflies over all digit values at once (steps), or both in one
 * (fused); the sum by a vector butterfly and the prefix passed along the PEs, PE p - 1 to
 * PE p (chain); every PE reads every other PE's counts by remote reads and sums them, all
 * for the sum, the lower-numbered PEs' for the prefix (read).
 * docs/experiments/radix.md, section 6. */
enum { RADIX_GLOBAL_STEPS, RADIX_GLOBAL_FUSED, RADIX_GLOBAL_SCALAR, RADIX_GLOBAL_CHAIN,
       RADIX_GLOBAL_READ, RADIX_GLOBAL_SCALAR_FUSED };

typedef struct {
  uint32_t n;          /* total keys N */
  uint32_t radix;      /* r, a power of two, 2..4096 */
  uint32_t bits;       /* log2 r */
  uint32_t passes;     /* R = ceil(32 / bits) */
  uint32_t seed;
  int equal_keys;      /* keys=equal: every key the same (a test of the boundaries) */
  uint32_t batch;      /* remote writes between explicit suspensions (0: none) */
  int global_step;     /* how the digit counts are summed and prefixed: RADIX_GLOBAL_* */
  unsigned me, pes;
  uint32_t q, rem;     /* N = q P + rem: PE p holds q keys, one more if p < rem */
  uint32_t n_local;    /* n_p of this PE */
  uint32_t first;      /* global index of this PE's first key */
  int32_t *scratch;    /* 2 x radix words for radix_global_starts */
  uint32_t *arrays;    /* the key arrays, `capacity` words each (radix_parallel) */
  uint32_t capacity;
  uint32_t sum, sum_sq; /* checksums of this PE's generated keys (radix_generate) */
} radix_args;

/* Parses "N RADIX SEED [keys=random|equal] [batch=B]
 * [global=scalar|scalar_fused|steps|fused|chain|read]"; on a bad
 * argument prints why on
 * PE 0 and returns 0. batch defaults to 0 on machines with direct remote access (a
 * SYSWR stream never overflows the input buffer) and to RADIX_DEFAULT_BATCH on EM-X'
 * and EM-4, where every remote write is a thread the receiver must run. */
#define RADIX_DEFAULT_BATCH 64
int radix_parse(int argc, char **argv, int parallel, radix_args *a);

/* Keys per PE and the first global index of PE p. */
static inline uint32_t radix_count_of(const radix_args *a, unsigned p) {
  return a->q + (p < a->rem);
}
static inline uint32_t radix_first_of(const radix_args *a, unsigned p) {
  return p * a->q + (p < a->rem ? p : a->rem);
}

/* radix * bytes_per_digit bytes, zeroed; NULL (and a message) when memory is short. The
 * digit arrays come from the heap, not static arrays sized for the largest radix: EM-4's
 * 512 KiB leave little room. */
uint32_t *radix_alloc_digits(const radix_args *a, unsigned bytes_per_digit);

/* words*4 bytes per array; NULL (and a message naming the size) when memory is short. */
uint32_t *radix_alloc(const radix_args *a, unsigned arrays);

/* Fills this PE's keys and notes their checksums in a. */
void radix_generate(radix_args *a, uint32_t *keys);

/* Phase clocks and instructions of this PE, summed over the passes; and the
 * instructions and words of the coarse grain's block sends to other PEs (emx_put). */
enum { PH_COUNT, PH_GLOBAL, PH_PACK, PH_TRANSFER, PH_SYNC, PH_N }; /* PH_PACK: coarse only */
typedef struct {
  uint64_t clocks[PH_N], instructions[PH_N];
  uint64_t mark, instruction_mark;
  uint64_t put_instructions, put_words;
} radix_phases;
static inline void radix_phase_start(radix_phases *t) {
  t->mark = emx_cycles();
  t->instruction_mark = emx_instret();
}
static inline void radix_phase_end(radix_phases *t, int phase) {
  const uint64_t now = emx_cycles(), done = emx_instret();
  t->clocks[phase] += now - t->mark;
  t->instructions[phase] += done - t->instruction_mark;
  t->mark = now;
  t->instruction_mark = done;
}

/* The local counting loop (the paper's 10-instruction loop). */
void radix_count(const uint32_t *src, uint32_t n, uint32_t shift, uint32_t mask,
                 uint32_t *cnt);

/* Checks that keys (this PE's n_local final keys) are sorted across all PEs and are a
 * permutation of the generated ones (sums of the keys and of their squares, mod 2^32),
 * reports the results (total time from `clocks`, keys/s, the phase times as the maximum
 * over PEs, the phases' instructions per key and pass and the block sends' per word as
 * the mean over PEs) and returns the exit code: 0, or 1 with a message when the check
 * fails. Collective. */
int radix_finish(const radix_args *a, const uint32_t *keys, uint64_t clocks,
                 const radix_phases *t);

/* Parallel sorts: the global step. From this PE's digit counts, every digit's start as a
 * global index (its place among all PEs' keys of smaller digits and of the same digit on
 * lower-numbered PEs), by the strategy global= names (radix_args.global_step). */
void radix_global_starts(const radix_args *a, const uint32_t *cnt, uint32_t *start);

/* A global index turned into a global address of array `base` (same address on every
 * PE), and the end of that PE's block. */
typedef struct {
  emx_gaddr_t g, lim;
} radix_cursor;
/* Increasing indices (the digits' starts, in digit order) are turned into cursors by
 * walking along the PEs' blocks: no division. */
typedef struct {
  const radix_args *a;
  const uint32_t *base;
  unsigned pe;
  uint32_t first, count; /* PE pe's block of global indices */
} radix_walk;
void radix_walk_init(radix_walk *w, const radix_args *a, const uint32_t *base);
radix_cursor radix_walk_to(radix_walk *w, uint32_t index);
/* The block of the first PE after pe that holds keys (there must be one). */
radix_cursor radix_block_after(const radix_args *a, const uint32_t *base, unsigned pe);

/* The parallel sorts: one driver (radix_parallel.c), a strategy per grain. Per pass:
 * count (PH_COUNT); global starts, then plan (PH_GLOBAL); move (PH_PACK if it ends it,
 * then PH_TRANSFER); sync (PH_SYNC). */
typedef struct {
  unsigned arrays; /* key arrays per PE: from, to, and any buffer after them */
  int (*init)(const radix_args *a); /* allocates the strategy's digit arrays; 0: no memory */
  /* The digits' global starts into the strategy's pointers into `to`. */
  void (*plan)(const radix_args *a, const uint32_t *cnt, const uint32_t *start, uint32_t *to);
  /* Every key of `from` to its place. */
  void (*move)(const radix_args *a, const uint32_t *from, uint32_t shift, uint32_t mask,
               radix_phases *t);
  /* move sends SYSWR packets to this PE too (emx_send), so the sync fences it as well. */
  int writes_to_self;
} radix_strategy;
int radix_parallel(int argc, char **argv, const radix_strategy *s);
/* The third key array (a strategy's buffer), after from and to. */
static inline uint32_t *radix_buffer(const radix_args *a) {
  return a->arrays + 2 * a->capacity;
}

/* Lets the handler threads of arrived remote writes run (EM-X', EM-4): emx_yield. */
static inline void radix_suspend(void) { emx_yield(); }

/* The sync at the end of a pass: every remote write has landed everywhere. A write to
 * this PE's own memory by SYSWR is in flight too (on one PE the barrier sends nothing
 * and would not wait for it), so a strategy that sends them fences this PE as well. */
static inline void radix_sync(const radix_strategy *s) {
  if (s->writes_to_self) emx_fence_all_and_self();
  else emx_fence_all();
  emx_barrier();
}

#endif
