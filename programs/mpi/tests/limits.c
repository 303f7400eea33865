/* MPI-EMX at its limits (docs/reliability.md, "MPI sizes and handles"): sizes that do not
 * fit an int or the 32-bit address space, block counts whose description would not fit
 * in memory, and request handles that are not requests. Every call is made under
 * MPI_ERRORS_RETURN and must return the error MPI gives it, never fault or overrun.
 *
 *   mpi_t_limits [sizes] [requests]
 *
 * Prints "NAME: ok" on rank 0 for each test (both without arguments). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

#define EXPECT(call, code)                                                                \
  do {                                                                                    \
    const int got_ = (call);                                                              \
    check(got_ == (code), "%s returned %d, not %s", #call, got_, #code);                  \
  } while (0)

static void test_sizes(void) {
  MPI_Datatype gib, huge, huge2, t, big_512m;
  int s;
  /* 2^28 ints: 1 GiB, an extent that fits MPI_Aint (one run: no memory to describe). */
  EXPECT(MPI_Type_contiguous(1 << 28, MPI_INT, &gib), MPI_SUCCESS);
  MPI_Type_size(gib, &s);
  check(s == 1 << 30, "1 GiB type of size %d", s);
  /* 4 GiB of extent: beyond 32 bits. */
  EXPECT(MPI_Type_contiguous(4, gib, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_contiguous(1 << 30, MPI_INT, &t), MPI_ERR_TYPE);
  /* 12 copies at the same place: size 12 GiB, extent 1 GiB; its size is no int. */
  EXPECT(MPI_Type_create_hvector(12, 1, 0, gib, &huge), MPI_SUCCESS);
  s = 0;
  EXPECT(MPI_Type_size(huge, &s), MPI_SUCCESS);
  check(s == MPI_UNDEFINED, "Type_size of 12 GiB: %d", s);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(huge, &lb, &ext);
  check(lb == 0 && ext == 1 << 30, "12 GiB type: extent %ld", (long)ext);
  MPI_Count big = 0, xlb = -1, xext = 0;
  EXPECT(MPI_Type_size_x(huge, &big), MPI_SUCCESS);
  MPI_Type_get_extent_x(huge, &xlb, &xext);
  check(big == 12LL << 30 && xlb == 0 && xext == 1 << 30, "Type_size_x of 12 GiB: %lld", big);
  /* 4 GiB + 512 KiB (it wrapped to 512 KiB): a message of it is refused by name. */
  int len[2] = {1, 512 * 1024};
  MPI_Aint disp[2] = {0, 0};
  MPI_Datatype four_gib, types[2];
  EXPECT(MPI_Type_create_hvector(4, 1, 0, gib, &four_gib), MPI_SUCCESS);
  types[0] = four_gib, types[1] = MPI_BYTE;
  EXPECT(MPI_Type_create_struct(2, len, disp, types, &huge2), MPI_SUCCESS);
  MPI_Type_size(huge2, &s);
  check(s == MPI_UNDEFINED, "Type_size of 4 GiB + 512 KiB: %d", s);
  MPI_Type_commit(&huge2);
  char small[256];
  memset(small, 0x33, sizeof small);
  EXPECT(MPI_Recv(small, 1, huge2, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
         MPI_ERR_TYPE);
  EXPECT(MPI_Send(small, 1, huge2, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  int pack_size;
  EXPECT(MPI_Pack_size(1, huge2, MPI_COMM_WORLD, &pack_size), MPI_ERR_TYPE);
  check(small[0] == 0x33 && small[255] == 0x33, "the buffer was written");
  /* An int-sized type times a count beyond an int: MPI_ERR_COUNT. */
  EXPECT(MPI_Type_contiguous(1 << 27, MPI_INT, &big_512m), MPI_SUCCESS);
  MPI_Type_commit(&big_512m);
  EXPECT(MPI_Pack_size(4, big_512m, MPI_COMM_WORLD, &pack_size), MPI_ERR_COUNT);
  EXPECT(MPI_Recv(small, 4, big_512m, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
  EXPECT(MPI_Send(small, 0x7fffffff, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* 2^30 blocks: their description would not fit in a PE's memory (no overflowing
   * allocation); back to back they are one run. */
  EXPECT(MPI_Type_vector(1 << 30, 1, 2, MPI_CHAR, &t), MPI_ERR_NO_MEM);
  EXPECT(MPI_Type_vector(0x7fffffff, 1, 2, MPI_CHAR, &t), MPI_ERR_NO_MEM);
  EXPECT(MPI_Type_create_hvector(1 << 30, 1, 1, MPI_CHAR, &t), MPI_SUCCESS);
  MPI_Type_free(&t);
  EXPECT(MPI_Type_vector(1 << 30, 2, 1, MPI_INT, &t), MPI_ERR_NO_MEM); /* overlapping blocks */
  EXPECT(MPI_Type_indexed(-1, 0, 0, MPI_INT, &t), MPI_ERR_COUNT);
  /* Displacements at the edge of the address space. */
  int one[2] = {1, 1};
  MPI_Aint edge[2] = {0x7ffffff0, -0x7ffffff0};
  MPI_Datatype dd[2] = {MPI_DOUBLE, MPI_DOUBLE};
  EXPECT(MPI_Type_create_struct(1, one, edge, dd, &t), MPI_SUCCESS);
  MPI_Type_free(&t);
  EXPECT(MPI_Type_create_hindexed(1, (int[]){4}, edge, MPI_DOUBLE, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_struct(2, one, edge, dd, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_resized(MPI_INT, 0x7fffffff, 16, &t), MPI_ERR_TYPE);
  MPI_Type_free(&gib);
  MPI_Type_free(&huge);
  MPI_Type_free(&four_gib);
  MPI_Type_free(&huge2);
  MPI_Type_free(&big_512m);
}

static void test_requests(void) {
  static int garbage[32] = {1, 2, 3};
  MPI_Request wild[] = {(MPI_Request)(uintptr_t)0x7ffffff0, (MPI_Request)(uintptr_t)0x10,
                        (MPI_Request)(uintptr_t)0xfffffffc, (MPI_Request)(uintptr_t)0x3fffff8,
                        (MPI_Request)((char *)garbage + 2), (MPI_Request)garbage,
                        (MPI_Request)(void *)test_sizes};
  int flag, index;
  MPI_Status st;
  for (unsigned k = 0; k < sizeof wild / sizeof *wild; ++k) {
    MPI_Request r = wild[k];
    EXPECT(MPI_Wait(&r, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Waitany(1, &r, &index, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Waitall(1, &r, &st), MPI_ERR_IN_STATUS);
    EXPECT(MPI_Request_get_status(r, &flag, &st), MPI_ERR_REQUEST);
  }
  MPI_Request none[1] = {MPI_REQUEST_NULL};
  int outcount, indices[1];
  EXPECT(MPI_Waitall(-1, none, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
  EXPECT(MPI_Testall(-1, none, &flag, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
  EXPECT(MPI_Waitany(-1, none, &index, &st), MPI_ERR_COUNT);
  EXPECT(MPI_Testany(-1, none, &index, &flag, &st), MPI_ERR_COUNT);
  EXPECT(MPI_Waitsome(-1, none, &outcount, indices, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
  EXPECT(MPI_Testsome(-1, none, &outcount, indices, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
  EXPECT(MPI_Startall(-1, none), MPI_ERR_COUNT);
  EXPECT(MPI_Request_free(&none[0]), MPI_ERR_REQUEST);
  /* A double free (the handle copied): the second is an error, the receive still works. */
  int v = -1, w = 42 + rank;
  MPI_Request q, copy;
  MPI_Irecv(&v, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &q);
  copy = q;
  EXPECT(MPI_Request_free(&q), MPI_SUCCESS);
  EXPECT(MPI_Request_free(&copy), MPI_ERR_REQUEST);
  MPI_Send(&w, 1, MPI_INT, rank, 3, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  /* A stale copy of a handle whose cell now serves a newer request: an error, and the
   * newer request is untouched (it completed the newer one before handles had a
   * generation). */
  MPI_Request a, stale, b;
  int va = -1, vb = -1, x = 7, y = 8;
  MPI_Irecv(&va, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &a);
  stale = a;
  MPI_Send(&x, 1, MPI_INT, rank, 5, MPI_COMM_WORLD);
  EXPECT(MPI_Wait(&a, MPI_STATUS_IGNORE), MPI_SUCCESS);
  MPI_Irecv(&vb, 1, MPI_INT, rank, 6, MPI_COMM_WORLD, &b); /* (the same cell, LIFO) */
  EXPECT(MPI_Wait(&stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
  EXPECT(MPI_Test(&stale, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
  EXPECT(MPI_Cancel(&stale), MPI_ERR_REQUEST);
  EXPECT(MPI_Request_free(&stale), MPI_ERR_REQUEST);
  MPI_Send(&y, 1, MPI_INT, rank, 6, MPI_COMM_WORLD);
  EXPECT(MPI_Wait(&b, MPI_STATUS_IGNORE), MPI_SUCCESS);
  check(va == 7 && vb == 8, "stale handle: %d %d", va, vb);
  /* Eight rounds on one cell: every older handle is refused. */
  MPI_Request h[8];
  for (int k = 0; k < 8; ++k) {
    MPI_Irecv(&va, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &h[k]);
    MPI_Request keep = h[k];
    MPI_Send(&x, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);
    MPI_Wait(&keep, MPI_STATUS_IGNORE);
  }
  MPI_Irecv(&vb, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &b);
  int refused = 0;
  for (int k = 0; k < 8; ++k) refused += MPI_Test(&h[k], &flag, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST;
  check(refused >= 7, "stale handles of 8 generations: %d refused", refused);
  MPI_Send(&y, 1, MPI_INT, rank, 8, MPI_COMM_WORLD);
  EXPECT(MPI_Wait(&b, MPI_STATUS_IGNORE), MPI_SUCCESS);
  char text[MPI_MAX_ERROR_STRING];
  int len, cls;
  EXPECT(MPI_Error_string(-5, text, &len), MPI_ERR_ARG);
  EXPECT(MPI_Error_string(MPI_ERR_LASTCODE + 1, text, &len), MPI_ERR_ARG);
  EXPECT(MPI_Error_class(-5, &cls), MPI_ERR_ARG);
  /* Communication works after all this. */
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int got = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, next, 4, &got, 1, MPI_INT, prev, 4, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  check(got == prev, "a ring after the errors: %d", got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const named_test tests[] = {{"sizes", test_sizes}, {"requests", test_requests}};
  run_named_tests(argc, argv, tests, sizeof tests / sizeof *tests);
  MPI_Finalize();
  return 0;
}
