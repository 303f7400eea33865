/* Communicators: a table indexed by the MPI_Comm handle. Every communicator is a range
 * of PEs (rank r = PE base_pe + r): MPI_COMM_WORLD, MPI_COMM_SELF, their duplicates and
 * Cartesian communicators (no reordering). Each has its own context id for
 * point-to-point traffic and the next one for its collectives, so their messages never
 * match each other's receives. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

mpi_comm **mpi_comm_table;
int mpi_comm_count;
static uint16_t next_ctx = 4; /* 0, 1: world; 2, 3: self */

mpi_comm *comm_get(MPI_Comm c) {
  return c > 0 && c < mpi_comm_count ? mpi_comm_table[c] : 0;
}

static int insert(mpi_comm *c) {
  int h = 1;
  while (h < mpi_comm_count && mpi_comm_table[h]) ++h;
  if (h >= mpi_comm_count) {
    mpi_comm **t = realloc(mpi_comm_table, (mpi_comm_count + 8) * sizeof *t);
    if (!t) return MPI_COMM_NULL;
    memset(t + mpi_comm_count, 0, 8 * sizeof *t);
    mpi_comm_table = t;
    mpi_comm_count += 8;
  }
  mpi_comm_table[h] = c;
  return h;
}

void comm_init(void) {
  mpi_comm *world = calloc(1, sizeof *world), *self = calloc(1, sizeof *self);
  if (!world || !self) mpi_internal_error("no memory for the communicators");
  *world = (mpi_comm){.ctx = 0, .base_pe = 0, .size = (int)emx_pe_count(),
                      .rank = (int)emx_pe_id(), .errhandler = MPI_ERRORS_ARE_FATAL};
  *self = (mpi_comm){.ctx = 2, .base_pe = (uint16_t)emx_pe_id(), .size = 1, .rank = 0,
                     .errhandler = MPI_ERRORS_ARE_FATAL};
  if (insert(world) != MPI_COMM_WORLD || insert(self) != MPI_COMM_SELF)
    mpi_internal_error("communicator table");
}

int check_comm(MPI_Comm comm, const char *fn, mpi_comm **out) {
  MPI_REQUIRE_INIT(fn);
  *out = comm_get(comm);
  if (!*out) return mpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
  return MPI_SUCCESS;
}

/* A context id that no member of `parent` uses: the largest next id of all members (an
 * all-reduce over the parent, so every member calls this in the same order). */
static int agree_ctx(MPI_Comm parent, uint16_t *ctx) {
  int mine = next_ctx, all;
  const int err = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, parent);
  if (err) return err;
  if (all > 0xfffe - 2) mpi_internal_error("out of context ids (too many communicators)");
  *ctx = (uint16_t)all;
  next_ctx = (uint16_t)(all + 2);
  return MPI_SUCCESS;
}

int comm_new(const mpi_comm *proto, MPI_Comm parent, int member, MPI_Comm *out) {
  uint16_t ctx;
  const int err = agree_ctx(parent, &ctx);
  if (err) return err;
  if (!member) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  mpi_comm *c = malloc(sizeof *c);
  if (!c) return mpi_error(parent, MPI_ERR_NO_MEM, "communicator creation", "no memory");
  *c = *proto;
  c->ctx = ctx;
  *out = insert(c);
  if (*out == MPI_COMM_NULL) {
    free(c);
    return mpi_error(parent, MPI_ERR_NO_MEM, "communicator creation", "no memory");
  }
  return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_rank", &c);
  if (err) return err;
  *rank = c->rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_size", &c);
  if (err) return err;
  *size = c->size;
  return MPI_SUCCESS;
}

static int *copy_ints(const int *v, int n) {
  if (!n) return 0;
  int *p = malloc(n * sizeof *p);
  if (p) memcpy(p, v, n * sizeof *p);
  return p;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  mpi_comm *c;
  int err = check_comm(comm, "MPI_Comm_dup", &c);
  if (err) return err;
  mpi_comm proto = *c;
  proto.dims = copy_ints(c->dims, c->ndims);
  proto.periods = copy_ints(c->periods, c->ndims);
  err = comm_new(&proto, comm, 1, newcomm);
  if (err || *newcomm == MPI_COMM_NULL) free(proto.dims), free(proto.periods);
  return err;
}

int MPI_Comm_free(MPI_Comm *comm) {
  mpi_comm *c;
  const int err = check_comm(*comm, "MPI_Comm_free", &c);
  if (err) return err;
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return mpi_error(*comm, MPI_ERR_COMM, "MPI_Comm_free", "cannot free a predefined communicator");
  mpi_comm_table[*comm] = 0;
  free(c->dims);
  free(c->periods);
  free(c);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result) {
  mpi_comm *ca, *cb;
  int err = check_comm(a, "MPI_Comm_compare", &ca);
  if (!err) err = check_comm(b, "MPI_Comm_compare", &cb);
  if (err) return err;
  if (a == b) *result = MPI_IDENT;
  else if (ca->base_pe == cb->base_pe && ca->size == cb->size) *result = MPI_CONGRUENT;
  else *result = MPI_UNEQUAL;
  return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Topo_test", &c);
  if (err) return err;
  *status = c->topo ? c->topo : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
