/* Smallest MPI check while bringing the library up. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int v = rank * 10, got = -1;
  MPI_Status st;
  if (rank == 0) {
    MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &st);
  } else if (rank == 1) {
    MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
    MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  }
  if (rank < 2) printf("rank %d got %d from %d tag %d\n", rank, got, st.MPI_SOURCE, st.MPI_TAG);
  int sum;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("sum %d\n", sum);
  MPI_Finalize();
  return 0;
}
