/* Erroneous calls to MPI-EMX: with MPI_ERRORS_RETURN each returns its error class and
 * changes nothing (communication still works afterwards); by default (errors are fatal)
 * the program stops with a message naming rank, function and reason.
 *
 *   mpi_t_errors [returned | fatal-rank | fatal-tag | fatal-count | fatal-comm | abort]
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int me, size;
static void returned(void);

#define EXPECT(call, code) \
  check((call) == (code), "%s returned something else than %s", #call, #code)

static void returned(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int v = 1, buf[4];
  MPI_Request r;
  EXPECT(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT(MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT(MPI_Irecv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
  EXPECT(MPI_Send(&v, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT(MPI_Send(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT(MPI_Isend(&v, 1, MPI_INT, 0, 65535, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
  EXPECT(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, 99), MPI_ERR_COMM);
  EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT(MPI_Send(&v, 1, 999, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT(MPI_Recv(0, 5, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
  EXPECT(MPI_Recv((void *)0xfffff000, 5, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
         MPI_ERR_BUFFER);
  EXPECT(MPI_Recv((void *)returned, 5, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
  EXPECT(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  EXPECT(MPI_Reduce(&v, buf, 1, MPI_INT, 999, 0, MPI_COMM_WORLD), MPI_ERR_OP);
  float f = 1, g;
  EXPECT(MPI_Allreduce(&f, &g, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
  MPI_Comm world = MPI_COMM_WORLD;
  EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM);
  int src, dst;
  EXPECT(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
  int rank;
  EXPECT(MPI_Comm_rank(12345, &rank), MPI_ERR_COMM);
  /* Start on a request that is not persistent. */
  MPI_Irecv(buf, 1, MPI_INT, me, 5, MPI_COMM_WORLD, &r);
  MPI_Request keep = r;
  EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
  MPI_Send(&v, 1, MPI_INT, me, 5, MPI_COMM_WORLD);
  MPI_Wait(&keep, MPI_STATUS_IGNORE);
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(MPI_ERR_TAG, text, &len);
  check(strcmp(text, "invalid tag") == 0 && len == 11, "Error_string: %s", text);
  /* Everything still works. */
  const int next = (me + 1) % size, prev = (me + size - 1) % size;
  int out[4] = {me, me, me, me};
  MPI_Sendrecv(out, 4, MPI_INT, next, 1, buf, 4, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(buf[3] == prev, "communication after the errors");
  int sum;
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(sum == size * (size - 1) / 2, "allreduce after the errors");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  report("returned");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *what = argc > 1 ? argv[1] : "returned";
  int v = 0;
  if (strcmp(what, "returned") == 0) returned();
  /* The fatal ones: rank 0 makes the bad call, the others wait in a barrier. */
  if (me == 0) {
    if (strcmp(what, "fatal-rank") == 0) MPI_Send(&v, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
    if (strcmp(what, "fatal-tag") == 0) MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD);
    if (strcmp(what, "fatal-count") == 0) MPI_Recv(&v, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (strcmp(what, "fatal-comm") == 0) MPI_Barrier(77);
    if (strcmp(what, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
