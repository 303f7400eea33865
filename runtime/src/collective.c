/* Barrier, reductions, prefix sums (emx/collective.h): one butterfly engine.
 *
 * Before step k every PE holds the value of its block: the 2^k PEs that agree with it
 * above bit k (cut off at P). In step k the block and its partner block (bit k flipped)
 * exchange values, and both become the combined block of step k+1. With P not a power
 * of two the partner block may have fewer real PEs than ours; PE s+o of a block
 * (offset o) receives from the partner block's PE at offset o mod (its real PEs), so a
 * PE of a small block sends to several PEs, and every PE receives exactly one message
 * per step whose partner block is not empty.
 *
 * The message of step k goes to I-structure element elements[call parity][k] of the
 * receiver (the same address on every PE: a static variable). A PE that has finished
 * call c knows every PE has started call c (its result depends on all of them), hence
 * finished call c-1 and consumed that call's elements: the elements of call c+1, the
 * other parity, are free. */
#include <emx/collective.h>
#include <emx/istructure.h>
#include <emx/remote.h>
#include <limits.h>
#include <math.h>

enum { MAX_STEPS = 10 }; /* ceil(log2 1024) */
static volatile uint32_t elements[2][MAX_STEPS];
static uint32_t calls; /* collective calls so far: the same on every PE */

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef enum { T_I32, T_F32, T_NONE } elem_type; /* T_NONE: a barrier, no values */
typedef struct {
  elem_type type;
  emx_op_t op;
} kind;

ALWAYS_INLINE uint32_t combine(kind k, uint32_t lo, uint32_t hi) {
  if (k.type == T_NONE) return 0;
  if (k.type == T_I32) {
    const int32_t a = (int32_t)lo, b = (int32_t)hi;
    switch (k.op) {
      case EMX_OP_SUM: return lo + hi; /* wraps like the hardware */
      case EMX_OP_MAX: return (uint32_t)(a > b ? a : b);
      case EMX_OP_MIN: return (uint32_t)(a < b ? a : b);
    }
  } else {
    const float a = emx_bits_f32(lo), b = emx_bits_f32(hi);
    switch (k.op) {
      case EMX_OP_SUM: return emx_f32_bits(a + b);
      case EMX_OP_MAX: return emx_f32_bits(fmaxf(a, b));
      case EMX_OP_MIN: return emx_f32_bits(fminf(a, b));
    }
  }
  return lo;
}

ALWAYS_INLINE uint32_t identity(kind k) {
  switch (k.op) {
    case EMX_OP_MAX: return k.type == T_I32 ? (uint32_t)INT32_MIN : emx_f32_bits(-INFINITY);
    case EMX_OP_MIN: return k.type == T_I32 ? (uint32_t)INT32_MAX : emx_f32_bits(INFINITY);
    default: return 0; /* 0 and +0.0f */
  }
}

/* Step k for this PE: it sends to first, first+stride, ... < end, and receives one
 * message; lower: the partner block comes before ours. 0 if the partner block is empty. */
typedef struct {
  unsigned first, stride, end;
  int lower;
} step_plan;

static int plan(unsigned me, unsigned pes, unsigned k, step_plan *p) {
  const unsigned b = 1u << k, start = me & ~(b - 1), partner = start ^ b;
  if (partner >= pes) return 0;
  const unsigned mine = pes - start < b ? pes - start : b;
  const unsigned theirs = pes - partner < b ? pes - partner : b;
  *p = (step_plan){partner + (me - start), mine, partner + theirs, partner < start};
  return 1;
}

/* This step's message: often already there (the fast path needs no packet). */
static uint32_t receive(volatile uint32_t *e) {
  uint32_t v;
  if (__emx_itake(e, &v)) return v;
  return emx_iread(emx_gaddr_mine(e));
}

/* The combined value of all PEs; *prefix (if asked) that of the PEs below this one.
 * Inlined into each caller with its constant kind, so the choice of operation folds
 * away (a third fewer clocks per step than one shared function). */
ALWAYS_INLINE uint32_t butterfly(uint32_t value, kind k, uint32_t *prefix) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count(), parity = calls++ & 1;
  uint32_t below = identity(k);
  for (unsigned step = 0; (1u << step) < pes; ++step) {
    step_plan p;
    if (!plan(me, pes, step, &p)) continue;
    volatile uint32_t *e = &elements[parity][step];
    for (unsigned t = p.first; t < p.end; t += p.stride) emx_iwrite(emx_gaddr(t, e), value);
    const uint32_t other = receive(e);
    if (p.lower) {
      below = combine(k, other, below);
      value = combine(k, other, value);
    } else {
      value = combine(k, value, other);
    }
  }
  if (prefix) *prefix = below;
  return value;
}

