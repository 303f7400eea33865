/* Datatypes: the basic C types (contiguous, their C sizes on RV32: long is 4 bytes) and
 * derived types of any shape (contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, struct, resized, dup). A derived type is kept flattened: its runs of
 * basic elements (displacement, basic type, count) in typemap order, adjacent runs of one
 * type merged, with MPI-1's lb/ub (markers MPI_LB/MPI_UB and create_resized stick) and
 * the true bounds. Messages of a type that is not one run at displacement 0 with extent
 * = size travel packed (pack.c). */
#include <stdlib.h>
#include <string.h>

#include "datatypes.h"
#include "mpi_internal.h"

typedef struct {
  short v;
  int i;
} short_int;
typedef struct {
  float v;
  int i;
} float_int;
typedef struct {
  double v;
  int i;
} double_int;
typedef struct {
  long double v;
  int i;
} long_double_int;

/* A basic type of C type T, kind K. */
#define B(T, K) {sizeof(T), K, sizeof(T), sizeof(T), 0}
/* A pair struct S of value and index: no fast path if padded. */
#define P(S, K)                                                                            \
  {sizeof(S) == sizeof(((S *)0)->v) + sizeof(int) ? (int)sizeof(S) : 0, K,                \
   sizeof(((S *)0)->v) + sizeof(int), sizeof(S), __builtin_offsetof(S, i)}
typedef struct {
  int v, i;
} int_int;
typedef struct {
  long v;
  int i;
} long_int;
const type_info basic_types[BASIC_TYPES] = {
    [MPI_CHAR] = B(char, K_U8),                 [MPI_SIGNED_CHAR] = B(signed char, K_I8),
    [MPI_UNSIGNED_CHAR] = B(unsigned char, K_U8), [MPI_BYTE] = B(char, K_BYTE),
    [MPI_SHORT] = B(short, K_I16),              [MPI_UNSIGNED_SHORT] = B(short, K_U16),
    [MPI_INT] = B(int, K_I32),                  [MPI_UNSIGNED] = B(int, K_U32),
    [MPI_LONG] = B(long, K_I32),                [MPI_UNSIGNED_LONG] = B(long, K_U32),
    [MPI_LONG_LONG] = B(long long, K_I64),      [MPI_UNSIGNED_LONG_LONG] = B(long long, K_U64),
    [MPI_FLOAT] = B(float, K_F32),              [MPI_DOUBLE] = B(double, K_F64),
    [MPI_INT8_T] = B(int8_t, K_I8),             [MPI_UINT8_T] = B(uint8_t, K_U8),
    [MPI_INT16_T] = B(int16_t, K_I16),          [MPI_UINT16_T] = B(uint16_t, K_U16),
    [MPI_INT32_T] = B(int32_t, K_I32),          [MPI_UINT32_T] = B(uint32_t, K_U32),
    [MPI_INT64_T] = B(int64_t, K_I64),          [MPI_UINT64_T] = B(uint64_t, K_U64),
    [MPI_C_BOOL] = B(_Bool, K_BOOL),            [MPI_WCHAR] = B(int, K_I32),
    [MPI_PACKED] = B(char, K_U8),               [MPI_2INT] = P(int_int, K_PAIR_INT),
    [MPI_FLOAT_INT] = P(float_int, K_PAIR_FLOAT),
    [MPI_DOUBLE_INT] = P(double_int, K_PAIR_DOUBLE),
    [MPI_LONG_INT] = P(long_int, K_PAIR_INT),   [MPI_SHORT_INT] = P(short_int, K_PAIR_SHORT),
    [MPI_LONG_DOUBLE] = B(long double, K_F128),
    [MPI_AINT] = B(MPI_Aint, K_I32),            [MPI_COUNT] = B(long long, K_I64),
    [MPI_LONG_DOUBLE_INT] = P(long_double_int, K_PAIR_LDOUBLE),
};
#undef B
#undef P
_Static_assert(sizeof(long) == 4, "MPI_LONG reductions assume a 32-bit long");
_Static_assert(sizeof(MPI_Aint) == 4, "MPI_AINT reductions assume a 32-bit MPI_Aint");

/* The C alignment of a basic type on RV32 (a struct type's extent is padded to the
 * largest, as a C struct's size is). */
