/* Collective operations over point-to-point messages on the communicator's collective
 * context (so they never meet the user's receives, MPI_ANY_TAG included). Every member
 * makes the same calls in the same order, and messages between two ranks with the same
 * tag keep their order, so one tag per operation suffices.
 *
 * Algorithms: binomial trees for Bcast and Reduce (any root; a non-commutative user
 * operation is reduced in rank order at the root), Reduce + Bcast for Allreduce, linear
 * Gather/Scatter (the root posts all its receives or sends at once), Gather + Bcast for
 * Allgather, all pairs at once for Alltoall, a chain for Scan. Barrier on all PEs is the
 * runtime's butterfly (emx_barrier); on fewer, a dissemination barrier. */
#include <stdlib.h>
#include <string.h>

#include "coll_packed.h"
#include "datatypes.h"
#include "mpi_internal.h"

enum { T_BARRIER = 1, T_BCAST, T_REDUCE, T_GATHER, T_SCATTER, T_ALLTOALL, T_SCAN };

static mpi_request *csend(const mpi_comm *c, const void *buf, uint32_t bytes, int rank, int tag) {
  return post_send(c, c->ctx + 1, buf, bytes, rank, tag, mpi_protocol);
}
static mpi_request *crecv(const mpi_comm *c, void *buf, uint32_t bytes, int rank, int tag) {
  return post_recv(c, c->ctx + 1, buf, bytes, rank, tag);
}
static void cwait(mpi_request *r) { (void)wait_request(r, 0); }
static void cwait_all(mpi_request **r, int n) {
  for (int k = 0; k < n; ++k)
    if (r[k]) cwait(r[k]);
}

/* ---- Argument checks --------------------------------------------------------------------- */

/* MPI-1 has no collective operations on intercommunicators (intercomm.c); MPI-2's are
 * not provided, nor topologies on them (MPI defines none). */
int check_intra(MPI_Comm comm, const char *fn, mpi_comm **c) {
  int err = check_comm(comm, fn, c);
  if (!err && (*c)->inter)
    err = mpi_error(comm, MPI_ERR_COMM, fn,
                    "communicator %d is an intercommunicator (collectives on one are MPI-2 and "
                    "not provided: merge it with MPI_Intercomm_merge)", comm);
  return err;
}

static int check_root(MPI_Comm comm, const mpi_comm *c, const char *fn, int root) {
  if (root < 0 || root >= c->size)
    return mpi_error(comm, MPI_ERR_ROOT, fn, "invalid root %d (communicator of %d ranks)", root,
                     c->size);
  return MPI_SUCCESS;
}

static int check_op(MPI_Comm comm, const char *fn, MPI_Op op) {
  return op_valid(op) ? MPI_SUCCESS : mpi_error(comm, MPI_ERR_OP, fn, "invalid operation %d", op);
}

/* A buffer argument that may be MPI_IN_PLACE (then no check). */
static int check_data(MPI_Comm comm, const char *fn, const void *buf, int count,
                      MPI_Datatype type, int writable, uint32_t *bytes) {
  if (buf == MPI_IN_PLACE) {
    *bytes = 0;
    const int size = type_size(type);
    if (size >= 0 && count >= 0) *bytes = (uint32_t)(count * size);
    return MPI_SUCCESS;
  }
  return check_buffer(comm, fn, buf, count, type, writable, bytes);
}

static void *scratch(MPI_Comm comm, const char *fn, uint32_t bytes) {
  void *p = malloc(bytes ? bytes : 4);
  if (!p)
    mpi_error(comm, MPI_ERR_NO_MEM, fn,
              "no memory for %u bytes of scratch (a PE has %u bytes: pe.memory_bytes)",
              (unsigned)bytes, (unsigned)emx_mem_bytes());
  return p;
}

/* ---- Barrier ---------------------------------------------------------------------------- */

/* The butterfly's state is one per rank, not per communicator: under MPI_THREAD_MULTIPLE,
 * computations of a rank may be in barriers of different communicators at once (each
 * communicator's collectives one at a time, as MPI requires), so there only
 * MPI_COMM_WORLD's barrier takes it and the others disseminate by messages. */
