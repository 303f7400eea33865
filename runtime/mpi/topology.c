/* Cartesian topologies: row-major rank order (the last dimension varies fastest), no
 * reordering, so rank r of a Cartesian communicator is rank r of its parent; ranks
 * beyond the grid get MPI_COMM_NULL. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

enum { MAX_DIMS = 64 }; /* Cartesian grids (Dims_create has no limit) */

/* The most balanced factorisation of n into k parts, each at most `most`, in
 * non-increasing order (divs: n's divisors, ascending): best[] gets the one whose
 * largest part minus smallest is least (then the smallest largest part). */
typedef struct {
  const int *divs;
  int ndivs, k, *cur, *best, best_spread;
} dims_search;

static void dims_try(dims_search *s, int at, int n, int most) {
  const int left = s->k - at;
  if (left == 0) {
    if (n != 1) return;
    const int spread = s->cur[0] - s->cur[s->k - 1];
    if (s->best_spread < 0 || spread < s->best_spread) {
      s->best_spread = spread;
      for (int j = 0; j < s->k; ++j) s->best[j] = s->cur[j];
    }
    return;
  }
  for (int d = s->ndivs - 1; d >= 0; --d) {
    const int p = s->divs[d];
    if (p > most || n % p) continue;
    /* The remaining parts are at most p: p^left must reach n. */
    long long reach = 1;
    for (int j = 0; j < left && reach < n; ++j) reach *= p;
    if (reach < n) break;
    if (s->best_spread >= 0 && at > 0 && s->cur[0] - p > s->best_spread) break;
    s->cur[at] = p;
    dims_try(s, at + 1, n / p, p);
  }
}

int MPI_Dims_create(int nnodes, int ndims, int *dims) {
  const char *fn = "MPI_Dims_create";
  if (ndims < 0)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "invalid number of dimensions %d", ndims);
  if (nnodes < 1) return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid node count %d", nnodes);
  long long fixed = 1;
  int free_dims = 0;
  for (int k = 0; k < ndims; ++k) {
    if (dims[k] < 0)
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "negative dimension %d", dims[k]);
    if (dims[k]) fixed *= dims[k];
    else ++free_dims;
    if (fixed > nnodes) break;
  }
  if (fixed > nnodes || nnodes % fixed)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                     "%d nodes do not divide into the fixed dimensions", nnodes);
  const int rest = nnodes / (int)fixed;
  if (!free_dims) {
    if (rest != 1)
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                       "the dimensions make %lld nodes, not %d", fixed, nnodes);
    return MPI_SUCCESS;
  }
  /* Dimensions as close to each other as possible (MPI-1 6.5.2), in non-increasing
   * order: an exhaustive search over the divisors of what is left. Beyond the number of
   * prime factors the remaining dimensions are 1. */
  int primes = 0;
  for (int m = rest, p = 2; m > 1; p = p * p > m ? m : p + 1)
    while (m % p == 0) m /= p, ++primes;
  const int k = free_dims < primes ? free_dims : primes;
  int divs[1600], ndivs = 0; /* an int has at most 1536 divisors */
  for (int d = 1; (long long)d * d <= rest; ++d)
    if (rest % d == 0) divs[ndivs++] = d;
  for (int j = ndivs - 1; j >= 0; --j)
    if ((long long)divs[j] * divs[j] != rest) divs[ndivs++] = rest / divs[j];
  int cur[32], best[32]; /* k <= 31 prime factors */
  dims_search s = {divs, ndivs, k, cur, best, -1};
  if (k) dims_try(&s, 0, rest, rest);
  int nf = 0;
  for (int j = 0; j < ndims; ++j)
    if (!dims[j]) dims[j] = nf < k ? best[nf++] : 1;
  return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods, int reorder,
                    MPI_Comm *comm_cart) {
  const char *fn = "MPI_Cart_create";
  (void)reorder; /* ranks stay those of the parent */
  mpi_comm *c;
  int err = check_intra(comm, fn, &c);
  if (err) return err;
  if (ndims < 0 || ndims > MAX_DIMS)
    return mpi_error(comm, MPI_ERR_DIMS, fn, "invalid number of dimensions %d", ndims);
  long cells = 1;
  for (int k = 0; k < ndims; ++k) {
    if (dims[k] <= 0) return mpi_error(comm, MPI_ERR_DIMS, fn, "dimension %d is %d", k, dims[k]);
    cells *= dims[k];
    if (cells > c->size)
      return mpi_error(comm, MPI_ERR_TOPOLOGY, fn, "a grid of more than %d cells for %d ranks",
                       c->size, c->size);
  }
  mpi_comm proto = *c;
  proto.size = (int)cells;
  proto.topo = MPI_CART;
  proto.ndims = ndims;
  proto.dims = malloc((ndims ? ndims : 1) * sizeof(int));
  proto.periods = malloc((ndims ? ndims : 1) * sizeof(int));
  if (!proto.dims || !proto.periods) return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory");
  for (int k = 0; k < ndims; ++k) {
    proto.dims[k] = dims[k];
    proto.periods[k] = periods[k] != 0;
  }
  const int member = c->rank < cells;
  err = comm_new(&proto, comm, member, comm_cart);
  if (err || !member) {
    free(proto.dims);
    free(proto.periods);
  }
  return err;
}