static int basic_align(int t) {
  switch (basic_types[t].kind) {
    case K_PAIR_DOUBLE: return __alignof__(double_int);
    case K_PAIR_LDOUBLE: return __alignof__(long_double_int);
    case K_PAIR_FLOAT: case K_PAIR_INT: case K_PAIR_SHORT: return 4;
    case K_F128: return __alignof__(long double);
    default: break;
  }
  const int s = basic_types[t].extent;
  return s > 8 ? 8 : s;
}

/* The bytes of one element of basic type t that hold data: [0, true_ub). */
static int basic_true_ub(int t) {
  const type_info *b = &basic_types[t];
  return b->index_at ? b->index_at + (int)sizeof(int) : b->extent;
}
/* MPI's basic elements in one element of t (a pair: its value and its index). */
static int basic_count(int t) { return basic_types[t].index_at ? 2 : 1; }

/* Derived types: handle BASIC_TYPES + k. */
static dtype **derived_types;
static int derived_count;

const dtype *type_get(MPI_Datatype t) {
  const int k = t - BASIC_TYPES;
  return k >= 0 && k < derived_count ? derived_types[k] : 0;
}

int type_size(MPI_Datatype t) {
  if (t > 0 && t < BASIC_TYPES) return basic_types[t].data;
  const dtype *d = type_get(t);
  return !d ? -1 : d->huge ? TYPE_HUGE : d->size;
}

int type_valid(MPI_Datatype t) { return (t > 0 && t < BASIC_TYPES) || type_get(t); }

int type_base(MPI_Datatype t, int *elements) {
  if (t > 0 && t < BASIC_TYPES) {
    *elements = 1;
    return t;
  }
  const dtype *d = type_get(t);
  if (d && d->contiguous && d->base) {
    *elements = d->elements;
    return d->base;
  }
  return 0;
}

int type_contiguous(MPI_Datatype t) {
  if (t >= 0 && t < BASIC_TYPES) return !t || !basic_padded(t); /* NULL: only with no data */
  const dtype *d = type_get(t);
  return d && d->contiguous;
}

void type_bounds(MPI_Datatype t, type_extent *e) {
  if (t > 0 && t < BASIC_TYPES) {
    *e = (type_extent){0, basic_types[t].extent, 0, basic_true_ub(t)};
    return;
  }
  const dtype *d = type_get(t);
  *e = (type_extent){d->lb, d->ub - d->lb, d->true_lb, d->true_ub};
}

/* ---- Building ------------------------------------------------------------------------------ */

/* A type under construction: runs appended in typemap order, bounds so far. Bounds and
 * displacements are computed in 64 bits: a type whose bounds leave MPI_Aint's 32 bits is
 * refused (MPI_ERR_TYPE), one whose size leaves an int is "huge" (MPI_Type_size gives
 * MPI_UNDEFINED, communications refuse it). */
typedef struct {
  dtype *d;
  int cap;
  int any;            /* an entry or marker seen */
  int lb_marked, ub_marked;
  int64_t lb, ub;     /* the bounds so far */
  int64_t lb_mark, ub_mark; /* the extreme markers (sticky lb/ub of the parts) */
  int align;
  int err;            /* MPI_ERR_TYPE (beyond 32 bits) or MPI_ERR_NO_MEM */
} builder;

