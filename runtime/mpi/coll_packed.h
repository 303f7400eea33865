/* Collectives on non-contiguous datatypes (coll_packed.c), called by collectives.c. */
#ifndef EMX_MPI_COLL_PACKED_H
#define EMX_MPI_COLL_PACKED_H

#include <mpi.h>

enum packed_kind { PACKED_GATHER, PACKED_SCATTER, PACKED_ALLGATHER, PACKED_ALLTOALL };
int type_noncontiguous(MPI_Datatype t); /* a valid type whose data needs packing */
int packed_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm);
int packed_regular(enum packed_kind kind, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
/* The v-forms (all: Allgatherv, else Gatherv). */
int packed_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, int all);
int packed_scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm);
int packed_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                     MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                     const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);

/* A reduction's operands in packed form (op_apply's): the user's buffers for a contiguous
 * type, else packed copies of the input (sendbuf, or recvbuf in place) and, where the
 * result is wanted (out_here), a buffer for it; close unpacks the result into recvbuf. */
typedef struct {
  const void *in;
  void *out;
  char *in_copy, *out_copy;
} reduce_operands;
int reduce_operands_open(MPI_Comm comm, const char *fn, const void *sendbuf, void *recvbuf,
                         int count, MPI_Datatype t, int out_here, reduce_operands *o);
void reduce_operands_close(reduce_operands *o, void *recvbuf, int count, MPI_Datatype t,
                           int unpack);
#endif