static int check_cart(MPI_Comm comm, const char *fn, mpi_comm **c) {
  const int err = check_comm(comm, fn, c);
  if (err) return err;
  if ((*c)->topo != MPI_CART)
    return mpi_error(comm, MPI_ERR_TOPOLOGY, fn, "communicator %d has no Cartesian topology", comm);
  return MPI_SUCCESS;
}

static void coords_of(const mpi_comm *c, int rank, int *coords) {
  for (int k = c->ndims - 1; k >= 0; --k) {
    coords[k] = rank % c->dims[k];
    rank /= c->dims[k];
  }
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int *coords) {
  const char *fn = "MPI_Cart_coords";
  mpi_comm *c;
  int err = check_cart(comm, fn, &c);
  if (err) return err;
  if (rank < 0 || rank >= c->size)
    return mpi_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (communicator of %d ranks)", rank, c->size);
  if (maxdims < c->ndims)
    return mpi_error(comm, MPI_ERR_ARG, fn, "maxdims %d < %d dimensions", maxdims, c->ndims);
  coords_of(c, rank, coords);
  return MPI_SUCCESS;
}

/* Coordinates wrap in periodic dimensions; out of range in another: -1. */
static int rank_of(const mpi_comm *c, const int *coords) {
  int rank = 0;
  for (int k = 0; k < c->ndims; ++k) {
    int x = coords[k];
    const int d = c->dims[k];
    if (c->periods[k]) x = ((x % d) + d) % d;
    else if (x < 0 || x >= d) return -1;
    rank = rank * d + x;
  }
  return rank;
}

