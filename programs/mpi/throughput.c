/* Throughput of the in-advance ping-pong between ranks 1 and 2 (ranks 0 and 1 on 2 PEs),
 * over message sizes, in MB/s (10^6 bytes per second of simulated time), one-way time =
 * half the round trip.
 *
 *   mpi_throughput mpi|raw SIZE... [-mpi-matching=...] [-mpi-protocol=...]
 *
 * mpi: each side posts all receives first, Barrier, then Isend/Wait + Wait on the posted
 *      receive (as mpi_pingpong advance), MPI_BYTE, tag 100.
 * raw: no MPI on the way: the data goes by the remote-write routine below, unrolled by
 *      64 bytes (so sizes are rounded up to 64 bytes and the curve steps every 64), then
 *      an I-structure flag that the other side waits on.
 * Iterations per size: 262144 / SIZE, at least 2, at most 50. Both ranks start the timed
 * loop at one clock (common_start.h), so untimed work before it moves no figure. One line
 * per size on the initiating rank: "bytes=N iterations=K oneway_cycles=C mbps=M". */
#include <emx/emc.h>
#include <mpi.h>

#include "common_start.h"
#include "pingpong_loop.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG = 100 };

static int iterations(int bytes) {
  const int k = bytes > 0 ? 262144 / bytes : 50;
  return k < 2 ? 2 : k > 50 ? 50 : k;
}

/* ---- MPI ---------------------------------------------------------------------------- */

static double mpi_round_trips(int me, int peer, int initiator, char *buf, int bytes, int iters) {
  MPI_Request *recvs = malloc(iters * sizeof *recvs);
  for (int k = 0; k < iters; ++k) MPI_Irecv(buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &recvs[k]);
  const uint64_t t0 = common_start("mpi_throughput", me);
  pingpong_advance_loop(peer, initiator, buf, bytes, iters, TAG, recvs);
  const uint64_t t1 = emx_cycles();
  free(recvs);
  return (double)(t1 - t0);
}

/* ---- The raw remote-write routine ----------------------------------------------------- */

/* 16 auto-increment loads and register-relative sends per iteration: 64 bytes. */
#define W(k) emx_send_disp(EMX_PKT_syswr, k, g, emx_load_next(&s))
static void put64(emx_gaddr_t g, const uint32_t *s, int bytes) {
  for (const uint32_t *end = s + (bytes + 63) / 64 * 16; s != end; g += 16) {
    W(0); W(1); W(2); W(3); W(4); W(5); W(6); W(7);
    W(8); W(9); W(10); W(11); W(12); W(13); W(14); W(15);
  }
}
#undef W

static uint32_t flag; /* I-structure element: "your data is here", the same on every PE */

static double raw_round_trips(int me, int peer, int initiator, uint32_t *buf, int bytes,
                              int iters) {
  const emx_gaddr_t theirs = emx_gaddr(peer, buf), their_flag = emx_gaddr(peer, &flag);
  const uint64_t t0 = common_start("mpi_throughput", me);
  for (int k = 0; k < iters; ++k) {
    if (!initiator) (void)emx_iread(emx_gaddr_mine(&flag));
    put64(theirs, buf, bytes);
    emx_iwrite_flag(their_flag, 1); /* performed after the data on every variant */
    if (initiator) (void)emx_iread(emx_gaddr_mine(&flag));
  }
  const uint64_t t1 = emx_cycles();
  return (double)(t1 - t0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int raw = argc > 1 && strcmp(argv[1], "raw") == 0;
  if (size < 2 || argc < 3 || (!raw && strcmp(argv[1], "mpi") != 0)) {
    if (me == 0) printf("usage: mpi_throughput mpi|raw SIZE... (2 PEs or more)\n");
    MPI_Finalize();
    return 2;
  }
  const int a = size > 2 ? 1 : 0, b = a + 1, active = me == a || me == b;
  int largest = 0;
  for (int k = 2; k < argc; ++k)
    if (atoi(argv[k]) > largest) largest = atoi(argv[k]);
  /* The raw routine writes whole 64-byte blocks. Only the pair needs the buffer. */
  const size_t buf_bytes = (largest + 63) / 64 * 64 + 64;
  uint32_t *buf = active ? malloc(buf_bytes) : 0;
  if (active && !buf) {
    printf("rank %d: no memory for %d bytes\n", me, largest);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (active) memset(buf, me, buf_bytes);
  const double mhz = emx_clock_khz() / 1000.0;
  for (int k = 2; k < argc; ++k) {
    const int bytes = atoi(argv[k]), iters = iterations(bytes);
    double clocks = 0;
    if (active) {
      const int peer = me == a ? b : a;
      clocks = raw ? raw_round_trips(me, peer, me == b, buf, bytes, iters)
                   : mpi_round_trips(me, peer, me == b, (char *)buf, bytes, iters);
    } else {
      common_start("mpi_throughput", me); /* every rank takes part */
    }
    if (me == b) {
      const double oneway = clocks / (2.0 * iters);
      printf("bytes=%d iterations=%d oneway_cycles=%.1f mbps=%.3f\n", bytes, iters, oneway,
             bytes / (oneway / mhz));
      /* One record per size, in order (the experiment layer reads them as a series). */
      emx_result_int("bytes", bytes);
      emx_result_int("iterations", iters);
      emx_result("oneway_cycles", oneway);
      emx_result("mbps", bytes / (oneway / mhz));
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