static int butterfly_for(MPI_Comm comm, const mpi_comm *c) {
  int level;
  MPI_Query_thread(&level);
  return c->size == (int)emx_pe_count() &&
         (comm == MPI_COMM_WORLD || level < MPI_THREAD_MULTIPLE);
}

static void barrier(MPI_Comm comm, const mpi_comm *c) {
  if (butterfly_for(comm, c)) {
    /* The butterfly need not block (its messages may be there already), and protocol
     * messages wait in the input buffer until this computation ends its thread: let
     * them run first, so that receives posted before the barrier are filed at their
     * senders when it returns. */
    emx_yield();
    emx_barrier();
    return;
  }
  const int n = c->size;
  for (int k = 1; k < n; k <<= 1) {
    mpi_request *r = crecv(c, 0, 0, (c->rank - k + n) % n, T_BARRIER);
    cwait(csend(c, 0, 0, (c->rank + k) % n, T_BARRIER));
    cwait(r);
  }
}

int MPI_Barrier(MPI_Comm comm) {
  mpi_comm *c;
  const int err = check_intra(comm, "MPI_Barrier", &c);
  if (err) return err;
  proto_drain_all(); /* this rank's requests are in place at their peers (creation.c) */
  barrier(comm, c);
  return MPI_SUCCESS;
}

/* ---- Broadcast ------------------------------------------------------------------------ */

/* Binomial tree over ranks relative to the root: receive from the parent (the rank
 * without the lowest set bit), then send to the children, largest subtree first. */
static void bcast(const mpi_comm *c, void *buf, uint32_t bytes, int root) {
  const int n = c->size, vr = (c->rank - root + n) % n;
  int mask = 1;
  for (; mask < n; mask <<= 1)
    if (vr & mask) {
      cwait(crecv(c, buf, bytes, (vr - mask + root) % n, T_BCAST));
      break;
    }
  mpi_request *children[16];
  int k = 0;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < n) children[k++] = csend(c, buf, bytes, (vr + mask + root) % n, T_BCAST);
  cwait_all(children, k);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (type_noncontiguous(type)) return packed_bcast(buf, count, type, root, comm);
  mpi_comm *c;
  uint32_t bytes;
  int err = check_intra(comm, "MPI_Bcast", &c);
  if (!err) err = check_root(comm, c, "MPI_Bcast", root);
  if (!err) err = check_buffer(comm, "MPI_Bcast", buf, count, type, 1, &bytes);
  if (err) return err;
  bcast(c, buf, bytes, root);
  return MPI_SUCCESS;
}

/* ---- Reductions ------------------------------------------------------------------------ */

/* Reductions go in pieces of at most REDUCE_PIECE bytes (whole elements): the scratch
 * they take is a few pieces, whatever the message's size (a 1.5 MB reduction in 4 MiB of
 * memory: the user's buffers take 3 MB already). */
enum { REDUCE_PIECE = 32 * 1024 };
static int piece_elements(int count, MPI_Datatype type, int ranks) {
  const int size = type_size(type) * ranks;
  const int n = size > 0 && size < REDUCE_PIECE ? REDUCE_PIECE / size : 1;
  return n < count ? n : count;
}

/* One piece: the reduction of everybody's `in` (count elements) into `out` at root,
 * with scratch `a` and `b` of `bytes` each (non-commutative: `a` of n * bytes). */
static int reduce_piece(const mpi_comm *c, const void *in, void *out, int count,
                        MPI_Datatype type, MPI_Op op, int root, char *a, char *b,
                        mpi_request **r) {
  const int n = c->size;
  const uint32_t bytes = (uint32_t)(count * type_size(type));
  int err = MPI_SUCCESS;
  if (!op_commutative(op)) {
    /* Rank order matters: everything to the root, combined there from the right. */
    if (c->rank != root) {
      cwait(csend(c, in, bytes, root, T_REDUCE));
      return MPI_SUCCESS;
    }
    for (int k = 0; k < n; ++k)
      r[k] = k == root ? (memcpy(a + k * bytes, in, bytes), (mpi_request *)0)
                       : crecv(c, a + k * bytes, bytes, k, T_REDUCE);
    cwait_all(r, n);
    memcpy(out, a + (n - 1) * bytes, bytes);
    for (int k = n - 2; k >= 0 && !err; --k) err = op_apply(op, a + k * bytes, out, count, type);
    return err;
  }
  memcpy(a, in, bytes);
  const int vr = (c->rank - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      cwait(csend(c, a, bytes, ((vr & ~mask) + root) % n, T_REDUCE));
      break;
    }
    if ((vr | mask) < n) {
      cwait(crecv(c, b, bytes, ((vr | mask) + root) % n, T_REDUCE));
      if (!err) err = op_apply(op, b, a, count, type);
    }
  }
  if (c->rank == root) memcpy(out, a, bytes);
  return err;
}