static int fits_aint(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static MPI_Aint extent_of(MPI_Datatype t) {
  type_extent e;
  type_bounds(t, &e);
  return e.extent;
}

/* A run's elements are kept below 2^30 bytes, so the copy loops' byte counts fit. */
enum { RUN_BYTES_MAX = 1 << 30 };

static int push_run(builder *b, int64_t disp, int type, int64_t count) {
  dtype *d = b->d;
  const int64_t ext = basic_types[type].extent, most = RUN_BYTES_MAX / ext;
  while (count > 0) {
    if (!fits_aint(disp)) return b->err = MPI_ERR_TYPE, 0;
    if (d->nruns) {
      type_run *last = &d->runs[d->nruns - 1];
      if (last->type == type && last->disp + (int64_t)last->count * ext == disp &&
          last->count < most) {
        const int64_t add = count < most - last->count ? count : most - last->count;
        last->count += (int)add;
        count -= add;
        disp += add * ext;
        continue;
      }
    }
    if (d->nruns == b->cap) {
      const int cap = b->cap ? 2 * b->cap : 4;
      type_run *r = (uint64_t)cap * sizeof *r < emx_mem_bytes() ? realloc(d->runs, cap * sizeof *r) : 0;
      if (!r) return b->err = MPI_ERR_NO_MEM, 0;
      d->runs = r;
      b->cap = cap;
    }
    const int64_t n = count < most ? count : most;
    d->runs[d->nruns++] = (type_run){(MPI_Aint)disp, type, (int)n};
    count -= n;
    disp += n * ext;
  }
  return 1;
}

/* A type whose copies lie back to back as one run of one basic type (or no run): *type
 * and *per elements a copy. Its copies merge into one run. */
static int dense(MPI_Datatype t, int *type, int *per) {
  if (!type_contiguous(t) || t == MPI_DATATYPE_NULL) return 0;
  const dtype *d = type_get(t);
  if (!d) return *type = t, *per = 1, 1;
  if (d->nruns > 1) return 0;
  *type = d->nruns ? d->runs[0].type : 0;
  *per = d->nruns ? d->runs[0].count : 0;
  return 1;
}

/* Appends `count` copies of type t at displacement disp, each an extent after the
 * previous (one block of a constructor). 0: refused (b->err). */
static int add_block(builder *b, int64_t disp, int count, MPI_Datatype t) {
  if (count <= 0) return 1;
  if (t == MPI_LB || t == MPI_UB) {
    int64_t *m = t == MPI_LB ? &b->lb_mark : &b->ub_mark;
    int *marked = t == MPI_LB ? &b->lb_marked : &b->ub_marked;
    if (!*marked || (t == MPI_LB ? disp < *m : disp > *m)) *m = disp;
    *marked = 1;
    return 1;
  }
  type_extent e;
  type_bounds(t, &e);
  const dtype *src = type_get(t);
  const int64_t first_lb = disp + e.lb, last_ub = disp + (int64_t)(count - 1) * e.extent + e.lb + e.extent;
  const int64_t lo = first_lb < last_ub - e.extent ? first_lb : last_ub - e.extent;
  const int64_t hi = last_ub > first_lb + e.extent ? last_ub : first_lb + e.extent;
  if (!fits_aint(lo) || !fits_aint(hi)) return b->err = MPI_ERR_TYPE, 0;
  if (src && src->lb_marked) {
    if (!b->lb_marked || lo < b->lb_mark) b->lb_mark = lo;
    b->lb_marked = 1;
  }
  if (src && src->ub_marked) {
    if (!b->ub_marked || hi > b->ub_mark) b->ub_mark = hi;
    b->ub_marked = 1;
  }
  if (!b->any || lo < b->lb) b->lb = lo;
  if (!b->any || hi > b->ub) b->ub = hi;
  b->any = 1;
  const int align = src ? src->align : basic_align(t);
  if (align > b->align) b->align = align;
  int run_type, per;
  if (dense(t, &run_type, &per)) /* all copies in one run */
    return !per || push_run(b, disp, run_type, (int64_t)count * per);
  if (!src) return push_run(b, disp, t, count); /* a padded pair: one run too */
  if (!src->nruns) return 1; /* (bounds only: no loop over the copies) */
  for (int j = 0; j < count; ++j) {
    const int64_t at = disp + (int64_t)j * e.extent;
    for (int k = 0; k < src->nruns; ++k)
      if (!push_run(b, at + src->runs[k].disp, src->runs[k].type, src->runs[k].count)) return 0;
  }
  return 1;
}

/* The runs `count` copies of t add at most (dense types merge into one run). */
static int64_t runs_bound(int64_t count, MPI_Datatype t) {
  int type, per;
  if (t == MPI_LB || t == MPI_UB || count <= 0) return 0;
  if (dense(t, &type, &per)) return per ? 1 + count * per * basic_types[type].extent / RUN_BYTES_MAX : 0;
  if (!type_get(t)) return 1 + count * basic_types[t].extent / RUN_BYTES_MAX; /* a padded pair */
  return count * type_get(t)->nruns;
}

static void builder_start(builder *b, dtype *d) {
  memset(d, 0, sizeof *d);
  *b = (builder){.d = d, .align = 1};
}

/* Completes the type: bounds (markers win; a struct's extent padded to its alignment),
 * sizes, and whether it is contiguous and of one basic type. 0: refused (b->err). */
static int builder_finish(builder *b, int pad) {
  dtype *d = b->d;
  int64_t lb = b->any ? b->lb : 0, ub = b->any ? b->ub : 0;
  if (b->lb_marked) lb = b->lb_mark;
  if (b->ub_marked) ub = b->ub_mark;
  else if (pad && b->any) {
    const int64_t ext = ub - lb, r = ext % b->align;
    if (r) ub += b->align - r;
  }
  if (!fits_aint(lb) || !fits_aint(ub) || !fits_aint(ub - lb)) return b->err = MPI_ERR_TYPE, 0;
  d->lb = (MPI_Aint)lb;
  d->ub = (MPI_Aint)ub;
  d->lb_marked = b->lb_marked;
  d->ub_marked = b->ub_marked;
  d->align = b->align;
  int64_t size = 0, elements = 0, basics = 0, true_lb = 0, true_ub = 0;
  d->base = d->nruns ? d->runs[0].type : 0;
  for (int k = 0; k < d->nruns; ++k) {
    const type_run *r = &d->runs[k];
    size += (int64_t)r->count * basic_types[r->type].data;
    elements += r->count;
    basics += (int64_t)r->count * basic_count(r->type);
    if (r->type != d->base) d->base = 0;
    const int64_t lo = r->disp,
                  hi = r->disp + (int64_t)(r->count - 1) * basic_types[r->type].extent + basic_true_ub(r->type);
    if (k == 0 || lo < true_lb) true_lb = lo;
    if (k == 0 || hi > true_ub) true_ub = hi;
  }
  if (!fits_aint(true_lb) || !fits_aint(true_ub) || !fits_aint(true_ub - true_lb))
    return b->err = MPI_ERR_TYPE, 0;
  d->true_lb = (MPI_Aint)true_lb;
  d->true_ub = (MPI_Aint)true_ub;
  d->huge = size > INT32_MAX || basics > INT32_MAX;
  d->size64 = size;
  d->size = d->huge ? 0 : (int)size;
  d->elements = elements > INT32_MAX ? INT32_MAX : (int)elements;
  d->basics = d->huge ? 0 : (int)basics;
  d->contiguous = !d->huge && (d->nruns == 0 ? d->lb == 0 && d->ub == 0
                                             : d->nruns == 1 && d->runs[0].disp == 0 && d->lb == 0 &&
                                                   d->ub == d->size && !basic_padded(d->runs[0].type));
  d->refs = 1;
  return 1;
}

static int new_handle(dtype *d, MPI_Datatype *out) {
  int k = 0;
  while (k < derived_count && derived_types[k]) ++k;
  if (k == derived_count) {
    dtype **t = realloc(derived_types, (derived_count + 8) * sizeof *t);
    if (!t) return 0;
    for (int j = derived_count; j < derived_count + 8; ++j) t[j] = 0;
    derived_types = t;
    derived_count += 8;
  }
  derived_types[k] = d;
  *out = BASIC_TYPES + k;
  return 1;
}

static int valid_part(MPI_Datatype t) { return t == MPI_LB || t == MPI_UB || type_valid(t); }

/* The blocks of a constructor: block k is len(k) copies of type(k) at byte displacement
 * disp(k), given by arrays or by a rule (vector: a stride), so that no array of the
 * block count is needed. */
typedef struct {
  const int *len;
  const MPI_Aint *disp;     /* bytes */
  const int *disp_extents;  /* in extents of `one` (indexed) */
  const MPI_Datatype *types;
  MPI_Datatype one;         /* the type of every block when types is 0 */
  int one_len;              /* every block's length when len is 0 */
  int64_t stride;           /* disp(k) = k * stride when disp and disp_extents are 0 */
} blocks;
static int block_len(const blocks *bl, int k) { return bl->len ? bl->len[k] : bl->one_len; }
static MPI_Datatype block_type(const blocks *bl, int k) { return bl->types ? bl->types[k] : bl->one; }
static int64_t block_disp(const blocks *bl, int k) {
  if (bl->disp) return bl->disp[k];
  if (bl->disp_extents) {
    type_extent e;
    type_bounds(bl->one, &e);
    return (int64_t)bl->disp_extents[k] * e.extent;
  }
  return (int64_t)k * bl->stride;
}

/* The general constructor: n blocks (bl); pad: a struct's extent padded to its
 * alignment. */
static int build(const char *fn, int n, const blocks *bl, int pad, MPI_Datatype *out) {
  if (n < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", n);
  int64_t runs = 0;
  const int regular = !bl->len && !bl->types; /* every block alike: check one */
  for (int k = 0; k < (regular && n ? 1 : n); ++k) {
    const MPI_Datatype t = block_type(bl, k);
    if (!valid_part(t) || (!bl->types && (t == MPI_LB || t == MPI_UB)))
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype %d", t);
    if (block_len(bl, k) < 0)
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative block length %d (block %d)",
                       block_len(bl, k), k);
    runs += runs_bound(block_len(bl, k), t) * (regular ? n : 1);
    if (runs * (int64_t)sizeof(type_run) > (int64_t)emx_mem_bytes()) break;
  }
  if (!n && !bl->types && !valid_part(bl->one))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype %d", bl->one);
  /* A type is kept flattened: refuse what would not fit before taking any memory. */
  if (runs * (int64_t)sizeof(type_run) > (int64_t)emx_mem_bytes())
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn,
                     "the type would be up to %lld runs of basic elements, %lld bytes to "
                     "describe (more than a PE's memory of %u bytes)",
                     (long long)runs, (long long)runs * (long long)sizeof(type_run),
                     (unsigned)emx_mem_bytes());
  dtype *d = malloc(sizeof *d);
  if (!d) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
  builder b;
  builder_start(&b, d);
  int ok = 1;
  if (regular && block_len(bl, 0) <= 0) n = 0; /* empty blocks: nothing to visit */
  /* Regular blocks without data give bounds only, the extremes at the first and last. */
  const int ends_only = regular && n > 2 && runs == 0;
  for (int k = 0; k < n && ok; k = ends_only && k == 0 ? n - 1 : k + 1)
    ok = add_block(&b, block_disp(bl, k), block_len(bl, k), block_type(bl, k));
  if (ok) ok = builder_finish(&b, pad);
  if (!ok || !new_handle(d, out)) {
    free(d->runs);
    free(d);
    if (ok || b.err == MPI_ERR_NO_MEM)
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                     "the type's bounds or displacements leave the 32-bit address space");
  }
  return MPI_SUCCESS;
}

