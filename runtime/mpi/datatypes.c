/* Datatypes: the basic C types (contiguous, their C sizes on RV32: long is 4 bytes) and
 * contiguous derived types (MPI_Type_contiguous). */
#include <stdlib.h>

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

const type_info basic_types[BASIC_TYPES] = {
    [MPI_CHAR] = {1, K_U8},             [MPI_SIGNED_CHAR] = {1, K_I8},
    [MPI_UNSIGNED_CHAR] = {1, K_U8},    [MPI_BYTE] = {1, K_U8},
    [MPI_SHORT] = {2, K_I16},           [MPI_UNSIGNED_SHORT] = {2, K_U16},
    [MPI_INT] = {4, K_I32},             [MPI_UNSIGNED] = {4, K_U32},
    [MPI_LONG] = {sizeof(long), K_I32}, [MPI_UNSIGNED_LONG] = {sizeof(long), K_U32},
    [MPI_LONG_LONG] = {8, K_I64},       [MPI_UNSIGNED_LONG_LONG] = {8, K_U64},
    [MPI_FLOAT] = {4, K_F32},           [MPI_DOUBLE] = {8, K_F64},
    [MPI_INT8_T] = {1, K_I8},           [MPI_UINT8_T] = {1, K_U8},
    [MPI_INT16_T] = {2, K_I16},         [MPI_UINT16_T] = {2, K_U16},
    [MPI_INT32_T] = {4, K_I32},         [MPI_UINT32_T] = {4, K_U32},
    [MPI_INT64_T] = {8, K_I64},         [MPI_UINT64_T] = {8, K_U64},
    [MPI_C_BOOL] = {1, K_BOOL},         [MPI_WCHAR] = {4, K_I32},
    [MPI_PACKED] = {1, K_U8},           [MPI_2INT] = {8, K_PAIR_INT},
    [MPI_FLOAT_INT] = {sizeof(float_int), K_PAIR_FLOAT},
    [MPI_DOUBLE_INT] = {sizeof(double_int), K_PAIR_DOUBLE},
    [MPI_LONG_INT] = {8, K_PAIR_INT},   [MPI_SHORT_INT] = {sizeof(short_int), K_PAIR_SHORT},
    [MPI_LONG_DOUBLE] = {sizeof(long double), K_NONE},
    [MPI_AINT] = {sizeof(MPI_Aint), K_I32}, [MPI_COUNT] = {8, K_I64},
};
_Static_assert(sizeof(long) == 4, "MPI_LONG reductions assume a 32-bit long");
_Static_assert(sizeof(MPI_Aint) == 4, "MPI_AINT reductions assume a 32-bit MPI_Aint");

/* Derived types: handle BASIC_TYPES + k. */
typedef struct {
  int count;     /* basic elements */
  int base;      /* their basic type; 0: slot free */
} derived;
static derived *derived_types;
static int derived_count;

int type_size(MPI_Datatype t) {
  if (t > 0 && t < BASIC_TYPES) return basic_types[t].size;
  const int k = t - BASIC_TYPES;
  if (k >= 0 && k < derived_count && derived_types[k].base)
    return derived_types[k].count * basic_types[derived_types[k].base].size;
  return -1;
}

int type_base(MPI_Datatype t, int *elements) {
  if (t > 0 && t < BASIC_TYPES) {
    *elements = 1;
    return t;
  }
  const int k = t - BASIC_TYPES;
  if (k >= 0 && k < derived_count && derived_types[k].base) {
    *elements = derived_types[k].count;
    return derived_types[k].base;
  }
  return 0;
}

int MPI_Type_size(MPI_Datatype type, int *size) {
  *size = type_size(type);
  if (*size < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_size", "invalid datatype %d", type);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent) {
  const int size = type_size(type);
  if (size < 0)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_get_extent", "invalid datatype %d", type);
  *lb = 0;
  *extent = size;
  return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype) {
  int n;
  const int base = type_base(old, &n);
  if (!base) return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_contiguous", "invalid datatype %d", old);
  if (count < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Type_contiguous", "negative count %d", count);
  int k = 0;
  while (k < derived_count && derived_types[k].base) ++k;
  if (k == derived_count) {
    derived *d = realloc(derived_types, (derived_count + 8) * sizeof *d);
    if (!d) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Type_contiguous", "no memory");
    for (int j = derived_count; j < derived_count + 8; ++j) d[j].base = 0;
    derived_types = d;
    derived_count += 8;
  }
  derived_types[k] = (derived){count * n, base};
  *newtype = BASIC_TYPES + k;
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype *type) {
  if (type_size(*type) < 0)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype %d", *type);
  return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *type) {
  const int k = *type - BASIC_TYPES;
  if (k < 0 || k >= derived_count || !derived_types[k].base)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free", "not a derived datatype: %d", *type);
  derived_types[k].base = 0;
  *type = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
