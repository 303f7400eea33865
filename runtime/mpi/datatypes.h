/* The datatypes' tables, shared by datatypes.c, ops.c, pack.c and the checks. */
#ifndef EMX_MPI_DATATYPES_H
#define EMX_MPI_DATATYPES_H

#include <mpi.h>
#include <stdint.h>

/* What reductions see in a basic type. */
enum type_kind {
  K_NONE, /* moved as bytes only */
  K_I8, K_U8, K_BYTE /* bitwise operations only */, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F32, K_F64, K_BOOL,
  K_F128, /* long double: IEEE quad, in software (libgcc) */
  K_PAIR_INT, K_PAIR_SHORT, K_PAIR_FLOAT, K_PAIR_DOUBLE, K_PAIR_LDOUBLE /* value, int index */
};

/* A basic type. A pair type (value, int index: MPI_DOUBLE_INT ...) is the C struct: its
 * data are the value and the index (`data` bytes, packed in that order), its extent the
 * struct's size with padding; where the two differ (MPI_SHORT_INT 6/8, MPI_DOUBLE_INT
 * 12/16, MPI_LONG_DOUBLE_INT 20/32) its messages travel packed. `size` is what the fast
 * paths of p2p.c and irecv.S use: the bytes of a type without padding, 0 otherwise. */
typedef struct {
  int size;
  uint8_t kind;
  uint8_t data;     /* data bytes of one element */
  uint8_t extent;   /* its C size */
  uint8_t index_at; /* a pair's index: its offset in the struct (0: not a pair) */
} type_info;

enum { BASIC_TYPES = 35 }; /* handles 1..34 are basic; derived ones follow */
extern const type_info basic_types[BASIC_TYPES];

/* A derived type, flattened: its runs of basic elements in typemap order. */
typedef struct {
  MPI_Aint disp;
  int type; /* basic */
  int count;
} type_run;
typedef struct dtype {
  int refs;            /* the handle, and pending communications (pack.c) */
  int size, elements;  /* data bytes and typemap entries (a pair is one) of one copy */
  int basics;          /* MPI's basic elements of one copy (a pair is two: Get_elements) */
  MPI_Aint lb, ub;     /* extent = ub - lb */
  MPI_Aint true_lb, true_ub;
  int lb_marked, ub_marked; /* bounds set by MPI_LB/MPI_UB or create_resized: they stick */
  int align;           /* largest alignment of its basic types */
  int base;            /* the one basic type of all its runs, else 0 */
  int contiguous;      /* one run at 0 and extent = size: a message needs no packing */
  int committed;
  int huge;            /* its size does not fit an int: MPI_Type_size gives MPI_UNDEFINED */
  int64_t size64;      /* its size (MPI_Type_size_x) */
  int nruns;
  type_run *runs;
} dtype;
typedef struct {
  MPI_Aint lb, extent, true_lb, true_ub;
} type_extent;

const dtype *type_get(MPI_Datatype t); /* a derived type, NULL otherwise */
int type_valid(MPI_Datatype t);        /* a basic or derived type (a huge one too) */
static inline int basic_padded(int t) { return basic_types[t].data != basic_types[t].extent; }
int type_contiguous(MPI_Datatype t);   /* a valid type whose data needs no packing */
void type_bounds(MPI_Datatype t, type_extent *e); /* t valid */
int type_elements(MPI_Datatype t, uint32_t bytes);
dtype *type_ref(MPI_Datatype t); /* NULL for a basic type */
void type_unref(dtype *d);

/* Packing (pack.c). */
void type_pack(const void *buf, int count, MPI_Datatype t, void *out);
void type_unpack(const void *in, uint32_t bytes, void *buf, int count, MPI_Datatype t);
/* The bytes that count copies of t at offset 0 touch: [*lo, *hi). */
void type_span(MPI_Datatype t, int count, int64_t *lo, int64_t *hi);
struct pack_state *pack_new(MPI_Comm comm, const char *fn, const void *buf, int count,
                            MPI_Datatype type, uint32_t bytes);
void *pack_buffer(const struct pack_state *p);
void pack_send_data(struct pack_state *p);

#endif