/* One block of `count` copies of old at displacement disp. */
static int build_one(const char *fn, int count, int64_t disp, MPI_Datatype old, MPI_Datatype *out) {
  const MPI_Aint d = (MPI_Aint)disp;
  if (!fits_aint(disp))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "displacement %lld beyond 32 bits",
                     (long long)disp);
  const blocks bl = {.len = &count, .disp = &d, .one = old};
  return build(fn, 1, &bl, 0, out);
}

/* count blocks of blocklen copies of old, stride_bytes apart (vector, hvector). */
static int build_strided(const char *fn, int count, int blocklen, int64_t stride_bytes,
                         MPI_Datatype old, MPI_Datatype *out) {
  if (count < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", count);
  /* Blocks back to back of a dense type: one run, however many blocks. */
  int type, per;
  if (type_valid(old) && dense(old, &type, &per) && blocklen >= 0 &&
      stride_bytes == (int64_t)blocklen * extent_of(old) && (int64_t)count * blocklen <= INT32_MAX)
    return build_one(fn, count * blocklen, 0, old, out);
  const blocks bl = {.one = old, .one_len = blocklen, .stride = stride_bytes};
  return build(fn, count, &bl, 0, out);
}


/* ---- The MPI calls ------------------------------------------------------------------------ */

static int check_type(const char *fn, MPI_Datatype t) {
  return type_valid(t) ? MPI_SUCCESS
                       : mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype %d", t);
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype) {
  const char *fn = "MPI_Type_contiguous";
  int err = check_type(fn, old);
  if (err) return err;
  if (count < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", count);
  return build_one(fn, count, 0, old, newtype);
}

int MPI_Type_vector(int count, int blocklen, int stride, MPI_Datatype old, MPI_Datatype *newtype) {
  int err = check_type("MPI_Type_vector", old);
  return err ? err
             : build_strided("MPI_Type_vector", count, blocklen, (int64_t)stride * extent_of(old),
                             old, newtype);
}
int MPI_Type_create_hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype old,
                            MPI_Datatype *newtype) {
  return build_strided("MPI_Type_create_hvector", count, blocklen, stride, old, newtype);
}
int MPI_Type_hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype old,
                     MPI_Datatype *newtype) {
  return build_strided("MPI_Type_hvector", count, blocklen, stride, old, newtype);
}

