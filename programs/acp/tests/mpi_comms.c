/* MPI_THREAD_MULTIPLE: T computations on every rank, each with its own duplicate of
 * MPI_COMM_WORLD, run barriers and allreduces at once (the runtime's barrier butterfly is
 * one per rank, so only MPI_COMM_WORLD's barrier may take it; runtime/mpi/collectives.c).
 * Each computation checks that every rank reached the same round: the allreduce of the
 * round number after each barrier has min == max. Prints "mpi comms: ok" on rank 0. */
#include <emx/emc.h>
#include <mpi.h>
#include <stdio.h>

enum { T = 4, ROUNDS = 20 };
static MPI_Comm comms[T];
static emx_sync_t done;
static int sums[T], bad;

static void body(uint32_t *args) {
  const uint32_t t = args[0];
  int me;
  MPI_Comm_rank(comms[t], &me);
  for (int k = 0; k < ROUNDS; ++k) {
    MPI_Barrier(comms[t]);
    int v = me + (int)t, lo = 0, hi = 0;
    MPI_Allreduce(&v, &sums[t], 1, MPI_INT, MPI_SUM, comms[t]);
    MPI_Allreduce(&k, &lo, 1, MPI_INT, MPI_MIN, comms[t]);
    MPI_Allreduce(&k, &hi, 1, MPI_INT, MPI_MAX, comms[t]);
    bad += lo != k || hi != k;
  }
  MPI_Barrier(comms[t]);
  emx_sync_done(&done);
}

int main(int argc, char **argv) {
  int provided, me, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < T; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  emx_sync_init(&done, T);
  for (uint32_t t = 0; t < T; ++t) emx_spawn((unsigned)me, body, &t, 1);
  emx_sync_wait(&done);
  for (int t = 0; t < T; ++t) bad += sums[t] != size * (size - 1) / 2 + size * t;
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("mpi comms: %s\n", all ? "FAILED" : "ok");
  MPI_Finalize();
  return 0;
}