int MPI_Cart_rank(MPI_Comm comm, const int *coords, int *rank) {
  const char *fn = "MPI_Cart_rank";
  mpi_comm *c;
  const int err = check_cart(comm, fn, &c);
  if (err) return err;
  *rank = rank_of(c, coords);
  if (*rank < 0)
    return mpi_error(comm, MPI_ERR_ARG, fn, "coordinates outside a non-periodic dimension");
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest) {
  const char *fn = "MPI_Cart_shift";
  mpi_comm *c;
  const int err = check_cart(comm, fn, &c);
  if (err) return err;
  if (direction < 0 || direction >= c->ndims)
    return mpi_error(comm, MPI_ERR_DIMS, fn, "direction %d of a %d-dimensional grid", direction,
                     c->ndims);
  int coords[MAX_DIMS];
  coords_of(c, c->rank, coords);
  const int here = coords[direction];
  coords[direction] = here + disp;
  *dest = rank_of(c, coords);
  coords[direction] = here - disp;
  *source = rank_of(c, coords);
  if (*dest < 0) *dest = MPI_PROC_NULL;
  if (*source < 0) *source = MPI_PROC_NULL;
  return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims) {
  mpi_comm *c;
  const int err = check_cart(comm, "MPI_Cartdim_get", &c);
  if (err) return err;
  *ndims = c->ndims;
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int *dims, int *periods, int *coords) {
  const char *fn = "MPI_Cart_get";
  mpi_comm *c;
  const int err = check_cart(comm, fn, &c);
  if (err) return err;
  if (maxdims < c->ndims)
    return mpi_error(comm, MPI_ERR_ARG, fn, "maxdims %d < %d dimensions", maxdims, c->ndims);
  memcpy(dims, c->dims, c->ndims * sizeof *dims);
  memcpy(periods, c->periods, c->ndims * sizeof *periods);
  coords_of(c, c->rank, coords);
  return MPI_SUCCESS;
}

/* ---- More Cartesian calls ------------------------------------------------------------ */

/* The sub-grids that keep the dimensions remain_dims names: a Comm_split by the
 * coordinates dropped, ranks in the order of the coordinates kept. */
int MPI_Cart_sub(MPI_Comm comm, const int *remain_dims, MPI_Comm *newcomm) {
  const char *fn = "MPI_Cart_sub";
  mpi_comm *c;
  int err = check_cart(comm, fn, &c);
  if (err) return err;
  int coords[MAX_DIMS], color = 0, key = 0, nd = 0, dims[MAX_DIMS], periods[MAX_DIMS];
  coords_of(c, c->rank, coords);
  for (int k = 0; k < c->ndims; ++k) {
    if (remain_dims[k]) {
      key = key * c->dims[k] + coords[k];
      dims[nd] = c->dims[k];
      periods[nd++] = c->periods[k];
    } else {
      color = color * c->dims[k] + coords[k];
    }
  }
  MPI_Comm sub;
  err = MPI_Comm_split(comm, color, key, &sub);
  if (err) return err;
  mpi_comm *s = comm_get(sub);
  s->topo = MPI_CART;
  s->ndims = nd;
  s->dims = malloc((nd ? nd : 1) * sizeof(int));
  s->periods = malloc((nd ? nd : 1) * sizeof(int));
  if (!s->dims || !s->periods) return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory");
  memcpy(s->dims, dims, nd * sizeof(int));
  memcpy(s->periods, periods, nd * sizeof(int));
  *newcomm = sub;
  return MPI_SUCCESS;
}