static int build_indexed(const char *fn, int count, const int *len, int one_len,
                         const void *disps, int disp_in_extents, MPI_Datatype old,
                         MPI_Datatype *newtype) {
  const int err = check_type(fn, old);
  if (err) return err;
  const blocks bl = {.len = len, .one_len = one_len, .one = old,
                     .disp = disp_in_extents ? 0 : disps,
                     .disp_extents = disp_in_extents ? disps : 0};
  return build(fn, count, &bl, 0, newtype);
}

int MPI_Type_indexed(int count, const int *len, const int *disp, MPI_Datatype old,
                     MPI_Datatype *newtype) {
  return build_indexed("MPI_Type_indexed", count, len, 0, disp, 1, old, newtype);
}
int MPI_Type_create_indexed_block(int count, int blocklen, const int *disp, MPI_Datatype old,
                                  MPI_Datatype *newtype) {
  return build_indexed("MPI_Type_create_indexed_block", count, 0, blocklen, disp, 1, old, newtype);
}
int MPI_Type_create_hindexed(int count, const int *len, const MPI_Aint *disp, MPI_Datatype old,
                             MPI_Datatype *newtype) {
  return build_indexed("MPI_Type_create_hindexed", count, len, 0, disp, 0, old, newtype);
}
int MPI_Type_hindexed(int count, const int *len, const MPI_Aint *disp, MPI_Datatype old,
                      MPI_Datatype *newtype) {
  return build_indexed("MPI_Type_hindexed", count, len, 0, disp, 0, old, newtype);
}
/* (A struct of no blocks is legal: its arrays may be anything, NULL included.) */
static const MPI_Datatype no_types[1];
static int build_struct(const char *fn, int count, const int *len, const MPI_Aint *disp,
                        const MPI_Datatype *types, MPI_Datatype *newtype) {
  const blocks bl = {.len = len, .disp = disp, .types = count ? types : no_types};
  return build(fn, count, &bl, 1, newtype);
}
int MPI_Type_create_struct(int count, const int *len, const MPI_Aint *disp,
                           const MPI_Datatype *types, MPI_Datatype *newtype) {
  return build_struct("MPI_Type_create_struct", count, len, disp, types, newtype);
}
int MPI_Type_struct(int count, const int *len, const MPI_Aint *disp, const MPI_Datatype *types,
                    MPI_Datatype *newtype) {
  return build_struct("MPI_Type_struct", count, len, disp, types, newtype);
}

