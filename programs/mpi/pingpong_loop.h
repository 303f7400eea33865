/* The measured loop of the ping-pong with receives posted in advance (the MPI paper, docs/papers.md),
 * shared by mpi_pingpong and mpi_throughput: receive k of `recvs` was posted before.
 * The initiator sends, then waits for the echo; the other side the mirror. */
#ifndef PINGPONG_LOOP_H
#define PINGPONG_LOOP_H
#include <mpi.h>

static inline void pingpong_advance_loop(int peer, int initiator, char *buf, int bytes,
                                         int iters, int tag, MPI_Request *recvs) {
  MPI_Request s;
  for (int k = 0; k < iters; ++k) {
    if (initiator) {
      MPI_Isend(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &s);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      MPI_Wait(&recvs[k], MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&recvs[k], MPI_STATUS_IGNORE);
      MPI_Isend(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &s);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
  }
}
#endif
