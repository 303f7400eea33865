/* MPI message-rate benchmark: every rank exchanges small messages with both ring
 * neighbours, ITER times (MPI_Sendrecv to the right, then to the left).
 *   bench_mpi_ring [ITER [BYTES]]     (default 200 iterations of 8 bytes) */
#include <emx/emx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iter = argc > 1 ? atoi(argv[1]) : 200;
  int bytes = argc > 2 ? atoi(argv[2]) : 8;
  if (bytes > 256) bytes = 256;
  char out[256], in[256];
  for (int k = 0; k < bytes; ++k) out[k] = (char)(rank + k);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  long checksum = 0;
  for (int i = 0; i < iter; ++i) {
    MPI_Sendrecv(out, bytes, MPI_BYTE, right, 1, in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    checksum += in[0];
    MPI_Sendrecv(out, bytes, MPI_BYTE, left, 2, in, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    checksum += in[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const double t = MPI_Wtime() - t0;
    printf("%d ranks x %d x 2 messages of %d bytes: %.1f us simulated, checksum %ld\n", size, iter,
           bytes, t * 1e6, checksum);
    emx_result_int("messages", (long long)size * iter * 2);
  }
  MPI_Finalize();
  return 0;
}
