/* Barrier, reductions and prefix sums over all PEs. Every PE must make the same
 * collective calls in the same order (SPMD). They block the calling C code (other
 * threads run meanwhile) and take ceil(log2 P) steps of one message each for any P: a
 * butterfly over blocks of 2^k PEs, where a PE whose partner does not exist (P not a
 * power of two) gets the partner block's value from one of that block's real PEs.
 * Messages are I-structure elements, one per step, in two sets used by alternate calls,
 * so a fast PE cannot overwrite an element of the previous call not yet consumed. Every
 * PE gets the same bits, also for float sums (the two halves of a block are always
 * combined lower half first). docs/runtime.md. */
#ifndef EMX_COLLECTIVE_H
#define EMX_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { EMX_OP_SUM, EMX_OP_MAX, EMX_OP_MIN } emx_op_t;

#include "butterfly.h"

void emx_barrier(void);

int32_t emx_allreduce_i32(int32_t x, emx_op_t op);
float emx_allreduce_f32(float x, emx_op_t op);
/* Integer sums and prefix sums: EM-C's compiled steps (emx/butterfly.h), called from an
 * inline asm that keeps only the caller's live values across their suspensions. */
static inline int32_t emx_sum_i32(int32_t x) {
  uint32_t unused;
  const int32_t sum = (int32_t)EMX__BFLY_CALL(__emx_bfly_sum_i32, (uint32_t)x, unused);
  (void)unused;
  return sum;
}
static inline int32_t emx_max_i32(int32_t x) { return emx_allreduce_i32(x, EMX_OP_MAX); }
static inline int32_t emx_min_i32(int32_t x) { return emx_allreduce_i32(x, EMX_OP_MIN); }
static inline float emx_sum_f32(float x) { return emx_allreduce_f32(x, EMX_OP_SUM); }
static inline float emx_max_f32(float x) { return emx_allreduce_f32(x, EMX_OP_MAX); }
static inline float emx_min_f32(float x) { return emx_allreduce_f32(x, EMX_OP_MIN); }

/* Prefix sums in PE order: PE p gets x(0) + ... + x(p) (inclusive) or + x(p-1)
 * (exclusive; 0 on PE 0). */
static inline int32_t emx_scan_i32(int32_t x, int inclusive) {
  uint32_t below;
  (void)EMX__BFLY_CALL(__emx_bfly_sum_scan_i32, (uint32_t)x, below);
  return (int32_t)below + (inclusive ? x : 0);
}
/* Both in one butterfly: returns the sum over all PEs, *below the exclusive prefix. */
static inline int32_t emx_sum_scan_i32(int32_t x, int32_t *below) {
  uint32_t b;
  const int32_t sum = (int32_t)EMX__BFLY_CALL(__emx_bfly_sum_scan_i32, (uint32_t)x, b);
  *below = (int32_t)b;
  return sum;
}
float emx_scan_f32(float x, int inclusive);
static inline int32_t emx_prefix_sum_i32(int32_t x) { return emx_scan_i32(x, 1); }
static inline int32_t emx_exclusive_prefix_sum_i32(int32_t x) { return emx_scan_i32(x, 0); }

/* Element-wise reduction of an n-element vector over all PEs, in place (e.g. the digit
 * counts of a radix sort). Every PE passes the same n. Data moves by block writes in
 * chunks of EMX_VECTOR_CHUNK elements. */
#define EMX_VECTOR_CHUNK 256
void emx_allreduce_vec_i32(int32_t *v, size_t n, emx_op_t op);
void emx_allreduce_vec_f32(float *v, size_t n, emx_op_t op);
/* Both at once, sums of int32 (a radix sort's global step): v becomes the sum over all
 * PEs, below[i] the sum of v[i] over the PEs numbered lower than this one (0 on PE 0). */
void emx_sum_scan_vec_i32(int32_t *v, int32_t *below, size_t n);

#endif