int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) {
  /* Exactly these bounds, whatever markers old had; they stick as markers do. */
  const char *fn = "MPI_Type_create_resized";
  int err = check_type(fn, old);
  if (err) return err;
  if (!fits_aint((int64_t)lb + extent))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                     "lb %ld + extent %ld leaves the 32-bit address space", (long)lb, (long)extent);
  err = build_one(fn, 1, 0, old, newtype);
  if (err) return err;
  dtype *d = (dtype *)type_get(*newtype);
  d->lb = lb;
  d->ub = lb + extent;
  d->lb_marked = d->ub_marked = 1;
  d->contiguous = !d->huge && d->nruns <= 1 && lb == 0 && extent == d->size &&
                  (d->nruns == 0 || (d->runs[0].disp == 0 && !basic_padded(d->runs[0].type)));
  return MPI_SUCCESS;
}

int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype) {
  const int err = check_type("MPI_Type_dup", old);
  if (err) return err;
  const int e = build_one("MPI_Type_dup", 1, 0, old, newtype);
  /* The same type: committed when old is (MPI-2 4.1.10; a basic type always is). */
  if (!e) {
    const dtype *o = type_get(old);
    ((dtype *)type_get(*newtype))->committed = !o || o->committed;
  }
  return e;
}

int MPI_Type_size(MPI_Datatype type, int *size) {
  const int err = check_type("MPI_Type_size", type);
  if (err) return err;
  *size = type_size(type);
  if (*size == TYPE_HUGE) *size = MPI_UNDEFINED; /* MPI-2.2 4.1.5: it does not fit an int */
  return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype type, MPI_Count *size) {
  const int err = check_type("MPI_Type_size_x", type);
  if (err) return err;
  const dtype *d = type_get(type);
  *size = d ? d->size64 : basic_types[type].data;
  return MPI_SUCCESS;
}
int MPI_Type_get_extent_x(MPI_Datatype type, MPI_Count *lb, MPI_Count *extent) {
  const int err = check_type("MPI_Type_get_extent_x", type);
  if (err) return err;
  type_extent e;
  type_bounds(type, &e);
  *lb = e.lb;
  *extent = e.extent;
  return MPI_SUCCESS;
}
int MPI_Type_get_true_extent_x(MPI_Datatype type, MPI_Count *lb, MPI_Count *extent) {
  const int err = check_type("MPI_Type_get_true_extent_x", type);
  if (err) return err;
  type_extent e;
  type_bounds(type, &e);
  *lb = e.true_lb;
  *extent = (MPI_Count)e.true_ub - e.true_lb;
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent) {
  const int err = check_type("MPI_Type_get_extent", type);
  if (err) return err;
  type_extent e;
  type_bounds(type, &e);
  *lb = e.lb;
  *extent = e.extent;
  return MPI_SUCCESS;
}
int MPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent) {
  const int err = check_type("MPI_Type_get_true_extent", type);
  if (err) return err;
  type_extent e;
  type_bounds(type, &e);
  *lb = e.true_lb;
  *extent = e.true_ub - e.true_lb;
  return MPI_SUCCESS;
}
int MPI_Type_extent(MPI_Datatype type, MPI_Aint *extent) {
  MPI_Aint lb;
  return MPI_Type_get_extent(type, &lb, extent);
}
int MPI_Type_lb(MPI_Datatype type, MPI_Aint *lb) {
  MPI_Aint extent;
  return MPI_Type_get_extent(type, lb, &extent);
}
int MPI_Type_ub(MPI_Datatype type, MPI_Aint *ub) {
  MPI_Aint lb = 0, extent = 0;
  const int err = MPI_Type_get_extent(type, &lb, &extent);
  *ub = lb + extent;
  return err;
}

