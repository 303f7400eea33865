/* MPI-EMX beside the ACP benchmarks (docs/experiments/acp-ompl.md).
 *
 *   acp_mpi_bench oneputall SCALE REPS_DIV   rank 0 Isends to every other rank, which
 *                                            Irecv (posted first), Waitall per repetition
 *   acp_mpi_bench pingpong BYTES ITERS PEER  rank 0 <-> PEER, every receive posted before
 *                                            the barrier (one-sided sends under matching
 *                                            "both"); one-way = half the round trip
 * With -mpi-matching= / -mpi-protocol= as MPI_Init reads them. Results: mem_init_bytes
 * (heap MPI_Init took), mem_peak_bytes (rank 0's heap peak above what it held before
 * MPI_Init), cycles, us, mbytes_per_s. */
#include <emx/emx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "one_put_all.h"

enum { BUF = 1u << 20, TAG = 7 };
static uint8_t buf[BUF] __attribute__((aligned(8)));
static MPI_Request reqs[1024];

int main(int argc, char **argv) {
  const size_t before = emx_heap_in_use();
  MPI_Init(&argc, &argv);
  const size_t after_init = emx_heap_in_use();
  int me, pes;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &pes);
  const char *mode = argc > 1 ? argv[1] : "oneputall";
  if (strcmp(mode, "oneputall") == 0) {
    const uint32_t scale = argc > 2 ? (uint32_t)atoi(argv[2]) : 64;
    const uint32_t reps_div = argc > 3 ? (uint32_t)atoi(argv[3]) : 1;
    for (unsigned k = 0; k < ONE_PUT_ALL_ROWS; ++k) {
      uint32_t size, reps;
      if (!one_put_all_row(k, scale, reps_div, &size, &reps) || size > BUF) continue;
      for (uint32_t r = 0; r < reps; ++r) {
        if (me == 0) {
          for (int pe = 1; pe < pes; ++pe)
            MPI_Isend(buf, (int)size, MPI_BYTE, pe, TAG, MPI_COMM_WORLD, &reqs[pe]);
          MPI_Waitall(pes - 1, &reqs[1], MPI_STATUSES_IGNORE);
        } else {
          MPI_Irecv(buf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &reqs[0]);
          MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        }
      }
    }
  } else {
    const int bytes = argc > 2 ? atoi(argv[2]) : 4;
    const int iters = argc > 3 ? atoi(argv[3]) : 10;
    const int peer = argc > 4 ? atoi(argv[4]) : 1;
    if (peer >= pes || bytes > (int)BUF || iters + 1 > 1000) {
      printf("acp_mpi_bench: bad peer, size or count\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int other = me == 0 ? peer : 0;
    if (me == 0 || me == peer) {
      for (int k = 0; k <= iters; ++k)
        MPI_Irecv(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD, &reqs[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = 0;
    if (me == 0 || me == peer) {
      for (int k = 0; k <= iters; ++k) {
        if (k == 1) t0 = emx_cycles(); /* the first round trip is a warm-up */
        if (me == 0) {
          MPI_Send(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD);
          MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
        } else {
          MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
          MPI_Send(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD);
        }
      }
    }
    if (me == 0) {
      const double cycles = (double)(emx_cycles() - t0) / (2.0 * iters);
      const double us = cycles / (emx_clock_khz() / 1000.0);
      emx_result("cycles", cycles);
      emx_result("us", us);
      emx_result("mbytes_per_s", bytes / us);
      printf("mpi one-way %d bytes rank 0 <-> %d: %.1f cycles, %.2f us\n", bytes, peer, cycles, us);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    emx_result_int("mem_init_bytes", (long long)(after_init - before));
    emx_result_int("mem_peak_bytes", (long long)(emx_heap_peak() - before));
  }
  MPI_Finalize();
  return 0;
}
