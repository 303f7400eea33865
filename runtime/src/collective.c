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
 * The steps are emx/butterfly.h's, inline: the scalar sums and prefixes are compiled into
 * their callers (collective.h), the other kinds here, one function per kind.
 *
 * The message of step k goes to I-structure element elements[call parity][k] of the
 * receiver (the same address on every PE: a static variable). A PE that has finished
 * call c knows every PE has started call c (its result depends on all of them), hence
 * finished call c-1 and consumed that call's elements: the elements of call c+1, the
 * other parity, are free. */
#include <emx/collective.h>
#include <emx/remote.h>
#include <math.h>

#include "butterfly_layout.h"
#include "layer_internal.h"

#define L_AT(name, member) \
  _Static_assert((name) == __builtin_offsetof(__emx_bfly_step, member), #name)
L_AT(BFLY_TO, to);
L_AT(BFLY_EXTRA, extra);
L_AT(BFLY_ELEM, element);
L_AT(BFLY_SELF, self);
L_AT(BFLY_LOWER, lower);
L_AT(BFLY_STRIDE, stride);
_Static_assert(BFLY_BYTES == sizeof(__emx_bfly_step), "BFLY_BYTES");
_Static_assert(BFLY_MAX_STEPS == EMX__BFLY_MAX_STEPS, "BFLY_MAX_STEPS");
_Static_assert(BFLY_PKT_IWRITE == EMX_PKT_iwrite && BFLY_PKT_IREAD == EMX_PKT_iread, "BFLY_PKT");
/* The live values butterfly.S keeps in the frame while it waits: words no 1-input reply
 * writes and the lean wait does not use (sp, ra, tp, s0). */
_Static_assert(BFLY_F_VALUE == __builtin_offsetof(emx_ctx_t, slot) &&
                   BFLY_F_LOWER == __builtin_offsetof(emx_ctx_t, id) &&
                   BFLY_F_STEP == __builtin_offsetof(emx_ctx_t, cont),
               "BFLY_F_*");
#undef L_AT

__emx_bfly_step __emx_bfly_steps[2][EMX__BFLY_MAX_STEPS + 1];
volatile uint32_t __emx_coll_elements[2][EMX__BFLY_MAX_STEPS];
uint32_t __emx_coll_calls;
emx_ctx_t *__emx_coll_frame;
emx_gaddr_t __emx_coll_cont;

void __emx_bfly_resume_sum(uint32_t, uint32_t, uint32_t);  /* butterfly.S */
void __emx_bfly_resume_scan(uint32_t, uint32_t, uint32_t);
/* Slots 1, 2: the C engine's wait (__emx_suspend_frame); 3, 4: butterfly.S's. */
static const emx_thread_fn coll_frame_template[] = {
    0, __emx_resume_frame, __emx_resume_frame, __emx_bfly_resume_sum, __emx_bfly_resume_scan};
_Static_assert(sizeof coll_frame_template / sizeof *coll_frame_template == BFLY_SLOT_SCAN + 1,
               "the frame's slots");

/* This PE's steps (emx/butterfly.h), from the start-up of the layer. Step k: the block
 * of 2^k PEs starting at `start` and its partner block `partner`; PE start+o sends to
 * the partner block's PEs partner+o, partner+o+mine, ... below its end. A step whose
 * partner block is empty (P not a power of two) is left out. */
void __emx_collective_init(void) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  for (unsigned set = 0; set < 2; ++set) {
    __emx_bfly_step *s = __emx_bfly_steps[set];
    for (unsigned k = 0; (1u << k) < pes; ++k) {
      const unsigned b = 1u << k, start = me & ~(b - 1), partner = start ^ b;
      if (partner >= pes) continue;
      const unsigned mine = pes - start < b ? pes - start : b;
      const unsigned theirs = pes - partner < b ? pes - partner : b;
      const unsigned first = partner + (me - start), end = partner + theirs;
      volatile uint32_t *e = &__emx_coll_elements[set][k];
      *s++ = (__emx_bfly_step){emx_gaddr(first, e),
                               (int32_t)(first < end ? (end - first + mine - 1) / mine : 0) - 1,
                               e,
                               emx_gaddr(me, e),
                               partner < start ? ~0u : 0,
                               (uint32_t)mine << EMX_GADDR_PE_SHIFT};
    }
    *s = (__emx_bfly_step){.to = 0, .extra = -1}; /* the end */
  }
  emx_ctx_t *f = (emx_ctx_t *)__emx_frames_carve(1);
  f->tmpl = coll_frame_template;
  __emx_coll_cont = f->cont = emx_gaddr_mine(&f->slot);
  __emx_coll_frame = f;
}

void emx_barrier(void) { (void)__emx_butterfly(0, EMX__T_NONE, EMX_OP_SUM, 0, 0); }