/* The reduction of everybody's `in` (count elements, packed form) into `out` at root. */
static int reduce(const mpi_comm *c, MPI_Comm comm, const char *fn, const void *in, void *out,
                  int count, MPI_Datatype type, MPI_Op op, int root) {
  /* A non-commutative operation gathers the pieces of all ranks at the root: pieces of
   * 1/n, on every rank (they must agree). */
  const int ordered = !op_commutative(op), gather_all = ordered && c->rank == root;
  const int per = piece_elements(count, type, ordered ? c->size : 1), size = type_size(type);
  const uint32_t piece = (uint32_t)(per * size);
  char *a = scratch(comm, fn, gather_all ? piece * c->size : piece);
  char *b = gather_all ? 0 : scratch(comm, fn, piece);
  mpi_request **r = gather_all ? scratch(comm, fn, c->size * sizeof *r) : 0;
  int err = !a || (!gather_all && !b) || (gather_all && !r) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
  /* (An error combining one piece does not stop the others: the ranks wait for them.) */
  for (int done = 0, e; err != MPI_ERR_NO_MEM && done < count; done += per) {
    const int k = count - done < per ? count - done : per;
    const uint32_t at = (uint32_t)done * (uint32_t)size;
    e = reduce_piece(c, (const char *)in + at, c->rank == root ? (char *)out + at : 0, k, type,
                     op, root, a, b, r);
    if (!err) err = e;
  }
  free(a);
  free(b);
  free(r);
  return err;
}

static int check_reduce(const char *fn, const void *sendbuf, const void *recvbuf, int count,
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, mpi_comm **c,
                        int recv_here) {
  uint32_t bytes;
  int err = check_intra(comm, fn, c);
  if (!err) err = check_op(comm, fn, op);
  /* The pairing of operation and datatype, before any message moves (an error found
   * only where values are combined would leave the other ranks waiting). */
  if (!err && op < 32 && op_apply(op, 0, 0, 0, type) != MPI_SUCCESS)
    err = type_size(type) < 0 ? mpi_error(comm, MPI_ERR_TYPE, fn, "invalid datatype %d", type)
                              : mpi_error(comm, MPI_ERR_OP, fn,
                                          "operation %d is not defined on datatype %d", op, type);
  if (!err) err = check_data(comm, fn, sendbuf, count, type, 0, &bytes);
  if (!err && recv_here) err = check_buffer(comm, fn, recvbuf, count, type, 1, &bytes);
  return err;
}

static int op_error(MPI_Comm comm, const char *fn, int err, MPI_Op op, MPI_Datatype type) {
  if (!err) return MPI_SUCCESS;
  if (err == MPI_ERR_NO_MEM)
    return mpi_error(comm, err, fn, "no memory to combine datatype %d (unpacked)", type);
  return mpi_error(comm, err, fn, "operation %d is not defined on datatype %d", op, type);
}

