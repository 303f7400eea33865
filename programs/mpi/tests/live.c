/* Live values across a blocking MPI_Wait, MPI_Recv, MPI_Waitall and an MPI_Isend that waits for
 * its operand segment (tests/mpi, docs/mpi.md "Threads,
 * atomicity, blocking"): mpi.h compiles the suspension into the caller, which keeps only
 * its live values; they must come back intact although other computations run on the
 * PE meanwhile and leave every register changed. Rank 0 holds integers and floats in
 * registers across waits that block (rank 1 computes first), while a second computation
 * on PE 0 fills every register with garbage and yields, over and over.
 *
 *   mpi_t_live ROUNDS     prints "live: ok" (or the failures); run on 2 PEs or more. */
#include <emx/threads.h>
#include <stdlib.h>

#include "check.h"

static volatile int stop;

/* Clobbers the callee-saved registers (integer and float) between yields. */
static void scribble(uint32_t *args) {
  (void)args;
  while (!stop) {
    __asm__ volatile(
        "li s1, -1\n li s2, -2\n li s3, -3\n li s4, -4\n li s5, -5\n li s6, -6\n"
        "li s7, -7\n li s8, -8\n li s9, -9\n li s10, -10\n li s11, -11\n"
        "fcvt.s.w fs0, s1\n fcvt.s.w fs1, s2\n fcvt.s.w fs2, s3\n fcvt.s.w fs3, s4\n"
        "fcvt.s.w fs4, s5\n fcvt.s.w fs5, s6\n fcvt.s.w fs6, s7\n fcvt.s.w fs7, s8\n"
        "fcvt.s.w fs8, s9\n fcvt.s.w fs9, s10\n fcvt.s.w fs10, s11\n fcvt.s.w fs11, s1\n" ::
            : "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "fs0", "fs1",
              "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11");
    emx_yield();
  }
}

/* Rank 1 answers each round after computing a while, so rank 0's waits block. */
static void delay(int clocks) {
  volatile int sink = 0;
  for (int k = 0; k < clocks / 8; ++k) sink += k;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 20;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    emx_spawn(emx_pe_id(), scribble, 0, 0);
    int bad = 0;
    for (int k = 0; k < rounds; ++k) {
      /* Twelve integers and twelve floats live across both waits. */
      int i0 = k, i1 = k * 3, i2 = k * 5, i3 = k * 7, i4 = k ^ 11, i5 = k + 13, i6 = k * 17,
          i7 = k - 19, i8 = k * 23, i9 = k + 29, i10 = k * 31, i11 = k ^ 37;
      float f0 = k * 0.5f, f1 = k * 1.5f, f2 = k * 2.5f, f3 = k * 3.5f, f4 = k + 0.25f,
            f5 = k - 0.75f, f6 = k * 4.5f, f7 = k * 5.5f, f8 = k + 6.5f, f9 = k * 7.5f,
            f10 = k - 8.5f, f11 = k * 9.5f;
      int got = -1, sent = k;
      MPI_Request r;
      MPI_Irecv(&got, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
      MPI_Send(&sent, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      check(got == k, "round %d: MPI_Wait received %d", k, got);
      MPI_Recv(&got, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(got == -k, "round %d: MPI_Recv received %d", k, got);
      int pair[2] = {-1, -1};
      MPI_Request two[2];
      MPI_Irecv(&pair[0], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &two[0]);
      MPI_Irecv(&pair[1], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &two[1]);
      MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
      check(pair[0] == k + 1 && pair[1] == k + 2, "round %d: MPI_Waitall received %d, %d", k,
            pair[0], pair[1]);
      /* Not posted yet (rank 1 computes): a send request, whose creation waits for rank 1's
       * operand segment (the default; local with -mpi-option=local-isend). */
      int out = k * 11;
      MPI_Request s;
      MPI_Isend(&out, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &s);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      bad += i0 != k || i1 != k * 3 || i2 != k * 5 || i3 != k * 7 || i4 != (k ^ 11) ||
             i5 != k + 13 || i6 != k * 17 || i7 != k - 19 || i8 != k * 23 || i9 != k + 29 ||
             i10 != k * 31 || i11 != (k ^ 37);
      bad += f0 != k * 0.5f || f1 != k * 1.5f || f2 != k * 2.5f || f3 != k * 3.5f ||
             f4 != k + 0.25f || f5 != k - 0.75f || f6 != k * 4.5f || f7 != k * 5.5f ||
             f8 != k + 6.5f || f9 != k * 7.5f || f10 != k - 8.5f || f11 != k * 9.5f;
    }
    check(bad == 0, "%d rounds lost live values across a blocking wait", bad);
    stop = 1;
  } else if (rank == 1) {
    for (int k = 0; k < rounds; ++k) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      delay(3000);
      MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
      const int neg = -v;
      delay(3000);
      MPI_Send(&neg, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
      const int next[2] = {v + 1, v + 2};
      delay(3000);
      MPI_Send(&next[0], 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
      delay(3000);
      MPI_Send(&next[1], 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
      delay(3000);
      int in = -1;
      MPI_Recv(&in, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(in == v * 11, "round %d: MPI_Recv after MPI_Isend received %d", v, in);
    }
  }
  report("live");
  MPI_Finalize();
  return 0;
}