int MPI_Type_commit(MPI_Datatype *type) {
  if (!type_valid(*type))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype %d", *type);
  dtype *d = (dtype *)type_get(*type);
  if (d) d->committed = 1;
  return MPI_SUCCESS;
}

void type_unref(dtype *d) {
  if (--d->refs) return;
  free(d->runs);
  free(d);
}
dtype *type_ref(MPI_Datatype t) {
  dtype *d = (dtype *)type_get(t);
  if (d) ++d->refs;
  return d;
}

int MPI_Type_free(MPI_Datatype *type) {
  const int k = *type - BASIC_TYPES;
  if (k < 0 || k >= derived_count || !derived_types[k])
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free", "not a derived datatype: %d", *type);
  /* A pending communication holds its own reference (pack.c): MPI lets it complete. */
  type_unref(derived_types[k]);
  derived_types[k] = 0;
  *type = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

/* MPI's basic elements in n bytes of packed elements of basic type t: a pair's value
 * counts once its bytes are there, its index once they all are; MPI_UNDEFINED if the
 * data ends inside a basic element. */
static int elements_in(int t, uint32_t n) {
  const type_info *b = &basic_types[t];
  if (!b->data) return 0;
  int k = (int)(n / b->data) * basic_count(t);
  const uint32_t rest = n % b->data;
  if (!rest) return k;
  return b->index_at && rest == b->data - sizeof(int) ? k + 1 : MPI_UNDEFINED;
}

/* Basic elements in `bytes` of data of type t: whole copies, then the runs of a partial
 * one; MPI_UNDEFINED if the data ends inside a basic element. */
int type_elements(MPI_Datatype t, uint32_t bytes) {
  if (t > 0 && t < BASIC_TYPES) return elements_in(t, bytes);
  const dtype *d = type_get(t);
  if (!d->size) return 0;
  int n = (int)(bytes / d->size) * d->basics;
  uint32_t rest = bytes % d->size;
  for (int k = 0; k < d->nruns && rest; ++k) {
    const uint32_t run = basic_types[d->runs[k].type].data * d->runs[k].count;
    if (rest >= run) {
      n += d->runs[k].count * basic_count(d->runs[k].type);
      rest -= run;
    } else {
      const int e = elements_in(d->runs[k].type, rest);
      if (e == MPI_UNDEFINED) return MPI_UNDEFINED;
      n += e;
      rest = 0;
    }
  }
  return n;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype type, int *count) {
  const int err = check_type("MPI_Get_elements", type);
  if (err) return err;
  *count = type_elements(type, (uint32_t)status->mpi_bytes_);
  return MPI_SUCCESS;
}

int MPI_Address(const void *location, MPI_Aint *address) {
  *address = (MPI_Aint)(uintptr_t)location;
  return MPI_SUCCESS;
}
int MPI_Get_address(const void *location, MPI_Aint *address) {
  *address = (MPI_Aint)(uintptr_t)location;
  return MPI_SUCCESS;
}

/* Subarrays (MPI-2, common in ordinary codes): nested strided types, placed at the
 * start's offset, resized to the whole array. */
int MPI_Type_create_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts,
                             int order, MPI_Datatype old, MPI_Datatype *newtype) {
  const char *fn = "MPI_Type_create_subarray";
  int err = check_type(fn, old);
  if (err) return err;
  if (ndims < 1 || (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "%d dimensions, order %d", ndims, order);
  for (int k = 0; k < ndims; ++k)
    if (sizes[k] < 1 || subsizes[k] < 1 || subsizes[k] > sizes[k] || starts[k] < 0 ||
        starts[k] > sizes[k] - subsizes[k])
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                       "dimension %d: size %d, subsize %d, start %d", k, sizes[k], subsizes[k],
                       starts[k]);
  /* Dimension k in memory order, fastest first. */
#define DIM(j) (order == MPI_ORDER_C ? ndims - 1 - (j) : (j))
  const MPI_Aint ext = extent_of(old);
  int64_t stride = ext, offset = 0;
  MPI_Datatype t = old, next;
  for (int j = 0; j < ndims; ++j) {
    const int k = DIM(j);
    err = build_strided(fn, subsizes[k], 1, stride, t, &next);
    if (t != old) MPI_Type_free(&t);
    if (err) return err;
    t = next;
    offset += starts[k] * stride;
    stride *= sizes[k];
  }
#undef DIM
  err = build_one(fn, 1, offset, t, &next);
  MPI_Type_free(&t);
  if (err) return err;
  err = stride > INT32_MAX ? mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                                       "the array of %lld bytes leaves the address space",
                                       (long long)stride)
                           : MPI_Type_create_resized(next, 0, (MPI_Aint)stride, newtype);
  MPI_Type_free(&next);
  return err;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype type, int count) {
  const int err = check_type("MPI_Status_set_elements", type);
  if (err) return err;
  int per;
  const int base = type_base(type, &per);
  /* Elements of the type's basic type: bytes = count basic elements. */
  status->mpi_bytes_ = base && basic_types[base].index_at
                          ? count / 2 * basic_types[base].data +
                                count % 2 * (basic_types[base].data - (int)sizeof(int))
                          : count * (base ? basic_types[base].data : 1);
  return MPI_SUCCESS;
}
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype type, MPI_Count *count) {
  int n;
  const int err = MPI_Get_elements(status, type, &n);
  if (!err) *count = n;
  return err;
}
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype type, MPI_Count count) {
  if (count < 0 || count > INT32_MAX / 32) /* (a status counts bytes in an int) */
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Status_set_elements_x",
                     "%lld elements do not fit a status", (long long)count);
  return MPI_Status_set_elements(status, type, (int)count);
}
int MPI_Status_set_cancelled(MPI_Status *status, int flag) {
  status->mpi_cancelled_ = flag != 0;
  return MPI_SUCCESS;
}
