/* MPI ping-pong between ranks 1 and 2 of the world (the paper's experiment; ranks 0 and
 * 1 on a 2-PE machine), one-way latency = half the round trip.
 *
 *   mpi_pingpong [naive|advance] [BYTES] [ITERATIONS] [-mpi-matching=...] [-mpi-protocol=...]
 *
 * naive:   rank 1: Irecv, Wait, Isend, Wait; rank 2 the mirror (Isend, Wait, Irecv, Wait).
 * advance: each side first posts all ITERATIONS receives (timed separately: the
 *          pre-issue overhead per receive), Barrier, then rank 2: Isend, Wait, Wait on the
 *          pre-posted receive; rank 1: Wait on the pre-posted receive, Isend, Wait.
 * Results (emx_result, rank 2): oneway_cycles, oneway_us, and for advance
 * preissue_cycles (per receive, the larger of the two ranks); on ranks 1 and 2 each,
 * preissue_end_cycle and timed_start_cycle, where its timed posting loop ended and its
 * timed ping-pong loop started (tests/mpi: nothing an MPI_Irecv caused may run on its
 * PE in between). Tag 100, MPI_BYTE. */
#include <mpi.h>

#include "pingpong_loop.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emx/emx.h>

enum { TAG = 100, WARMUP = 2 };

static double cycles_now(void) { return (double)emx_cycles(); }

static void naive(int me, int peer, int initiator, char *buf, int bytes, int iters) {
  MPI_Request r;
  for (int k = 0; k < iters; ++k) {
    if (initiator) {
      MPI_Isend(buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Irecv(buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Irecv(buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Isend(buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  }
  (void)me;
}


static double post_all(int peer, char *buf, int bytes, int iters, MPI_Request *recvs) {
  const double t0 = cycles_now();
  for (int k = 0; k < iters; ++k) MPI_Irecv(buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &recvs[k]);
  return (cycles_now() - t0) / iters;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int advance = argc > 1 && strcmp(argv[1], "advance") == 0;
  const int bytes = argc > 2 ? atoi(argv[2]) : 4;
  const int iters = argc > 3 ? atoi(argv[3]) : 100;
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (me == 0) printf("mpi_pingpong needs 2 PEs or more\n");
    MPI_Finalize();
    return 1;
  }
  const int a = size > 2 ? 1 : 0, b = a + 1; /* b starts each round trip */
  const int active = me == a || me == b, initiator = me == b, peer = me == a ? b : a;
  char *buf = malloc(bytes > 0 ? bytes : 1);
  MPI_Request *recvs = malloc((iters > WARMUP ? iters : WARMUP) * sizeof *recvs);
  if (!buf || !recvs) {
    printf("rank %d: no memory for %d bytes\n", me, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, me, bytes > 0 ? bytes : 1);

  double preissue = 0, oneway = 0;
  if (active) { /* warm up the free lists, frames and stacks */
    if (advance) {
      post_all(peer, buf, bytes, WARMUP, recvs);
      pingpong_advance_loop(peer, initiator, buf, bytes, WARMUP, TAG, recvs);
    } else {
      naive(me, peer, initiator, buf, bytes, WARMUP);
    }
  }
  if (active && advance) {
    preissue = post_all(peer, buf, bytes, iters, recvs);
    emx_result("preissue_end_cycle", cycles_now());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (active) {
    const double t0 = cycles_now();
    if (advance) pingpong_advance_loop(peer, initiator, buf, bytes, iters, TAG, recvs);
    else naive(me, peer, initiator, buf, bytes, iters);
    oneway = (cycles_now() - t0) / (2.0 * iters);
    emx_result("timed_start_cycle", t0);
  }
  /* The other ranks wait here, so that the reduction's messages do not disturb the
   * timed loop. */
  MPI_Barrier(MPI_COMM_WORLD);
  double worst_preissue;
  MPI_Reduce(&preissue, &worst_preissue, 1, MPI_DOUBLE, MPI_MAX, b, MPI_COMM_WORLD);
  if (me == b) {
    const double mhz = emx_clock_khz() / 1000.0;
    printf("%s ping-pong, %d bytes, %d iterations: one-way %.1f clocks = %.2f us", advance ? "advance" : "naive",
           bytes, iters, oneway, oneway / mhz);
    if (advance) printf("; pre-issue %.1f clocks = %.2f us per receive", worst_preissue, worst_preissue / mhz);
    printf("\n");
    emx_result("oneway_cycles", oneway);
    emx_result("oneway_us", oneway / mhz);
    if (advance) {
      emx_result("preissue_cycles", worst_preissue);
      emx_result("preissue_us", worst_preissue / mhz);
    }
  }
  free(buf);
  free(recvs);
  MPI_Finalize();
  return 0;
}
