/* Collectives on non-contiguous datatypes: the data packed (pack.c) into a contiguous
 * buffer, the collective run on that (bytes, or the one basic type of a reduction's
 * type), the result unpacked. The regular forms (Bcast, Gather, Scatter, Allgather,
 * Alltoall) and the reductions with predefined operations; the v-forms and user
 * operations on non-contiguous types are refused (MPI_ERR_TYPE, docs/mpi.md). */
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

int packed_refuse(MPI_Comm comm, const char *fn, MPI_Datatype t) {
  return mpi_error(comm, MPI_ERR_TYPE, fn,
                   "non-contiguous datatype %d: not provided in this collective (pack it)", t);
}

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

/* A reduction on a non-contiguous type of one basic type, by a predefined operation:
 * run as that basic type on the packed data. */
int packed_reduce(enum packed_kind kind, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  static const char *const names[] = {[PACKED_REDUCE] = "MPI_Reduce",
                                      [PACKED_ALLREDUCE] = "MPI_Allreduce",
                                      [PACKED_SCAN] = "MPI_Scan", [PACKED_EXSCAN] = "MPI_Exscan"};
  const char *fn = names[kind];
  const dtype *d = type_get(t);
  if (!d->base || op > MPI_MINLOC) return packed_refuse(comm, fn, t);
  int err = MPI_SUCCESS, rank;
  if ((err = MPI_Comm_rank(comm, &rank))) return err;
  const int here = kind != PACKED_REDUCE || rank == root;
  char *s = packed_copy(comm, fn, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, t, 1, &err);
  char *r = s && here ? packed_copy(comm, fn, recvbuf, count, t, 0, &err) : 0;
  const int n = count * d->elements;
  if (!err) switch (kind) {
      case PACKED_REDUCE: err = MPI_Reduce(s, r, n, d->base, op, root, comm); break;
      case PACKED_ALLREDUCE: err = MPI_Allreduce(s, r, n, d->base, op, comm); break;
      case PACKED_SCAN: err = MPI_Scan(s, r, n, d->base, op, comm); break;
      default: err = MPI_Exscan(s, r, n, d->base, op, comm); break;
    }
  if (!err && r && !(kind == PACKED_EXSCAN && rank == 0))
    type_unpack(r, (uint32_t)bytes_of(count, t), recvbuf, count, t);
  free(s);
  free(r);
  return err;
}
