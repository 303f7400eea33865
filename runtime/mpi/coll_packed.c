/* Collectives on non-contiguous datatypes: the data packed (pack.c) into a contiguous
 * buffer, the collective run on that as bytes, the result unpacked: the regular forms
 * (Bcast, Gather, Scatter, Allgather, Alltoall) and the v-forms (Gatherv, Scatterv,
 * Allgatherv, Alltoallv; each block packed on its own). The reductions combine packed
 * operands (op_apply's form): reduce_operands packs and unpacks them. */
#include <stdlib.h>

#include "coll_packed.h"
#include "datatypes.h"
#include "mpi_internal.h"

int type_noncontiguous(MPI_Datatype t) { return type_size(t) >= 0 && !type_contiguous(t); }

/* A packed copy of count copies of t at buf (NULL for MPI_IN_PLACE, or on no memory:
 * *err set). */
static char *packed_copy(MPI_Comm comm, const char *fn, const void *buf, int count,
                         MPI_Datatype t, int fill, int *err) {
  const uint32_t n = (uint32_t)count * (uint32_t)type_size(t);
  char *p = malloc(n ? n : 4);
  if (!p) {
    *err = mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory to pack %u bytes", (unsigned)n);
    return 0;
  }
  if (fill && buf != MPI_IN_PLACE) type_pack(buf, count, t, p);
  return p;
}

static int bytes_of(int count, MPI_Datatype t) { return count * type_size(t); }

int packed_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  int err = MPI_SUCCESS, rank;
  if ((err = MPI_Comm_rank(comm, &rank))) return err;
  char *p = packed_copy(comm, "MPI_Bcast", buf, count, t, rank == root, &err);
  if (!p) return err;
  err = MPI_Bcast(p, bytes_of(count, t), MPI_BYTE, root, comm);
  if (!err && rank != root) type_unpack(p, (uint32_t)bytes_of(count, t), buf, count, t);
  free(p);
  return err;
}

/* Gather, Scatter, Allgather, Alltoall: which of them (the calls have the same shape). */
typedef int (*regular_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
                          MPI_Comm);
static int gather_fn(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                     int root, MPI_Comm comm) {
  return MPI_Gather(s, sc, st, r, rc, rt, root, comm);
}
static int scatter_fn(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                      int root, MPI_Comm comm) {
  return MPI_Scatter(s, sc, st, r, rc, rt, root, comm);
}
static int allgather_fn(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                        MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)root;
  return MPI_Allgather(s, sc, st, r, rc, rt, comm);
}
static int alltoall_fn(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                       int root, MPI_Comm comm) {
  (void)root;
  return MPI_Alltoall(s, sc, st, r, rc, rt, comm);
}
static const struct {
  regular_fn fn;
  const char *name;
  int send_all, recv_all; /* the buffer holds a block per rank (at the root: rooted) */
  int rooted;
} regular[] = {
    [PACKED_GATHER] = {gather_fn, "MPI_Gather", 0, 1, 1},
    [PACKED_SCATTER] = {scatter_fn, "MPI_Scatter", 1, 0, 1},
    [PACKED_ALLGATHER] = {allgather_fn, "MPI_Allgather", 0, 1, 0},
    [PACKED_ALLTOALL] = {alltoall_fn, "MPI_Alltoall", 1, 1, 0},
};

int packed_regular(enum packed_kind kind, const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  const char *fn = regular[kind].name;
  int err = MPI_SUCCESS, rank, size;
  if ((err = MPI_Comm_rank(comm, &rank)) || (err = MPI_Comm_size(comm, &size))) return err;
  const int at_root = !regular[kind].rooted || rank == root;
  /* Counts of copies in each buffer here (0: not used here). */
  const int scopies = sendbuf == MPI_IN_PLACE ? 0
                      : regular[kind].send_all ? (at_root ? sendcount * size : 0)
                                               : sendcount;
  const int rcopies = recvbuf == MPI_IN_PLACE ? 0
                      : regular[kind].recv_all ? (at_root ? recvcount * size : 0)
                                               : recvcount;
  char *s = 0, *r = 0;
  if (scopies) s = packed_copy(comm, fn, sendbuf, scopies, sendtype, 1, &err);
  /* Send buffer in place: this rank's data is in the receive buffer, packed with it. */
  if (!err && rcopies)
    r = packed_copy(comm, fn, recvbuf, rcopies, recvtype, sendbuf == MPI_IN_PLACE, &err);
  if (!err)
    err = regular[kind].fn(sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : s ? s : sendbuf,
                           bytes_of(sendcount, sendtype), MPI_BYTE,
                           recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : r ? r : recvbuf,
                           bytes_of(recvcount, recvtype), MPI_BYTE, root, comm);
  if (!err && r && rcopies) type_unpack(r, (uint32_t)bytes_of(rcopies, recvtype), recvbuf, rcopies, recvtype);
  free(s);
  free(r);
  return err;
}