/* The reductions combine packed data (op_apply's form): a non-contiguous type's operands
 * are packed first and the result unpacked (reduce_operands, coll_packed.c). */
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  const char *fn = "MPI_Reduce";
  mpi_comm *c;
  int err = check_intra(comm, fn, &c);
  if (!err) err = check_root(comm, c, fn, root);
  if (!err) err = check_reduce(fn, sendbuf, recvbuf, count, type, op, comm, &c, c->rank == root);
  reduce_operands o;
  if (!err) err = reduce_operands_open(comm, fn, sendbuf, recvbuf, count, type, c->rank == root, &o);
  if (err) return err;
  err = reduce(c, comm, fn, o.in, o.out, count, type, op, root);
  reduce_operands_close(&o, recvbuf, count, type, !err && c->rank == root);
  return op_error(comm, fn, err, op, type);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const char *fn = "MPI_Allreduce";
  mpi_comm *c;
  reduce_operands o;
  int err = check_reduce(fn, sendbuf, recvbuf, count, type, op, comm, &c, 1);
  if (!err) err = reduce_operands_open(comm, fn, sendbuf, recvbuf, count, type, 1, &o);
  if (err) return err;
  err = reduce(c, comm, fn, o.in, o.out, count, type, op, 0);
  bcast(c, o.out, (uint32_t)(count * type_size(type)), 0);
  reduce_operands_close(&o, recvbuf, count, type, !err);
  return op_error(comm, fn, err, op, type);
}

/* Inclusive (Scan) or exclusive (Exscan) prefix reduction, along the chain of ranks:
 * rank r gets the prefix of ranks below from r - 1 and passes its own on to r + 1. */
static int scan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype type, MPI_Op op, MPI_Comm comm, int inclusive) {
  mpi_comm *c;
  reduce_operands o;
  int err = check_reduce(fn, sendbuf, recvbuf, count, type, op, comm, &c, 1);
  if (!err) err = reduce_operands_open(comm, fn, sendbuf, recvbuf, count, type, 1, &o);
  if (err) return err;
  /* In pieces, as the reductions. */
  const int per = piece_elements(count, type, 1), size = type_size(type);
  const uint32_t piece = (uint32_t)(per * size);
  char *mine = scratch(comm, fn, piece), *below = scratch(comm, fn, piece);
  if (!mine || !below) {
    free(mine), free(below);
    reduce_operands_close(&o, recvbuf, count, type, 0);
    return MPI_ERR_NO_MEM;
  }
  for (int done = 0; done < count; done += per) {
    const int k = count - done < per ? count - done : per;
    const uint32_t at = (uint32_t)done * (uint32_t)size, bytes = (uint32_t)(k * size);
    memcpy(mine, (const char *)o.in + at, bytes);
    if (c->rank > 0) {
      cwait(crecv(c, below, bytes, c->rank - 1, T_SCAN));
      if (!inclusive) memcpy((char *)o.out + at, below, bytes);
      if (!err) err = op_apply(op, below, mine, k, type); /* mine = below op mine */
    }
    if (c->rank + 1 < c->size) cwait(csend(c, mine, bytes, c->rank + 1, T_SCAN));
    if (inclusive) memcpy((char *)o.out + at, mine, bytes);
  }
  free(mine);
  free(below);
  /* Exscan leaves rank 0's receive buffer alone. */
  reduce_operands_close(&o, recvbuf, count, type, !err && (inclusive || c->rank > 0));
  return op_error(comm, fn, err, op, type);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  return scan("MPI_Scan", sendbuf, recvbuf, count, type, op, comm, 1);
}
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  return scan("MPI_Exscan", sendbuf, recvbuf, count, type, op, comm, 0);
}

/* ---- Gather, scatter ------------------------------------------------------------------- */

/* Block k of a v-collective: counts[k] elements of `size` bytes at displs[k] (or, for
 * the regular forms, `count` elements at k * count). */
typedef struct {
  const int *counts, *displs;
  int count, size;
} layout;
static uint32_t block_bytes(const layout *l, int k) {
  return (uint32_t)((l->counts ? l->counts[k] : l->count) * l->size);
}
static uint32_t block_offset(const layout *l, int k) {
  return (uint32_t)((l->counts ? l->displs[k] : k * l->count) * l->size);
}

/* Root receives block k from rank k; `mine` (NULL: in place) is the root's own. */
static int gather(const mpi_comm *c, MPI_Comm comm, const char *fn, const void *mine,
                  uint32_t mine_bytes, char *recvbuf, const layout *l, int root) {
  if (c->rank != root) {
    cwait(csend(c, mine, mine_bytes, root, T_GATHER));
    return MPI_SUCCESS;
  }
  mpi_request **r = scratch(comm, fn, c->size * sizeof *r);
  if (!r) return MPI_ERR_NO_MEM;
  for (int k = 0; k < c->size; ++k)
    r[k] = k == root ? 0 : crecv(c, recvbuf + block_offset(l, k), block_bytes(l, k), k, T_GATHER);
  if (mine) memcpy(recvbuf + block_offset(l, root), mine, mine_bytes);
  cwait_all(r, c->size);
  free(r);
  return MPI_SUCCESS;
}

