/* Reduction operations: the predefined ones on every basic type they are defined for,
 * MAXLOC/MINLOC on the pair types, element by element on derived types of them, and user
 * functions (MPI_Op_create) on any type. */
#include <stdint.h>
#include <stdlib.h>

#include "datatypes.h"
#include "mpi_internal.h"

/* b[i] = a[i] op b[i] for one C type; logical and bitwise operations only for integers
 * (INTEGER = 1), as MPI-1 4.9.2 defines. */
#define DEFINE_APPLY(name, T, INTEGER)                                           \
  static int name(MPI_Op op, const T *a, T *b, int n) {                          \
    switch (op) {                                                                \
      case MPI_SUM: for (int i = 0; i < n; ++i) b[i] = a[i] + b[i]; break;        \
      case MPI_PROD: for (int i = 0; i < n; ++i) b[i] = a[i] * b[i]; break;       \
      case MPI_MAX: for (int i = 0; i < n; ++i) if (a[i] > b[i]) b[i] = a[i]; break; \
      case MPI_MIN: for (int i = 0; i < n; ++i) if (a[i] < b[i]) b[i] = a[i]; break; \
      default: break;                                                            \
    }                                                                            \
    if (op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN)       \
      return MPI_SUCCESS;                                                        \
    if (!(INTEGER)) return MPI_ERR_OP; /* logical, bitwise: integers only */     \
    switch (op) {                                                                \
      case MPI_LAND: for (int i = 0; i < n; ++i) b[i] = a[i] && b[i]; break;      \
      case MPI_LOR: for (int i = 0; i < n; ++i) b[i] = a[i] || b[i]; break;       \
      case MPI_LXOR: for (int i = 0; i < n; ++i) b[i] = !a[i] != !b[i]; break;    \
      default: return name##_bits(op, (const void *)a, (void *)b, n);            \
    }                                                                            \
    return MPI_SUCCESS;                                                          \
  }

/* Bitwise operations of integer types (a separate function so floats never see `&`). */
#define DEFINE_BITS(name, T)                                                     \
  static int name##_bits(MPI_Op op, const void *va, void *vb, int n) {            \
    const T *a = va;                                                             \
    T *b = vb;                                                                   \
    switch (op) {                                                                \
      case MPI_BAND: for (int i = 0; i < n; ++i) b[i] = a[i] & b[i]; break;       \
      case MPI_BOR: for (int i = 0; i < n; ++i) b[i] = a[i] | b[i]; break;        \
      case MPI_BXOR: for (int i = 0; i < n; ++i) b[i] = a[i] ^ b[i]; break;       \
      default: return MPI_ERR_OP;                                                \
    }                                                                            \
    return MPI_SUCCESS;                                                          \
  }
#define NO_BITS(name)                                                           \
  static int name##_bits(MPI_Op op, const void *a, void *b, int n) {             \
    (void)op, (void)a, (void)b, (void)n;                                         \
    return MPI_ERR_OP;                                                           \
  }

DEFINE_BITS(apply_i8, int8_t)
DEFINE_APPLY(apply_i8, int8_t, 1)
DEFINE_BITS(apply_u8, uint8_t)
DEFINE_APPLY(apply_u8, uint8_t, 1)
DEFINE_BITS(apply_i16, int16_t)
DEFINE_APPLY(apply_i16, int16_t, 1)
DEFINE_BITS(apply_u16, uint16_t)
DEFINE_APPLY(apply_u16, uint16_t, 1)
DEFINE_BITS(apply_i32, int32_t)
DEFINE_APPLY(apply_i32, int32_t, 1)
DEFINE_BITS(apply_u32, uint32_t)
DEFINE_APPLY(apply_u32, uint32_t, 1)
DEFINE_BITS(apply_i64, int64_t)
DEFINE_APPLY(apply_i64, int64_t, 1)
DEFINE_BITS(apply_u64, uint64_t)
DEFINE_APPLY(apply_u64, uint64_t, 1)
NO_BITS(apply_f32)
DEFINE_APPLY(apply_f32, float, 0)
NO_BITS(apply_f64)
DEFINE_APPLY(apply_f64, double, 0)
NO_BITS(apply_f128) /* long double: IEEE quad in software (libgcc's __addtf3 ...) */
DEFINE_APPLY(apply_f128, long double, 0)

