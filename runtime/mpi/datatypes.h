/* The basic datatypes' table, shared by datatypes.c and ops.c. */
#ifndef EMX_MPI_DATATYPES_H
#define EMX_MPI_DATATYPES_H

#include <mpi.h>

/* What reductions see in a basic type. */
enum type_kind {
  K_NONE, /* moved as bytes only */
  K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F32, K_F64, K_BOOL,
  K_PAIR_INT, K_PAIR_SHORT, K_PAIR_FLOAT, K_PAIR_DOUBLE /* value, int index: MAXLOC */
};

typedef struct {
  int size;
  int kind;
} type_info;

enum { BASIC_TYPES = 34 }; /* handles 1..33 are basic; derived ones follow */
extern const type_info basic_types[BASIC_TYPES];

#endif