/* Root sends block k to rank k; `mine` (NULL: in place) receives the root's own. */
static int scatter(const mpi_comm *c, MPI_Comm comm, const char *fn, const char *sendbuf,
                   const layout *l, void *mine, uint32_t mine_bytes, int root) {
  if (c->rank != root) {
    cwait(crecv(c, mine, mine_bytes, root, T_SCATTER));
    return MPI_SUCCESS;
  }
  mpi_request **r = scratch(comm, fn, c->size * sizeof *r);
  if (!r) return MPI_ERR_NO_MEM;
  for (int k = 0; k < c->size; ++k)
    r[k] = k == root ? 0 : csend(c, sendbuf + block_offset(l, k), block_bytes(l, k), k, T_SCATTER);
  if (mine) memcpy(mine, sendbuf + block_offset(l, root), mine_bytes);
  cwait_all(r, c->size);
  free(r);
  return MPI_SUCCESS;
}

/* Checks common to the rooted collectives: communicator, root, and MPI_IN_PLACE only at
 * the root (`local` is the buffer that may be in place). */
static int check_rooted(const char *fn, MPI_Comm comm, int root, const void *local,
                        mpi_comm **c) {
  int err = check_intra(comm, fn, c);
  if (!err) err = check_root(comm, *c, fn, root);
  if (!err && local == MPI_IN_PLACE && (*c)->rank != root)
    err = mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE at rank %d, not the root %d",
                    (*c)->rank, root);
  return err;
}

/* The v-arrays at the root: non-negative counts, blocks inside memory. */
static int check_blocks(MPI_Comm comm, const char *fn, const mpi_comm *c, const void *buf,
                        const int *counts, const int *displs, MPI_Datatype type, int writable) {
  for (int k = 0; k < c->size; ++k) {
    uint32_t b;
    const int size = type_size(type);
    const int err =
        check_buffer(comm, fn, (const char *)buf + (size > 0 ? displs[k] * size : 0), counts[k],
                     type, writable, &b);
    if (err) return err;
  }
  return MPI_SUCCESS;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_regular(PACKED_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          root, comm);
  const char *fn = "MPI_Gather";
  mpi_comm *c;
  uint32_t sbytes, rbytes = 0;
  int err = check_rooted(fn, comm, root, sendbuf, &c);
  if (!err) err = check_data(comm, fn, sendbuf, sendcount, sendtype, 0, &sbytes);
  if (!err && c->rank == root)
    err = check_buffer(comm, fn, recvbuf, recvcount * c->size, recvtype, 1, &rbytes);
  if (err) return err;
  const layout l = {0, 0, recvcount, type_size(recvtype)};
  const int in_place = sendbuf == MPI_IN_PLACE;
  return gather(c, comm, fn, in_place ? 0 : sendbuf, sbytes, recvbuf, &l, root);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          root, comm, 0);
  const char *fn = "MPI_Gatherv";
  mpi_comm *c;
  uint32_t sbytes;
  int err = check_rooted(fn, comm, root, sendbuf, &c);
  if (!err) err = check_data(comm, fn, sendbuf, sendcount, sendtype, 0, &sbytes);
  if (!err && c->rank == root)
    err = check_blocks(comm, fn, c, recvbuf, recvcounts, displs, recvtype, 1);
  if (err) return err;
  const layout l = {recvcounts, displs, 0, type_size(recvtype)};
  return gather(c, comm, fn, sendbuf == MPI_IN_PLACE ? 0 : sendbuf, sbytes, recvbuf, &l, root);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_regular(PACKED_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          root, comm);
  const char *fn = "MPI_Scatter";
  mpi_comm *c;
  uint32_t sbytes, rbytes;
  int err = check_rooted(fn, comm, root, recvbuf, &c);
  if (!err) err = check_data(comm, fn, recvbuf, recvcount, recvtype, 1, &rbytes);
  if (!err && c->rank == root)
    err = check_buffer(comm, fn, sendbuf, sendcount * c->size, sendtype, 0, &sbytes);
  if (err) return err;
  const layout l = {0, 0, sendcount, type_size(sendtype)};
  return scatter(c, comm, fn, sendbuf, &l, recvbuf == MPI_IN_PLACE ? 0 : recvbuf, rbytes, root);
}