int32_t emx_allreduce_i32(int32_t x, emx_op_t op) {
  switch (op) { /* one butterfly per operation: the choice outside the steps */
    case EMX_OP_MAX: return (int32_t)__emx_butterfly((uint32_t)x, EMX__T_I32, EMX_OP_MAX, 0, 0);
    case EMX_OP_MIN: return (int32_t)__emx_butterfly((uint32_t)x, EMX__T_I32, EMX_OP_MIN, 0, 0);
    default: return emx_sum_i32(x);
  }
}

float emx_allreduce_f32(float x, emx_op_t op) {
  const uint32_t v = emx_f32_bits(x);
  switch (op) {
    case EMX_OP_MAX: return emx_bits_f32(__emx_butterfly(v, EMX__T_F32, EMX_OP_MAX, 0, 0));
    case EMX_OP_MIN: return emx_bits_f32(__emx_butterfly(v, EMX__T_F32, EMX_OP_MIN, 0, 0));
    default: return emx_bits_f32(__emx_butterfly(v, EMX__T_F32, EMX_OP_SUM, 0, 0));
  }
}

float emx_scan_f32(float x, int inclusive) {
  uint32_t below;
  (void)__emx_butterfly(emx_f32_bits(x), EMX__T_F32, EMX_OP_SUM, 0, &below);
  return inclusive ? emx_bits_f32(below) + x : emx_bits_f32(below);
}

/* Vectors: the message is a block write into the receiver's buffer for the step, then
 * a flag in the step's element, performed there after the data (emx_iwrite_flag). */
static uint32_t chunks[2][EMX__BFLY_MAX_STEPS][EMX_VECTOR_CHUNK];

typedef struct {
  __emx_elem_type type;
  emx_op_t op;
} kind;

/* out[i] = lo[i] op hi[i], with the choice of operation outside the loop. */
#define COMBINE_LOOP(T, expr)                                           \
  do {                                                                  \
    const T *a = (const T *)lo, *b = (const T *)hi;                     \
    T *o = (T *)out;                                                    \
    for (unsigned i = 0; i < n; ++i) o[i] = (expr);                     \
  } while (0)
static void combine_vec(kind k, uint32_t *out, const uint32_t *lo, const uint32_t *hi,
                        unsigned n) {
  if (k.type == EMX__T_I32 && k.op == EMX_OP_SUM) COMBINE_LOOP(uint32_t, a[i] + b[i]);
  else if (k.type == EMX__T_I32 && k.op == EMX_OP_MAX) COMBINE_LOOP(int32_t, a[i] > b[i] ? a[i] : b[i]);
  else if (k.type == EMX__T_I32) COMBINE_LOOP(int32_t, a[i] < b[i] ? a[i] : b[i]);
  else if (k.op == EMX_OP_SUM) COMBINE_LOOP(float, a[i] + b[i]);
  else if (k.op == EMX_OP_MAX) COMBINE_LOOP(float, fmaxf(a[i], b[i]));
  else COMBINE_LOOP(float, fminf(a[i], b[i]));
}
#undef COMBINE_LOOP

/* below (if not null, sums only): += the partner block's values when it comes before
 * ours, so that it ends as the exclusive prefix over lower-numbered PEs. The steps of
 * the scalar butterfly (emx/butterfly.h), with a block per message. */
static void butterfly_vec(uint32_t *v, uint32_t *below, unsigned n, kind k) {
  const uint32_t parity = __emx_coll_calls++ & 1;
  for (const __emx_bfly_step *s = __emx_bfly_steps[parity]; s->to; ++s) {
    const unsigned step = (unsigned)(s->element - __emx_coll_elements[parity]);
    uint32_t *in = chunks[parity][step];
    emx_gaddr_t to = s->to;
    for (int32_t t = 0; t <= s->extra; ++t, to += s->stride) {
      emx_put(emx_gaddr(emx_gaddr_pe(to), in), v, n);
      emx_iwrite_flag(to, 1);
    }
    uint32_t flag;
    if (!__emx_itake(s->element, &flag)) (void)__emx_bfly_wait(s->self);
    if (s->lower) {
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
  allreduce_vec((uint32_t *)v, 0, n, (kind){EMX__T_I32, op});
}

void emx_allreduce_vec_f32(float *v, size_t n, emx_op_t op) {
  allreduce_vec((uint32_t *)v, 0, n, (kind){EMX__T_F32, op});
}

void emx_sum_scan_vec_i32(int32_t *v, int32_t *below, size_t n) {
  for (size_t i = 0; i < n; ++i) below[i] = 0;
  allreduce_vec((uint32_t *)v, (uint32_t *)below, n, (kind){EMX__T_I32, EMX_OP_SUM});
}
