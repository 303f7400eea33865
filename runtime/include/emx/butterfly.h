/* The butterfly of the scalar collectives (collective.h): not part of the user API.
 *
 * Before step k every PE holds the value of its block (the 2^k PEs that agree with it
 * above bit k, cut off at P); it sends that value to the partner block (bit k flipped)
 * and combines the one message it receives. This PE's steps, its targets and whether
 * the partner block comes first, are planned once at start-up (__emx_collective_init):
 * a step costs its send, its receive and its combine. P not a power of two: a PE whose
 * partner does not exist receives from one of the partner block's real PEs, so a PE of
 * a small block sends to several (extra > 0). Messages are I-structure elements, one per
 * step, in two sets used by alternate calls (docs/runtime.md, "Collectives").
 *
 * The integer sum and the sum with its prefix are EM-C's compiled code, by hand
 * (runtime/src/butterfly.S): each step a thread with the live values in registers,
 * saved in the collectives' frame only when it waits; the caller's inline asm
 * (EMX__BFLY_CALL) makes GCC keep the caller's own live values across it, as a
 * suspension does. The other kinds (barrier, max, min, floats, vectors) are
 * __emx_butterfly below, a C engine compiled into their functions: its waits keep the
 * values GCC finds live, in the function's stack frame. */
#ifndef EMX_BUTTERFLY_H
#define EMX_BUTTERFLY_H

#include "istructure.h"

/* Included by collective.h after emx_op_t. */

enum { EMX__BFLY_MAX_STEPS = 10 }; /* ceil(log2 1024) */

/* One step of this PE's plan, in one table per element set. Field order: the runtime's
 * butterfly_layout.h (its hand-written steps read them). */
typedef struct {
  emx_gaddr_t to;             /* the first target's element; 0: after the last step */
  int32_t extra;              /* PEs sent to beyond the first: 0 when P is a power of two,
                                 -1 (none) to 1 else; -1 at the end */
  volatile uint32_t *element; /* this PE's element */
  emx_gaddr_t self;           /* its global address */
  uint32_t lower;             /* all ones if the partner block comes before ours, else 0 */
  uint32_t stride;            /* global-address step to the next PE sent to */
} __emx_bfly_step;

/* The plan of each element set, each with its end entry. */
extern __emx_bfly_step __emx_bfly_steps[2][EMX__BFLY_MAX_STEPS + 1];
extern uint32_t __emx_coll_calls;             /* collective calls so far (every PE alike) */
/* The elements: set 1 follows set 0, EMX__BFLY_MAX_STEPS words on. */
extern volatile uint32_t __emx_coll_elements[2][EMX__BFLY_MAX_STEPS];
/* The frame a waiting step suspends in (the collective's own, as an EM-C function's
 * operand segment: one collective at a time per PE) and its slot 1's global address. */
extern emx_ctx_t *__emx_coll_frame;
extern emx_gaddr_t __emx_coll_cont;
void __emx_collective_init(void);

/* A call of butterfly.S's steps FN: x in a0; a0 and a1 come back (the sum; the prefix).
 * Every register but sp, gp, tp and s0 is clobbered, as at a suspension (threads.h). */
#define EMX__BFLY_CALL(fn, x, a1_out)                                                \
  __extension__({                                                                    \
    register uint32_t a0_ __asm__("a0") = (x);                                       \
    register uint32_t a1_ __asm__("a1");                                             \
    __asm__ volatile("jal " #fn : "+r"(a0_), "=r"(a1_) : : "a2", EMX__SUSPEND_CLOBBERS); \
    (a1_out) = a1_;                                                                  \
    a0_;                                                                             \
  })

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
  uint32_t lower = identity;
  for (const __emx_bfly_step *s = __emx_bfly_steps[__emx_coll_calls++ & 1]; s->to; ++s) {
    emx_gaddr_t to = s->to;
    if (__builtin_expect(s->extra == 0, 1)) emx_iwrite(to, value);
    else
      for (int32_t n = s->extra; n >= 0; --n, to += s->stride) emx_iwrite(to, value);
    uint32_t other;
    /* Often already there: then no packet. */
    if (!__emx_itake(s->element, &other)) other = __emx_bfly_wait(s->self);
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