/* ---- Reductions: the operands in packed form ---------------------------------------- */

int reduce_operands_open(MPI_Comm comm, const char *fn, const void *sendbuf, void *recvbuf,
                         int count, MPI_Datatype t, int out_here, reduce_operands *o) {
  const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  *o = (reduce_operands){in, recvbuf, 0, 0};
  if (!type_noncontiguous(t)) return MPI_SUCCESS;
  int err = MPI_SUCCESS;
  o->in = o->in_copy = packed_copy(comm, fn, in, count, t, 1, &err);
  o->out = 0;
  if (o->in_copy && out_here) o->out = o->out_copy = packed_copy(comm, fn, recvbuf, count, t, 0, &err);
  if (err) free(o->in_copy);
  return err;
}

void reduce_operands_close(reduce_operands *o, void *recvbuf, int count, MPI_Datatype t,
                           int unpack) {
  if (o->out_copy && unpack) type_unpack(o->out_copy, (uint32_t)bytes_of(count, t), recvbuf, count, t);
  free(o->in_copy);
  free(o->out_copy);
}

/* ---- The v-forms ------------------------------------------------------------------------ */

/* One side of a v-collective on this rank: blocks of counts[k] copies of t at displs[k]
 * extents of t from buf (one block for the side that is one buffer), and where each lies
 * in the packed copy: bc[k] bytes at bd[k]. The collective runs on the packed copies as
 * bytes (the type signatures match, so the byte counts do). */
typedef struct {
  char *buf;
  int n;
  const int *counts, *displs;
  MPI_Datatype t;
  int one, zero; /* counts and displs of a single block */
  int *bc, *bd;
  char *packed;
} vside;

static vside vblocks(const void *buf, int n, const int *counts, const int *displs, MPI_Datatype t) {
  return (vside){(char *)buf, n, counts, displs, t, 0, 0, 0, 0, 0};
}
static vside vsingle(const void *buf, int count, MPI_Datatype t) {
  return (vside){(char *)buf, 1, 0, 0, t, count, 0, 0, 0, 0};
}

static MPI_Aint extent_of(MPI_Datatype t) {
  if (type_size(t) < 0) return 0; /* MPI_DATATYPE_NULL with no data */
  type_extent e;
  type_bounds(t, &e);
  return e.extent;
}

/* Checks the blocks (counts, types, memory), makes the packed copy, and packs the data
 * into it if `fill`. On an error (reported) nothing is left allocated. */
static int vside_open(MPI_Comm comm, const char *fn, vside *v, int writable, int fill) {
  if (!v->counts) v->counts = &v->one, v->displs = &v->zero;
  const MPI_Aint extent = extent_of(v->t);
  for (int k = 0; k < v->n; ++k) {
    uint32_t b;
    const int err = check_buffer(comm, fn, v->buf + v->displs[k] * extent, v->counts[k], v->t,
                                 writable, &b);
    if (err) return err;
  }
  const int size = type_size(v->t) > 0 ? type_size(v->t) : 0;
  v->bc = malloc(2 * v->n * sizeof *v->bc);
  if (!v->bc) return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory for %d blocks", v->n);
  v->bd = v->bc + v->n;
  uint32_t total = 0;
  for (int k = 0; k < v->n; ++k) {
    v->bc[k] = v->counts[k] * size;
    v->bd[k] = (int)total;
    total += (uint32_t)v->bc[k];
  }
  if (!(v->packed = malloc(total ? total : 4))) {
    free(v->bc);
    return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory to pack %u bytes", (unsigned)total);
  }
  if (fill)
    for (int k = 0; k < v->n; ++k)
      type_pack(v->buf + v->displs[k] * extent, v->counts[k], v->t, v->packed + v->bd[k]);
  return MPI_SUCCESS;
}

