/* Cartesian topology tests of MPI-EMX: Dims_create, Cart_create (periodic or not, ranks
 * beyond the grid), coordinates and ranks both ways, shifts at the edges, a halo
 * exchange over the shifts. Prints "dims: ok", "cart2d: ok", "cart3d: ok" on rank 0. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void test_dims(void) {
  static const struct {
    int nodes, ndims, in[3], out[3];
  } cases[] = {
      {6, 2, {0, 0}, {3, 2}},        {16, 2, {0, 0}, {4, 4}},     {80, 2, {0, 0}, {10, 8}},
      {80, 3, {0, 0, 0}, {5, 4, 4}}, {7, 2, {0, 0}, {7, 1}},      {12, 2, {0, 3}, {4, 3}},
      {1, 3, {0, 0, 0}, {1, 1, 1}},  {24, 3, {2, 0, 0}, {2, 4, 3}}, {5, 1, {0}, {5}},
  };
  for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    int d[3];
    memcpy(d, cases[k].in, sizeof d);
    const int err = MPI_Dims_create(cases[k].nodes, cases[k].ndims, d);
    int same = err == MPI_SUCCESS;
    for (int j = 0; j < cases[k].ndims; ++j) same &= d[j] == cases[k].out[j];
    check(same, "Dims_create(%d, %d) gave %d %d %d", cases[k].nodes, cases[k].ndims, d[0], d[1], d[2]);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int bad[2] = {3, 0};
  check(MPI_Dims_create(10, 2, bad) == MPI_ERR_DIMS, "Dims_create(10, {3, 0}) accepted");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  report("dims");
}

/* Shifts and a halo exchange on an ndims grid of all ranks, periodic in dimension 0. */
static void test_grid(int ndims, const char *name) {
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 0}, coords[3], c2[3];
  MPI_Dims_create(size, ndims, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &cart);
  MPI_Comm_rank(cart, &rank);
  int topo, nd;
  MPI_Topo_test(cart, &topo);
  MPI_Cartdim_get(cart, &nd);
  check(topo == MPI_CART && nd == ndims, "%s: topology %d, %d dims", name, topo, nd);
  int gd[3], gp[3], gc[3];
  MPI_Cart_get(cart, 3, gd, gp, gc);
  MPI_Cart_coords(cart, rank, 3, coords);
  for (int k = 0; k < ndims; ++k)
    check(gd[k] == dims[k] && gp[k] == periods[k] && gc[k] == coords[k], "%s: Cart_get dim %d", name, k);
  /* Every rank's coordinates map back to it, row-major. */
  for (int r = 0; r < size; ++r) {
    int back;
    MPI_Cart_coords(cart, r, 3, c2);
    MPI_Cart_rank(cart, c2, &back);
    int rowmajor = 0;
    for (int k = 0; k < ndims; ++k) rowmajor = rowmajor * dims[k] + c2[k];
    check(back == r && rowmajor == r, "%s: rank %d -> coords -> %d", name, r, back);
  }
  /* Periodic dimension 0 wraps in Cart_rank. */
  memcpy(c2, coords, sizeof c2);
  c2[0] = coords[0] + dims[0];
  int wrapped;
  MPI_Cart_rank(cart, c2, &wrapped);
  check(wrapped == rank, "%s: periodic wrap gave %d", name, wrapped);
  for (int dir = 0; dir < ndims; ++dir)
    for (int disp = -2; disp <= 2; ++disp) {
      int src, dst;
      MPI_Cart_shift(cart, dir, disp, &src, &dst);
      for (int side = 0; side < 2; ++side) {
        const int got = side ? dst : src;
        memcpy(c2, coords, sizeof c2);
        c2[dir] = coords[dir] + (side ? disp : -disp);
        int want;
        if (periods[dir]) c2[dir] = ((c2[dir] % dims[dir]) + dims[dir]) % dims[dir];
        if (c2[dir] < 0 || c2[dir] >= dims[dir]) want = MPI_PROC_NULL;
        else MPI_Cart_rank(cart, c2, &want);
        check(got == want, "%s: shift dir %d disp %d %s = %d, want %d", name, dir, disp,
              side ? "dest" : "source", got, want);
      }
    }
  /* Halo exchange along every dimension: send my rank up, receive from below. */
  for (int dir = 0; dir < ndims; ++dir) {
    int src, dst, got = -5;
    MPI_Cart_shift(cart, dir, 1, &src, &dst);
    MPI_Status st;
    MPI_Sendrecv(&rank, 1, MPI_INT, dst, dir, &got, 1, MPI_INT, src, dir, cart, &st);
    check(src == MPI_PROC_NULL ? got == -5 && st.MPI_SOURCE == MPI_PROC_NULL : got == src,
          "%s: halo dir %d got %d from %d", name, dir, got, src);
  }
  MPI_Comm_free(&cart);
  report(name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  test_dims();
  test_grid(2, "cart2d");
  test_grid(3, "cart3d");
  MPI_Finalize();
  return 0;
}