int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
  const char *fn = "MPI_Scatterv";
  mpi_comm *c;
  uint32_t rbytes;
  int err = check_rooted(fn, comm, root, recvbuf, &c);
  if (!err) err = check_data(comm, fn, recvbuf, recvcount, recvtype, 1, &rbytes);
  if (!err && c->rank == root)
    err = check_blocks(comm, fn, c, sendbuf, sendcounts, displs, sendtype, 0);
  if (err) return err;
  const layout l = {sendcounts, displs, 0, type_size(sendtype)};
  return scatter(c, comm, fn, sendbuf, &l, recvbuf == MPI_IN_PLACE ? 0 : recvbuf, rbytes, root);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_regular(PACKED_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          0, comm);
  const char *fn = "MPI_Allgather";
  mpi_comm *c;
  uint32_t sbytes, rbytes;
  int err = check_intra(comm, fn, &c);
  if (!err) err = check_data(comm, fn, sendbuf, sendcount, sendtype, 0, &sbytes);
  if (!err) err = check_buffer(comm, fn, recvbuf, recvcount * c->size, recvtype, 1, &rbytes);
  if (err) return err;
  const layout l = {0, 0, recvcount, type_size(recvtype)};
  const void *mine = sendbuf;
  if (sendbuf == MPI_IN_PLACE) {
    mine = (char *)recvbuf + block_offset(&l, c->rank);
    sbytes = block_bytes(&l, c->rank);
  }
  /* In place at rank 0 (the gathering root): its block is where it belongs. */
  err = gather(c, comm, fn, sendbuf == MPI_IN_PLACE && c->rank == 0 ? 0 : mine, sbytes,
               recvbuf, &l, 0);
  if (!err) bcast(c, recvbuf, rbytes, 0);
  return err;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          0, comm, 1);
  const char *fn = "MPI_Allgatherv";
  mpi_comm *c;
  uint32_t sbytes;
  int err = check_intra(comm, fn, &c);
  if (!err) err = check_data(comm, fn, sendbuf, sendcount, sendtype, 0, &sbytes);
  if (!err) err = check_blocks(comm, fn, c, recvbuf, recvcounts, displs, recvtype, 1);
  if (err) return err;
  /* Gather into a packed buffer at rank 0, broadcast it, unpack at the displacements (the
   * gaps between blocks are left alone). */
  const layout l = {recvcounts, displs, 0, type_size(recvtype)};
  int *packed_displs = scratch(comm, fn, c->size * sizeof *packed_displs);
  if (!packed_displs) return MPI_ERR_NO_MEM;
  int total = 0;
  for (int k = 0; k < c->size; ++k) packed_displs[k] = total, total += recvcounts[k];
  const layout p = {recvcounts, packed_displs, 0, l.size};
  char *packed = scratch(comm, fn, (uint32_t)(total * l.size));
  if (!packed) return MPI_ERR_NO_MEM;
  const void *mine = sendbuf;
  if (sendbuf == MPI_IN_PLACE) {
    mine = (char *)recvbuf + block_offset(&l, c->rank);
    sbytes = block_bytes(&l, c->rank);
  }
  err = gather(c, comm, fn, mine, sbytes, packed, &p, 0);
  if (!err) bcast(c, packed, (uint32_t)(total * l.size), 0);
  for (int k = 0; k < c->size && !err; ++k)
    memmove((char *)recvbuf + block_offset(&l, k), packed + block_offset(&p, k), block_bytes(&l, k));
  free(packed);
  free(packed_displs);
  return err;
}

/* ---- All to all ------------------------------------------------------------------------ */

/* Every receive first, then the sends, starting with the next rank so that not everybody
 * sends to rank 0 first. */
