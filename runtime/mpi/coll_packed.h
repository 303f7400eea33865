/* Collectives on non-contiguous datatypes (coll_packed.c), called by collectives.c. */
#ifndef EMX_MPI_COLL_PACKED_H
#define EMX_MPI_COLL_PACKED_H

#include <mpi.h>

enum packed_kind {
  PACKED_GATHER, PACKED_SCATTER, PACKED_ALLGATHER, PACKED_ALLTOALL,
  PACKED_REDUCE, PACKED_ALLREDUCE, PACKED_SCAN, PACKED_EXSCAN
};
int type_noncontiguous(MPI_Datatype t); /* a valid type whose data needs packing */
int packed_refuse(MPI_Comm comm, const char *fn, MPI_Datatype t);
int packed_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm);
int packed_regular(enum packed_kind kind, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
int packed_reduce(enum packed_kind kind, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm);

#endif