static void vside_close(vside *v, int unpack) {
  if (!v->bc) return;
  const MPI_Aint extent = extent_of(v->t);
  if (unpack)
    for (int k = 0; k < v->n; ++k)
      type_unpack(v->packed + v->bd[k], (uint32_t)v->bc[k], v->buf + v->displs[k] * extent,
                  v->counts[k], v->t);
  free(v->bc);
  free(v->packed);
  v->bc = 0;
}

static int not_root_in_place(MPI_Comm comm, const char *fn, int rank, int root) {
  return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE at rank %d, not the root %d", rank, root);
}

/* This rank's own block of a gather in place: where it already lies in the receive
 * buffer. */
static vside own_block(void *recvbuf, const int *counts, const int *displs, MPI_Datatype t,
                       int rank) {
  return vsingle((char *)recvbuf + displs[rank] * extent_of(t), counts[rank], t);
}

int packed_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, int all) {
  const char *fn = all ? "MPI_Allgatherv" : "MPI_Gatherv";
  int err = MPI_SUCCESS, rank, size;
  if ((err = MPI_Comm_rank(comm, &rank)) || (err = MPI_Comm_size(comm, &size))) return err;
  const int here = all || rank == root;
  if (sendbuf == MPI_IN_PLACE && !here) return not_root_in_place(comm, fn, rank, root);
  vside s = sendbuf == MPI_IN_PLACE ? own_block(recvbuf, recvcounts, displs, recvtype, rank)
                                    : vsingle(sendbuf, sendcount, sendtype);
  vside r = vblocks(recvbuf, size, recvcounts, displs, recvtype);
  if ((err = vside_open(comm, fn, &s, 0, 1))) return err;
  if (here && (err = vside_open(comm, fn, &r, 1, 0))) {
    vside_close(&s, 0);
    return err;
  }
  err = all ? MPI_Allgatherv(s.packed, s.bc[0], MPI_BYTE, r.packed, r.bc, r.bd, MPI_BYTE, comm)
            : MPI_Gatherv(s.packed, s.bc[0], MPI_BYTE, r.packed, r.bc, r.bd, MPI_BYTE, root, comm);
  vside_close(&s, 0);
  vside_close(&r, !err);
  return err;
}

int packed_scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) {
  const char *fn = "MPI_Scatterv";
  int err = MPI_SUCCESS, rank, size;
  if ((err = MPI_Comm_rank(comm, &rank)) || (err = MPI_Comm_size(comm, &size))) return err;
  if (recvbuf == MPI_IN_PLACE && rank != root) return not_root_in_place(comm, fn, rank, root);
  vside s = vblocks(sendbuf, size, sendcounts, displs, sendtype);
  vside r = vsingle(recvbuf, recvcount, recvtype);
  if (rank == root && (err = vside_open(comm, fn, &s, 0, 1))) return err;
  if (recvbuf != MPI_IN_PLACE && (err = vside_open(comm, fn, &r, 1, 0))) {
    vside_close(&s, 0);
    return err;
  }
  err = MPI_Scatterv(s.packed, s.bc, s.bd, MPI_BYTE, r.bc ? (void *)r.packed : MPI_IN_PLACE,
                     r.bc ? r.bc[0] : 0, MPI_BYTE, root, comm);
  vside_close(&s, 0);
  vside_close(&r, !err);
  return err;
}

int packed_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                     MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                     const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  const char *fn = "MPI_Alltoallv";
  int err = MPI_SUCCESS, size;
  if ((err = MPI_Comm_size(comm, &size))) return err;
  vside s = vblocks(sendbuf, size, sendcounts, sdispls, sendtype);
  vside r = vblocks(recvbuf, size, recvcounts, rdispls, recvtype);
  if ((err = vside_open(comm, fn, &s, 0, 1))) return err;
  if ((err = vside_open(comm, fn, &r, 1, 0))) {
    vside_close(&s, 0);
    return err;
  }
  err = MPI_Alltoallv(s.packed, s.bc, s.bd, MPI_BYTE, r.packed, r.bc, r.bd, MPI_BYTE, comm);
  vside_close(&s, 0);
  vside_close(&r, !err);
  return err;
}