static int alltoall(const mpi_comm *c, MPI_Comm comm, const char *fn, const char *sendbuf,
                    const layout *s, char *recvbuf, const layout *r) {
  const int n = c->size, me = c->rank;
  mpi_request **req = scratch(comm, fn, 2 * n * sizeof *req);
  if (!req) return MPI_ERR_NO_MEM;
  for (int k = 0; k < n; ++k)
    req[k] = k == me ? 0 : crecv(c, recvbuf + block_offset(r, k), block_bytes(r, k), k, T_ALLTOALL);
  for (int j = 1; j < n; ++j) {
    const int k = (me + j) % n;
    req[n + k] = csend(c, sendbuf + block_offset(s, k), block_bytes(s, k), k, T_ALLTOALL);
  }
  req[n + me] = 0;
  const uint32_t own = block_bytes(s, me) < block_bytes(r, me) ? block_bytes(s, me) : block_bytes(r, me);
  memmove(recvbuf + block_offset(r, me), sendbuf + block_offset(s, me), own);
  cwait_all(req, 2 * n);
  free(req);
  return MPI_SUCCESS;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_regular(PACKED_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          0, comm);
  const char *fn = "MPI_Alltoall";
  mpi_comm *c;
  uint32_t b;
  int err = check_intra(comm, fn, &c);
  if (!err) err = check_buffer(comm, fn, sendbuf, sendcount * c->size, sendtype, 0, &b);
  if (!err) err = check_buffer(comm, fn, recvbuf, recvcount * c->size, recvtype, 1, &b);
  if (err) return err;
  const layout s = {0, 0, sendcount, type_size(sendtype)};
  const layout r = {0, 0, recvcount, type_size(recvtype)};
  return alltoall(c, comm, fn, sendbuf, &s, recvbuf, &r);
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                  const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  if (type_noncontiguous(sendtype) || type_noncontiguous(recvtype))
    return packed_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
  const char *fn = "MPI_Alltoallv";
  mpi_comm *c;
  int err = check_intra(comm, fn, &c);
  if (!err) err = check_blocks(comm, fn, c, sendbuf, sendcounts, sdispls, sendtype, 0);
  if (!err) err = check_blocks(comm, fn, c, recvbuf, recvcounts, rdispls, recvtype, 1);
  if (err) return err;
  const layout s = {sendcounts, sdispls, 0, type_size(sendtype)};
  const layout r = {recvcounts, rdispls, 0, type_size(recvtype)};
  return alltoall(c, comm, fn, sendbuf, &s, recvbuf, &r);
}

/* ---- Reduce_scatter ------------------------------------------------------------------ */

/* The reduction of the whole vector at rank 0, then its blocks scattered (a
 * non-contiguous type: the vector laid out as the type says, both steps packing it). */
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const char *fn = "MPI_Reduce_scatter";
  mpi_comm *c;
  int err = check_intra(comm, fn, &c);
  if (err) return err;
  const int size = type_size(type);
  if (size < 0) return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid datatype %d", type);
  int total = 0;
  for (int r = 0; r < c->size; ++r) {
    if (recvcounts[r] < 0)
      return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d for rank %d", recvcounts[r], r);
    total += recvcounts[r];
  }
  int64_t lo, hi;
  type_span(type, total, &lo, &hi);
  int *displs = malloc(c->size * sizeof *displs);
  char *space = scratch(comm, fn, (uint32_t)(hi - lo)), *all = space - lo;
  if (!displs || !space) {
    free(displs), free(space);
    return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory");
  }
  for (int r = 0, at = 0; r < c->size; at += recvcounts[r++]) displs[r] = at;
  const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  err = MPI_Reduce(in, all, total, type, op, 0, comm); /* in place: the vector is in recvbuf */
  if (!err)
    err = MPI_Scatterv(all, recvcounts, displs, type, recvbuf, recvcounts[c->rank], type, 0, comm);
  free(displs), free(space);
  return err;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  mpi_comm *c;
  int err = check_intra(comm, "MPI_Reduce_scatter_block", &c);
  if (err) return err;
  int *counts = malloc(c->size * sizeof *counts);
  if (!counts) return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Reduce_scatter_block", "no memory");
  for (int r = 0; r < c->size; ++r) counts[r] = recvcount;
  err = MPI_Reduce_scatter(sendbuf, recvbuf, counts, type, op, comm);
  free(counts);
  return err;
}
