/* The butterfly of the scalar collectives (collective.h), inline: not part of the user
 * API. It is compiled into its caller, so the suspension of each step keeps only the
 * values live across it (EM-C's "save only the live variables"); the callee-saved
 * registers are saved once, in the prologue of the function that contains the call. A
 * called collective that suspends inside a helper saved all 24 of them at every step.
 *
 * Before step k every PE holds the value of its block (the 2^k PEs that agree with it
 * above bit k, cut off at P); it sends that value to the partner block (bit k flipped)
 * and combines the one message it receives. This PE's steps, its targets and whether
 * the partner block comes first, are planned once at start-up (__emx_collective_init):
 * a step costs its send, its receive and its combine. P not a power of two: a PE whose
 * partner does not exist receives from one of the partner block's real PEs, so a PE of
 * a small block sends to several (count > 1). Messages are I-structure elements, one per
 * step, in two sets used by alternate calls (docs/runtime.md, "Collectives"). */
#ifndef EMX_BUTTERFLY_H
#define EMX_BUTTERFLY_H

#include "istructure.h"

/* Included by collective.h after emx_op_t. */

enum { EMX__BFLY_MAX_STEPS = 10 }; /* ceil(log2 1024) */

typedef struct {
  emx_gaddr_t to;             /* the first PE's element of set 0 */
  uint32_t stride;            /* global-address step to the next PE sent to */
  uint32_t count;             /* PEs sent to: 1 when P is a power of two, 0 to 2 else */
  volatile uint32_t *element; /* this PE's element of set 0 */
  emx_gaddr_t self;           /* its global address */
  uint32_t lower;             /* the partner block comes before ours */
} __emx_bfly_step;

extern __emx_bfly_step __emx_bfly_steps[EMX__BFLY_MAX_STEPS];
extern const __emx_bfly_step *__emx_bfly_end; /* after this PE's last non-empty step */
extern uint32_t __emx_coll_calls;             /* collective calls so far (every PE alike) */
/* The elements: set 1 follows set 0, EMX__BFLY_MAX_STEPS words on. */
extern volatile uint32_t __emx_coll_elements[2][EMX__BFLY_MAX_STEPS];
/* The frame a waiting step suspends in (the collective's own, as an EM-C function's
 * operand segment: one collective at a time per PE) and its slot 1's global address. */
extern emx_ctx_t *__emx_coll_frame;
extern emx_gaddr_t __emx_coll_cont;
void __emx_collective_init(void);

/* Waits for local element e (its global address): the I-structure read names the
 * collective's frame, whose lean suspension keeps only the live values. */
static inline uint32_t __emx_bfly_wait(emx_gaddr_t e) {
  emx_send(EMX_PKT_iread, e, __emx_coll_cont);
  return __emx_suspend_frame(__emx_coll_frame);
}

typedef enum { EMX__T_I32, EMX__T_F32, EMX__T_NONE } __emx_elem_type; /* NONE: a barrier */

#define EMX__ALWAYS_INLINE static inline __attribute__((always_inline))

EMX__ALWAYS_INLINE uint32_t __emx_bfly_combine(__emx_elem_type type, emx_op_t op, uint32_t lo,
                                               uint32_t hi) {
  if (type == EMX__T_NONE) return 0;
  if (type == EMX__T_I32) {
    const int32_t a = (int32_t)lo, b = (int32_t)hi;
    switch (op) {
      case EMX_OP_MAX: return (uint32_t)(a > b ? a : b);
      case EMX_OP_MIN: return (uint32_t)(a < b ? a : b);
      default: return lo + hi; /* wraps like the hardware */
    }
  }
  const float a = emx_bits_f32(lo), b = emx_bits_f32(hi);
  switch (op) {
    case EMX_OP_MAX: return emx_f32_bits(__builtin_fmaxf(a, b));
    case EMX_OP_MIN: return emx_f32_bits(__builtin_fminf(a, b));
    default: return emx_f32_bits(a + b);
  }
}

/* The combined value of all PEs; *below (if not null) that of the PEs numbered lower
 * than this one (the identity on PE 0). type and op constant: the choice folds away. */
EMX__ALWAYS_INLINE uint32_t __emx_butterfly(uint32_t value, __emx_elem_type type, emx_op_t op,
                                            uint32_t identity, uint32_t *below) {
  const uint32_t set = (__emx_coll_calls++ & 1) * EMX__BFLY_MAX_STEPS;
  uint32_t lower = identity;
  for (const __emx_bfly_step *s = __emx_bfly_steps; s != __emx_bfly_end; ++s) {
    emx_gaddr_t to = s->to + set;
    if (__builtin_expect(s->count == 1, 1)) emx_iwrite(to, value);
    else
      for (uint32_t n = s->count; n; --n, to += s->stride) emx_iwrite(to, value);
    uint32_t other;
    /* Often already there: then no packet. */
    if (!__emx_itake(s->element + set, &other)) other = __emx_bfly_wait(s->self + set);
    if (s->lower) {
      if (below) lower = __emx_bfly_combine(type, op, other, lower);
      value = __emx_bfly_combine(type, op, other, value);
    } else {
      value = __emx_bfly_combine(type, op, value, other);
    }
  }
  if (below) *below = lower;
  return value;
}

#endif