/* C _Bool: the logical operations only, as MPI defines. */
static int apply_bool(MPI_Op op, const void *va, void *vb, int n) {
  if (op != MPI_LAND && op != MPI_LOR && op != MPI_LXOR) return MPI_ERR_OP;
  return apply_u8(op, va, vb, n);
}

/* MPI_BYTE: the bitwise operations only, as MPI defines. */
static int apply_byte(MPI_Op op, const void *va, void *vb, int n) {
  return apply_u8_bits(op, va, vb, n);
}

/* MAXLOC / MINLOC: the extreme value, and the smallest index among equal values. */
#define DEFINE_LOC(name, V)                                                       \
  static int name(MPI_Op op, const void *va, void *vb, int n) {                   \
    const struct { V v; int i; } *a = va;                                         \
    struct { V v; int i; } *b = vb;                                               \
    if (op != MPI_MAXLOC && op != MPI_MINLOC) return MPI_ERR_OP;                  \
    for (int k = 0; k < n; ++k) {                                                 \
      const int better = op == MPI_MAXLOC ? a[k].v > b[k].v : a[k].v < b[k].v;     \
      if (better || (a[k].v == b[k].v && a[k].i < b[k].i)) {                      \
        b[k].v = a[k].v;                                                          \
        b[k].i = a[k].i;                                                          \
      }                                                                           \
    }                                                                             \
    return MPI_SUCCESS;                                                           \
  }
DEFINE_LOC(apply_loc_int, int)
DEFINE_LOC(apply_loc_short, short)
DEFINE_LOC(apply_loc_float, float)
DEFINE_LOC(apply_loc_double, double)
DEFINE_LOC(apply_loc_ldouble, long double)

/* ---- User operations ------------------------------------------------------------------- */

enum { USER_OPS = 32 }; /* handles 32.. */
typedef struct {
  MPI_User_function *fn;
  int commute;
} user_op;
static user_op *user_ops;
static int user_count;

static const user_op *user_get(MPI_Op op) {
  const int k = op - USER_OPS;
  return k >= 0 && k < user_count && user_ops[k].fn ? &user_ops[k] : 0;
}

int op_valid(MPI_Op op) { return (op >= MPI_MAX && op <= MPI_MINLOC) || user_get(op); }
int op_commutative(MPI_Op op) {
  const user_op *u = user_get(op);
  return !u || u->commute;
}

