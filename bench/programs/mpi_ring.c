/* MPI message-rate benchmark: every rank exchanges small messages with both ring
 * neighbours, ITER rounds of two messages per rank.
 *   bench_mpi_ring [ITER [BYTES [MODE]]]     (default 200 rounds of 8 bytes, mode 0)
 * MODE 0 "sendrecv": MPI_Sendrecv to the right, then to the left; every rank sends while
 *   its neighbour is issuing the matching receive, so requests cross (the general path).
 * MODE 1 "preposted": the receives of the next round are posted (MPI_Irecv) before the
 *   current round is waited for, as MPI-EMX's design asks: the receive requests reach
 *   the senders in advance and a send is one-sided (sender-side matching). */
#include <emx/emx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_BYTES = 256 };

static long ring_sendrecv(int iter, int bytes, int left, int right, char *out) {
  char in[MAX_BYTES];
  long checksum = 0;
  for (int i = 0; i < iter; ++i) {
    MPI_Sendrecv(out, bytes, MPI_BYTE, right, 1, in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    checksum += in[0];
    MPI_Sendrecv(out, bytes, MPI_BYTE, left, 2, in, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    checksum += in[0];
  }
  return checksum;
}

static long ring_preposted(int iter, int bytes, int left, int right, char *out) {
  static char in[2][2][MAX_BYTES]; /* [round parity][from left, from right] */
  MPI_Request rq[2][2];
  long checksum = 0;
  MPI_Irecv(in[0][0], bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[0][0]);
  MPI_Irecv(in[0][1], bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[0][1]);
  for (int i = 0; i < iter; ++i) {
    const int p = i & 1;
    /* The next round's receive requests go out before this round's data: a neighbour
     * cannot send round i+1 before it has our round-i message, which follows our
     * request on the same path, so its sends always find the request. */
    if (i + 1 < iter) {
      MPI_Irecv(in[!p][0], bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[!p][0]);
      MPI_Irecv(in[!p][1], bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[!p][1]);
    }
    MPI_Send(out, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD);
    MPI_Send(out, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD);
    MPI_Waitall(2, rq[p], MPI_STATUSES_IGNORE);
    checksum += in[p][0][0] + in[p][1][0];
  }
  return checksum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iter = argc > 1 ? atoi(argv[1]) : 200;
  int bytes = argc > 2 ? atoi(argv[2]) : 8;
  const int mode = argc > 3 ? atoi(argv[3]) : 0;
  if (bytes > MAX_BYTES) bytes = MAX_BYTES;
  char out[MAX_BYTES];
  for (int k = 0; k < bytes; ++k) out[k] = (char)(rank + k);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  const long checksum = mode == 1 ? ring_preposted(iter, bytes, left, right, out)
                                  : ring_sendrecv(iter, bytes, left, right, out);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const double t = MPI_Wtime() - t0;
    printf("%d ranks x %d x 2 messages of %d bytes (%s): %.1f us simulated, checksum %ld\n", size,
           iter, bytes, mode == 1 ? "preposted" : "sendrecv", t * 1e6, checksum);
    emx_result_int("messages", (long long)size * iter * 2);
  }
  MPI_Finalize();
  return 0;
}