void emx_barrier(void) { (void)butterfly(0, (kind){T_NONE, EMX_OP_SUM}, 0); }

int32_t emx_allreduce_i32(int32_t x, emx_op_t op) {
  return (int32_t)butterfly((uint32_t)x, (kind){T_I32, op}, 0);
}

float emx_allreduce_f32(float x, emx_op_t op) {
  return emx_bits_f32(butterfly(emx_f32_bits(x), (kind){T_F32, op}, 0));
}

static uint32_t scan(uint32_t x, kind k, int inclusive) {
  uint32_t below;
  (void)butterfly(x, k, &below);
  return inclusive ? combine(k, below, x) : below;
}

int32_t emx_scan_i32(int32_t x, int inclusive) {
  return (int32_t)scan((uint32_t)x, (kind){T_I32, EMX_OP_SUM}, inclusive);
}

float emx_scan_f32(float x, int inclusive) {
  return emx_bits_f32(scan(emx_f32_bits(x), (kind){T_F32, EMX_OP_SUM}, inclusive));
}

/* Vectors: the message is a block write into the receiver's buffer for the step, then
 * a flag in the step's element, performed there after the data (emx_iwrite_flag). */
static uint32_t chunks[2][MAX_STEPS][EMX_VECTOR_CHUNK];

/* out[i] = lo[i] op hi[i], with the choice of operation outside the loop. */
#define COMBINE_LOOP(T, expr)                                           \
  do {                                                                  \
    const T *a = (const T *)lo, *b = (const T *)hi;                     \
    T *o = (T *)out;                                                    \
    for (unsigned i = 0; i < n; ++i) o[i] = (expr);                     \
  } while (0)
static void combine_vec(kind k, uint32_t *out, const uint32_t *lo, const uint32_t *hi,
                        unsigned n) {
  if (k.type == T_I32 && k.op == EMX_OP_SUM) COMBINE_LOOP(uint32_t, a[i] + b[i]);
  else if (k.type == T_I32 && k.op == EMX_OP_MAX) COMBINE_LOOP(int32_t, a[i] > b[i] ? a[i] : b[i]);
  else if (k.type == T_I32) COMBINE_LOOP(int32_t, a[i] < b[i] ? a[i] : b[i]);
  else if (k.op == EMX_OP_SUM) COMBINE_LOOP(float, a[i] + b[i]);
  else if (k.op == EMX_OP_MAX) COMBINE_LOOP(float, fmaxf(a[i], b[i]));
  else COMBINE_LOOP(float, fminf(a[i], b[i]));
}
#undef COMBINE_LOOP

/* below (if not null, sums only): += the partner block's values when it comes before
 * ours, so that it ends as the exclusive prefix over lower-numbered PEs. */
static void butterfly_vec(uint32_t *v, uint32_t *below, unsigned n, kind k) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count(), parity = calls++ & 1;
  for (unsigned step = 0; (1u << step) < pes; ++step) {
    step_plan p;
    if (!plan(me, pes, step, &p)) continue;
    volatile uint32_t *e = &elements[parity][step];
    uint32_t *in = chunks[parity][step];
    for (unsigned t = p.first; t < p.end; t += p.stride) {
      emx_put(emx_gaddr(t, in), v, n);
      emx_iwrite_flag(emx_gaddr(t, e), 1);
    }
    (void)receive(e);
    if (p.lower) {
      if (below) combine_vec(k, below, in, below, n);
      combine_vec(k, v, in, v, n);
    } else {
      combine_vec(k, v, v, in, n);
    }
  }
}

static void allreduce_vec(uint32_t *v, uint32_t *below, size_t n, kind k) {
  for (size_t done = 0; done < n; done += EMX_VECTOR_CHUNK)
    butterfly_vec(v + done, below ? below + done : 0,
                  n - done < EMX_VECTOR_CHUNK ? (unsigned)(n - done) : EMX_VECTOR_CHUNK, k);
}

void emx_allreduce_vec_i32(int32_t *v, size_t n, emx_op_t op) {
  allreduce_vec((uint32_t *)v, 0, n, (kind){T_I32, op});
}

void emx_allreduce_vec_f32(float *v, size_t n, emx_op_t op) {
  allreduce_vec((uint32_t *)v, 0, n, (kind){T_F32, op});
}

void emx_sum_scan_vec_i32(int32_t *v, int32_t *below, size_t n) {
  for (size_t i = 0; i < n; ++i) below[i] = 0;
  allreduce_vec((uint32_t *)v, (uint32_t *)below, n, (kind){T_I32, EMX_OP_SUM});
}