int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op) {
  int k = 0;
  while (k < user_count && user_ops[k].fn) ++k;
  if (k == user_count) {
    user_op *t = realloc(user_ops, (user_count + 8) * sizeof *t);
    if (!t) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Op_create", "no memory");
    for (int j = user_count; j < user_count + 8; ++j) t[j].fn = 0;
    user_ops = t;
    user_count += 8;
  }
  user_ops[k] = (user_op){fn, commute};
  *op = USER_OPS + k;
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op *op) {
  if (!user_get(*op))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free", "not a user operation: %d", *op);
  user_ops[*op - USER_OPS].fn = 0;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

/* A predefined operation on n elements of one basic type. */
static int apply_basic(MPI_Op op, const void *in, void *inout, int n, int base) {
  switch (basic_types[base].kind) {
    case K_I8: return apply_i8(op, in, inout, n);
    case K_U8: return apply_u8(op, in, inout, n);
    case K_I16: return apply_i16(op, in, inout, n);
    case K_U16: return apply_u16(op, in, inout, n);
    case K_I32: return apply_i32(op, in, inout, n);
    case K_U32: return apply_u32(op, in, inout, n);
    case K_I64: return apply_i64(op, in, inout, n);
    case K_U64: return apply_u64(op, in, inout, n);
    case K_BOOL: return apply_bool(op, in, inout, n);
    case K_BYTE: return apply_byte(op, in, inout, n);
    case K_F32: return apply_f32(op, in, inout, n);
    case K_F64: return apply_f64(op, in, inout, n);
    case K_F128: return apply_f128(op, in, inout, n);
    case K_PAIR_INT: return apply_loc_int(op, in, inout, n);
    case K_PAIR_SHORT: return apply_loc_short(op, in, inout, n);
    case K_PAIR_FLOAT: return apply_loc_float(op, in, inout, n);
    case K_PAIR_DOUBLE: return apply_loc_double(op, in, inout, n);
    case K_PAIR_LDOUBLE: return apply_loc_ldouble(op, in, inout, n);
    default: return MPI_ERR_OP;
  }
}

/* inout = in op inout on n copies of t laid out as the type says (the user's form: what
 * a user function sees). A predefined operation on a derived type combines each basic
 * element with its own type's operation; every run's type is checked first, so n = 0
 * (with no buffers) checks the pairing. */
static int apply_laid_out(MPI_Op op, const void *in, void *inout, int n, MPI_Datatype t) {
  const user_op *u = user_get(op);
  if (u) {
    u->fn((void *)in, inout, &n, &t);
    return MPI_SUCCESS;
  }
  int per;
  const int base = type_base(t, &per);
  if (base) return apply_basic(op, in, inout, n * per, base);
  const dtype *d = type_get(t);
  if (!d) return MPI_ERR_TYPE;
  for (int k = 0; k < d->nruns; ++k) {
    const int err = apply_basic(op, 0, 0, 0, d->runs[k].type);
    if (err) return err;
  }
  const MPI_Aint extent = d->ub - d->lb;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d->nruns; ++k) {
      const MPI_Aint at = i * extent + d->runs[k].disp;
      apply_basic(op, (const char *)in + at, (char *)inout + at, d->runs[k].count, d->runs[k].type);
    }
  return MPI_SUCCESS;
}

/* inout = in op inout on n copies of t in packed form (collectives.c combines packed
 * data; for a contiguous type that is the user's form). A predefined operation on a type
 * of one basic type combines the packed elements in place; anything else (a user function
 * sees the type's layout, and elements of mixed types would be misaligned when packed) is
 * unpacked into scratch, combined, and packed back. */
int op_apply(MPI_Op op, const void *in, void *inout, int n, MPI_Datatype t) {
  const dtype *d = type_get(t);
  if (type_contiguous(t) || !n) return apply_laid_out(op, in, inout, n, t);
  if (!user_get(op) && d && d->base && !basic_padded(d->base))
    return apply_basic(op, in, inout, n * d->elements, d->base);
  int64_t lo, hi;
  type_span(t, n, &lo, &hi);
  const uint32_t span = (uint32_t)(hi - lo), bytes = (uint32_t)n * (uint32_t)type_size(t);
  char *a = malloc(span ? span : 4), *b = malloc(span ? span : 4);
  int err = MPI_ERR_NO_MEM;
  if (a && b) {
    type_unpack(in, bytes, a - lo, n, t);
    type_unpack(inout, bytes, b - lo, n, t);
    err = apply_laid_out(op, a - lo, b - lo, n, t);
    type_pack(b - lo, n, t, inout);
  }
  free(a);
  free(b);
  return err;
}

int MPI_Op_commutative(MPI_Op op, int *commute) {
  if (!op_valid(op))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative", "invalid operation %d", op);
  *commute = op_commutative(op);
  return MPI_SUCCESS;
}

/* inoutbuf = inbuf op inoutbuf, here (MPI-2.2). */
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype type, MPI_Op op) {
  if (!op_valid(op))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Reduce_local", "invalid operation %d", op);
  const int err = apply_laid_out(op, inbuf, inoutbuf, count, type);
  return err ? mpi_error(MPI_COMM_WORLD, err, "MPI_Reduce_local",
                         "operation %d is not defined on datatype %d", op, type)
             : MPI_SUCCESS;
}
