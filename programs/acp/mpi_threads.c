/* MPI from many computations of one rank (MPI_Init_thread with MPI_THREAD_MULTIPLE):
 * T computations on each of ranks 0 and 1, pair t ping-pongs with tag t through the one
 * endpoint of its rank (docs/experiments/acp-ompl.md, docs/mpi.md).
 *
 *   acp_mpi_threads T BYTES ITERS          ping-pong: Send + Recv / Recv + Send
 *   acp_mpi_threads T BYTES ITERS check    also Isend/Irecv/Test/Sendrecv, ANY_SOURCE
 *                                          receives told apart by tag, data checked
 * Results (rank 0): oneway_cycles, oneway_us (mean over pairs), oneway_max_us. */
#include <emx/emc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs_report.h"

enum { MAX_T = 16, AREA = 2u << 20 };
static uint8_t *area; /* T buffers of BYTES */
static uint64_t took[MAX_T];
static emx_sync_t done;
static int bytes, iters, check, bad, peer;

static uint8_t pattern(int t, int k, int i) { return (uint8_t)(t * 31 + k * 7 + i); }

static void fill(uint8_t *b, int t, int k) {
  for (int i = 0; i < bytes; ++i) b[i] = pattern(t, k, i);
}
static void verify(const uint8_t *b, int t, int k) {
  for (int i = 0; i < bytes; ++i) bad += b[i] != pattern(t, k, i);
}

/* Timing: every receive is posted before the send it answers (Irecv, then Send, then
 * Wait), so that under matching "both" the sends find it and go one-sided. */
static void timed(int t, uint8_t *buf, int me) {
  MPI_Request r;
  if (me == 1) MPI_Irecv(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r);
  for (int k = 0; k <= iters; ++k) {
    if (k == 1) took[t] = emx_cycles();
    if (me == 0) {
      MPI_Irecv(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r);
      MPI_Send(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      if (k < iters) MPI_Irecv(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r);
      MPI_Send(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD);
    }
  }
  took[t] = emx_cycles() - took[t];
}

/* Checking: blocking and non-blocking calls mixed, wildcard source, data verified. */
static void checked(int t, uint8_t *buf, int me) {
  for (int k = 0; k <= iters; ++k) {
    if (me == 0) {
      fill(buf, t, k);
      if (k & 1) {
        MPI_Request r;
        int flag = 0;
        MPI_Isend(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r);
        while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      } else {
        MPI_Send(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD);
      }
      MPI_Status st;
      MPI_Recv(buf, bytes, MPI_BYTE, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &st);
      verify(buf, t + 100, k);
      bad += st.MPI_SOURCE != peer || st.MPI_TAG != t;
    } else {
      MPI_Request r;
      MPI_Irecv(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      verify(buf, t, k);
      fill(buf, t + 100, k);
      MPI_Send(buf, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD);
    }
  }
  int out = t * 1000 + me, in = -1; /* a Sendrecv per pair, crossing */
  MPI_Sendrecv(&out, 1, MPI_INT, peer, 500 + t, &in, 1, MPI_INT, peer, 500 + t, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  bad += in != t * 1000 + peer;
}

static void pingpong(uint32_t *args) {
  const int t = (int)args[0], me = 1 - peer;
  uint8_t *buf = area + (size_t)t * (size_t)bytes;
  if (check) checked(t, buf, me);
  else timed(t, buf, me);
  emx_sync_done(&done);
}

int main(int argc, char **argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int me, pes;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &pes);
  const int T = argc > 1 ? atoi(argv[1]) : 2;
  bytes = argc > 2 ? atoi(argv[2]) : 4;
  iters = argc > 3 ? atoi(argv[3]) : 10;
  check = argc > 4 && strcmp(argv[4], "check") == 0;
  if (provided != MPI_THREAD_MULTIPLE || T < 1 || T > MAX_T || (size_t)T * bytes > AREA ||
      pes < 2) {
    if (me == 0) printf("acp_mpi_threads: provided %d; T 1..%d, T*BYTES <= %u, 2 ranks\n",
                        provided, MAX_T, AREA);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  area = malloc((size_t)T * (size_t)(bytes ? bytes : 1));
  if (!area) MPI_Abort(MPI_COMM_WORLD, 3);
  if (me < 2) {
    peer = 1 - me;
    emx_sync_init(&done, T);
    for (uint32_t t = 0; t < (uint32_t)T; ++t) emx_spawn((unsigned)me, pingpong, &t, 1);
    emx_sync_wait(&done);
  }
  const int all_bad = emx_sum_i32(bad);
  if (check) {
    if (me == 0) printf("MPI from %d computations per rank: %s\n", T, all_bad ? "FAILED" : "ok");
  } else {
    report_pairs("mpi threads", (unsigned)T, (unsigned)bytes, (unsigned)iters, took,
                 me == 0 ? (unsigned)T : 0);
  }
  MPI_Finalize();
  return all_bad != 0;
}
