/* Shared pieces of the microbenchmarks: a statically allocated frame whose template is
 * given, and min/max/sum statistics that travel from PE to PE. */
#ifndef MICRO_H
#define MICRO_H
#include <emx/emx.h>
#include <stdint.h>

/* A frame (operand segment) of 32 words, aligned to its size (pe.threads.frame_words). */
#define MICRO_FRAME_WORDS 32
struct micro_frame {
  const emx_thread_fn *tmpl; /* word 0: the template (entry point per slot) */
  uint32_t slot[MICRO_FRAME_WORDS - 1];
} __attribute__((aligned(4 * MICRO_FRAME_WORDS)));

/* Continuation naming slot k (1-based, as the template) of a frame on PE pe. */
static inline emx_gaddr_t micro_cont(unsigned pe, struct micro_frame *f, unsigned k) {
  return emx_gaddr(pe, (uint32_t *)f + k);
}

struct micro_stats {
  uint32_t min, max, count, pad;
  uint64_t sum;
};
static inline void micro_stats_add(volatile struct micro_stats *s, uint32_t v) {
  if (s->count == 0 || v < s->min) s->min = v;
  if (v > s->max) s->max = v;
  s->sum += v;
  s->count++;
}
static inline void micro_stats_merge(volatile struct micro_stats *into,
                                     const volatile struct micro_stats *s) {
  if (!s->count) return;
  if (into->count == 0 || s->min < into->min) into->min = s->min;
  if (s->max > into->max) into->max = s->max;
  into->sum += s->sum;
  into->count += s->count;
}

/* Copy a block of words to another PE by SYSWR (small blocks only). */
static inline void micro_put(unsigned pe, volatile void *dst, const volatile void *src,
                             unsigned words) {
  for (unsigned k = 0; k < words; ++k)
    emx_send(EMX_PKT_syswr, emx_gaddr(pe, (volatile uint32_t *)dst + k),
             ((const volatile uint32_t *)src)[k]);
}
#endif