/* No reordering: rank r keeps its place if it is inside the grid. */
int MPI_Cart_map(MPI_Comm comm, int ndims, const int *dims, const int *periods, int *newrank) {
  const char *fn = "MPI_Cart_map";
  (void)periods;
  mpi_comm *c;
  const int err = check_comm(comm, fn, &c);
  if (err) return err;
  long cells = 1;
  for (int k = 0; k < ndims; ++k) {
    if (dims[k] <= 0) return mpi_error(comm, MPI_ERR_DIMS, fn, "dimension %d is %d", k, dims[k]);
    cells *= dims[k];
  }
  if (cells > c->size)
    return mpi_error(comm, MPI_ERR_TOPOLOGY, fn, "a grid of %ld cells for %d ranks", cells, c->size);
  *newrank = c->rank < cells ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* ---- Graph topologies ------------------------------------------------------------------- */

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int *index, const int *edges, int *newrank) {
  const char *fn = "MPI_Graph_map";
  (void)index, (void)edges;
  mpi_comm *c;
  const int err = check_comm(comm, fn, &c);
  if (err) return err;
  if (nnodes < 0 || nnodes > c->size)
    return mpi_error(comm, MPI_ERR_TOPOLOGY, fn, "a graph of %d nodes for %d ranks", nnodes, c->size);
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* Nodes 0..nnodes-1 are the parent's first ranks (no reordering); node k's neighbours are
 * edges[index[k-1] .. index[k]). */
int MPI_Graph_create(MPI_Comm comm, int nnodes, const int *index, const int *edges, int reorder,
                     MPI_Comm *comm_graph) {
  const char *fn = "MPI_Graph_create";
  (void)reorder;
  mpi_comm *c;
  int err = check_intra(comm, fn, &c);
  if (err) return err;
  if (nnodes < 0 || nnodes > c->size)
    return mpi_error(comm, MPI_ERR_ARG, fn, "a graph of %d nodes for %d ranks", nnodes, c->size);
  for (int k = 0; k < nnodes; ++k)
    if (index[k] < (k ? index[k - 1] : 0))
      return mpi_error(comm, MPI_ERR_ARG, fn, "index[%d] = %d decreases", k, index[k]);
  const int nedges = nnodes ? index[nnodes - 1] : 0;
  for (int e = 0; e < nedges; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return mpi_error(comm, MPI_ERR_ARG, fn, "edge %d names node %d of %d", e, edges[e], nnodes);
  mpi_comm proto = comm_plain_proto(c);
  proto.map = c->map;
  proto.size = nnodes;
  proto.topo = MPI_GRAPH;
  proto.nnodes = nnodes;
  proto.index = malloc((nnodes ? nnodes : 1) * sizeof(int));
  proto.edges = malloc((nedges ? nedges : 1) * sizeof(int));
  if (!proto.index || !proto.edges) return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory");
  memcpy(proto.index, index, nnodes * sizeof(int));
  memcpy(proto.edges, edges, nedges * sizeof(int));
  const int member = c->rank < nnodes;
  err = comm_new(&proto, comm, member, comm_graph);
  if (err || !member) free(proto.index), free(proto.edges);
  return err;
}

static int check_graph(MPI_Comm comm, const char *fn, mpi_comm **c) {
  const int err = check_comm(comm, fn, c);
  if (err) return err;
  if ((*c)->topo != MPI_GRAPH)
    return mpi_error(comm, MPI_ERR_TOPOLOGY, fn, "communicator %d has no graph topology", comm);
  return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
  mpi_comm *c;
  const int err = check_graph(comm, "MPI_Graphdims_get", &c);
  if (err) return err;
  *nnodes = c->nnodes;
  *nedges = c->nnodes ? c->index[c->nnodes - 1] : 0;
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int *index, int *edges) {
  mpi_comm *c;
  const int err = check_graph(comm, "MPI_Graph_get", &c);
  if (err) return err;
  const int nedges = c->nnodes ? c->index[c->nnodes - 1] : 0;
  for (int k = 0; k < maxindex && k < c->nnodes; ++k) index[k] = c->index[k];
  for (int e = 0; e < maxedges && e < nedges; ++e) edges[e] = c->edges[e];
  return MPI_SUCCESS;
}

static int graph_rank(MPI_Comm comm, const char *fn, int rank, mpi_comm **c) {
  const int err = check_graph(comm, fn, c);
  if (err) return err;
  if (rank < 0 || rank >= (*c)->nnodes)
    return mpi_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (graph of %d nodes)", rank, (*c)->nnodes);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
  mpi_comm *c;
  const int err = graph_rank(comm, "MPI_Graph_neighbors_count", rank, &c);
  if (err) return err;
  *nneighbors = c->index[rank] - (rank ? c->index[rank - 1] : 0);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int *neighbors) {
  mpi_comm *c;
  const int err = graph_rank(comm, "MPI_Graph_neighbors", rank, &c);
  if (err) return err;
  const int first = rank ? c->index[rank - 1] : 0;
  for (int k = 0; k < maxneighbors && first + k < c->index[rank]; ++k)
    neighbors[k] = c->edges[first + k];
  return MPI_SUCCESS;
}
