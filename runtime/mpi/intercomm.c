/* Intercommunicators (MPI-1): two disjoint groups, point to point from a member of one to
 * a member of the other, ranks naming the remote group's members; MPI-2's Comm_split and
 * Comm_create of one (inter_split); no collectives on them (refused, collectives.c).
 *
 * One is an mpi_comm whose size, ranks and map (comm_pe, req_source) are the remote
 * group's: point-to-point calls, their checks, the matching and the statuses work on it
 * unchanged. Its rank is this PE's in the local group; `inter` holds the local group
 * (a duplicate of its communicator, for Comm_group, Comm_size and the agreements below).
 * Both groups use one context id, agreed over both: the largest next id of the members of
 * each group (an all-reduce in each), exchanged by the two leaders, broadcast in each
 * group. The leaders talk over the peer communicator (Intercomm_create, with the user's
 * tag, as MPI says) or over the intercommunicator's collective context, which nothing
 * else uses (merge, dup). */
#include <stdlib.h>

#include "mpi_internal.h"

typedef struct intercomm {
  MPI_Comm local; /* the local group's communicator (a private duplicate) */
  int local_size;
} intercomm;

int inter_local_size(const mpi_comm *c) { return c->inter->local_size; }
MPI_Comm inter_local(const mpi_comm *c) { return c->inter->local; }

void inter_free(intercomm *ic) {
  if (!ic) return;
  MPI_Comm_free(&ic->local);
  free(ic);
}

static int check_inter(MPI_Comm comm, const char *fn, mpi_comm **c) {
  int err = check_comm(comm, fn, c);
  if (!err && !(*c)->inter)
    err = mpi_error(comm, MPI_ERR_COMM, fn, "communicator %d is not an intercommunicator", comm);
  return err;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_test_inter", &c);
  if (!err) *flag = c->inter != 0;
  return err;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size) {
  mpi_comm *c;
  const int err = check_inter(comm, "MPI_Comm_remote_size", &c);
  if (!err) *size = c->size;
  return err;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
  mpi_comm *c;
  int err = check_inter(comm, "MPI_Comm_remote_group", &c);
  if (err) return err;
  uint16_t *pes = malloc((c->size ? c->size : 1) * sizeof *pes);
  if (!pes) return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Comm_remote_group", "no memory");
  comm_pes(c, pes);
  err = group_of_pes("MPI_Comm_remote_group", pes, c->size, group);
  free(pes);
  return err;
}

/* What the leaders exchange: the group's largest next context id, its `high` (merge),
 * its size, its leader's PE; then its PEs in rank order. */
enum { H_CTX, H_HIGH, H_SIZE, H_LEADER, H_WORDS };

/* The leaders' exchange of the header and the PEs: over peer (rank `remote`, `tag`), or,
 * with peer = MPI_COMM_NULL, over the intercommunicator c's collective context. */
static int leader_exchange(MPI_Comm peer, int remote, int tag, const mpi_comm *c, const int *mine,
                           const int *my_pes, int *theirs, int **their_pes) {
  int err = MPI_SUCCESS;
  if (peer != MPI_COMM_NULL) {
    err = MPI_Sendrecv(mine, H_WORDS, MPI_INT, remote, tag, theirs, H_WORDS, MPI_INT, remote, tag,
                       peer, MPI_STATUS_IGNORE);
  } else {
    mpi_request *r = post_recv(c, c->ctx + 1, theirs, H_WORDS * 4, 0, 0);
    (void)wait_request(post_send(c, c->ctx + 1, mine, H_WORDS * 4, 0, 0, mpi_protocol), 0);
    (void)wait_request(r, 0);
  }
  if (err) return err;
  *their_pes = malloc((theirs[H_SIZE] ? theirs[H_SIZE] : 1) * sizeof **their_pes);
  if (!*their_pes) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "intercommunicator", "no memory");
  if (peer != MPI_COMM_NULL)
    return MPI_Sendrecv(my_pes, mine[H_SIZE], MPI_INT, remote, tag, *their_pes, theirs[H_SIZE],
                        MPI_INT, remote, tag, peer, MPI_STATUS_IGNORE);
  mpi_request *r = post_recv(c, c->ctx + 1, *their_pes, (uint32_t)theirs[H_SIZE] * 4, 0, 1);
  (void)wait_request(post_send(c, c->ctx + 1, my_pes, (uint32_t)mine[H_SIZE] * 4, 0, 1, mpi_protocol), 0);
  (void)wait_request(r, 0);
  return MPI_SUCCESS;
}

/* The agreement of both groups (every member of both calls it): this group's header
 * (context id and size filled in here), the other group's header and PEs into theirs and
 * *their_pes (malloc'ed), and the context id both use, taken here. */
static int agree(MPI_Comm local, int leader, MPI_Comm peer, int remote, int tag,
                 const mpi_comm *c, int high, int *theirs, int **their_pes, uint16_t *ctx) {
  mpi_comm *lc = comm_get(local);
  const int next = comm_inter_begin();
  if (next < 0)
    return mpi_error(local, MPI_ERR_OTHER, "intercommunicator",
                     "another intercommunicator is being created by a computation of this "
                     "rank (MPI_THREAD_MULTIPLE): create them one at a time per rank");
  int mine[H_WORDS] = {next, high, lc->size, 0}, err;
  mine[H_LEADER] = (int)comm_pe(lc, leader);
  int *my_pes = malloc(lc->size * sizeof *my_pes);
  if (!my_pes) {
    comm_inter_end(-1);
    return mpi_error(local, MPI_ERR_NO_MEM, "intercommunicator", "no memory");
  }
  for (int r = 0; r < lc->size; ++r) my_pes[r] = (int)comm_pe(lc, r);
  int top;
  err = MPI_Allreduce(&mine[H_CTX], &top, 1, MPI_INT, MPI_MAX, local);
  mine[H_CTX] = top;
  *their_pes = 0;
  if (!err && lc->rank == leader)
    err = leader_exchange(peer, remote, tag, c, mine, my_pes, theirs, their_pes);
  if (!err) err = MPI_Bcast(theirs, H_WORDS, MPI_INT, leader, local);
  if (!err && lc->rank != leader && !(*their_pes = malloc((theirs[H_SIZE] ? theirs[H_SIZE] : 1) * sizeof **their_pes)))
    err = mpi_error(local, MPI_ERR_NO_MEM, "intercommunicator", "no memory");
  if (!err) err = MPI_Bcast(*their_pes, theirs[H_SIZE], MPI_INT, leader, local);
  free(my_pes);
  if (err) {
    comm_inter_end(-1);
    free(*their_pes);
    return err;
  }
  top = mine[H_CTX] > theirs[H_CTX] ? mine[H_CTX] : theirs[H_CTX];
  *ctx = (uint16_t)(top < COMM_MAPPED_CTX ? COMM_MAPPED_CTX : top);
  comm_inter_end(*ctx);
  return MPI_SUCCESS;
}

/* The intercommunicator to the PEs their_pes (the remote group), over the local group of
 * `local` (kept). */
static int make_inter(MPI_Comm parent, MPI_Comm local, const int *their_pes, int n, uint16_t ctx,
                      MPI_Comm *out) {
  intercomm *ic = malloc(sizeof *ic);
  uint16_t *pes = malloc((n ? n : 1) * sizeof *pes);
  int err = !ic || !pes ? mpi_error(parent, MPI_ERR_NO_MEM, "intercommunicator", "no memory")
                        : MPI_SUCCESS;
  if (!err) {
    for (int r = 0; r < n; ++r) pes[r] = (uint16_t)their_pes[r];
    const mpi_comm *lc = comm_get(local);
    const mpi_comm proto = comm_plain_proto(lc);
    err = comm_make_pes(&proto, parent, pes, n, lc->rank, ctx, out);
  }
  free(pes);
  if (err) {
    free(ic);
    return err;
  }
  *ic = (intercomm){local, comm_get(local)->size};
  mpi_comm_table[*out]->inter = ic;
  return MPI_SUCCESS;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm) {
  const char *fn = "MPI_Intercomm_create";
  mpi_comm *lc, *pc = 0;
  int err = check_comm(local_comm, fn, &lc);
  if (!err && lc->inter)
    err = mpi_error(local_comm, MPI_ERR_COMM, fn, "the local communicator is an intercommunicator");
  if (!err && (local_leader < 0 || local_leader >= lc->size))
    err = mpi_error(local_comm, MPI_ERR_RANK, fn, "invalid local leader %d (communicator of %d ranks)",
                    local_leader, lc->size);
  if (!err && lc->rank == local_leader) {
    err = check_comm(peer_comm, fn, &pc);
    if (!err && (remote_leader < 0 || remote_leader >= pc->size))
      err = mpi_error(peer_comm, MPI_ERR_RANK, fn, "invalid remote leader %d (communicator of %d ranks)",
                      remote_leader, pc->size);
  }
  if (err) return err;
  MPI_Comm local;
  if ((err = MPI_Comm_dup(local_comm, &local))) return err;
  int theirs[H_WORDS], *their_pes;
  uint16_t ctx;
  err = agree(local, local_leader, peer_comm, remote_leader, tag, 0, 0, theirs, &their_pes, &ctx);
  if (!err) {
    for (int r = 0; r < theirs[H_SIZE] && !err; ++r)
      if (comm_rank_of(lc, (unsigned)their_pes[r]) >= 0)
        err = mpi_error(local_comm, MPI_ERR_COMM, fn, "the groups overlap (PE %d is in both)",
                        their_pes[r]);
    if (!err) err = make_inter(local_comm, local, their_pes, theirs[H_SIZE], ctx, newintercomm);
    free(their_pes);
  }
  if (err) MPI_Comm_free(&local);
  return err;
}

int inter_dup(MPI_Comm comm, const mpi_comm *c, MPI_Comm *newcomm) {
  MPI_Comm local;
  int err = MPI_Comm_dup(c->inter->local, &local);
  if (err) return err;
  int theirs[H_WORDS], *their_pes;
  uint16_t ctx;
  err = agree(local, 0, MPI_COMM_NULL, 0, 0, c, 0, theirs, &their_pes, &ctx);
  if (!err) {
    err = make_inter(comm, local, their_pes, theirs[H_SIZE], ctx, newcomm);
    free(their_pes);
  }
  if (err) MPI_Comm_free(&local);
  else err = attrs_copy(comm, c, mpi_comm_table[*newcomm]);
  return err;
}

/* The union of both groups: the group that said high = false first (both the same: the
 * one whose leader is the lower PE). */
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  const char *fn = "MPI_Intercomm_merge";
  mpi_comm *c;
  int err = check_inter(intercomm, fn, &c);
  if (err) return err;
  int theirs[H_WORDS], *their_pes;
  uint16_t ctx;
  const MPI_Comm local = c->inter->local;
  err = agree(local, 0, MPI_COMM_NULL, 0, 0, c, high != 0, theirs, &their_pes, &ctx);
  if (err) return err;
  const mpi_comm *lc = comm_get(local);
  const int n = lc->size, m = theirs[H_SIZE];
  uint16_t *pes = malloc((n + m) * sizeof *pes);
  if (!pes) {
    free(their_pes);
    return mpi_error(intercomm, MPI_ERR_NO_MEM, fn, "no memory");
  }
  const int mine_first = (high != 0) != (theirs[H_HIGH] != 0) ? !high
                                                             : (int)comm_pe(lc, 0) < theirs[H_LEADER];
  for (int r = 0; r < n; ++r) pes[(mine_first ? 0 : m) + r] = (uint16_t)comm_pe(lc, r);
  for (int r = 0; r < m; ++r) pes[(mine_first ? n : 0) + r] = (uint16_t)their_pes[r];
  const mpi_comm proto = comm_plain_proto(lc);
  err = comm_make_pes(&proto, intercomm, pes, n + m, -1, ctx, newintracomm);
  free(pes);
  free(their_pes);
  return err;
}

/* MPI-2's Comm_split of an intercommunicator (Comm_create: color 0 for the members of the
 * group, key their rank in it): an intercommunicator for each color between the members
 * of each group with that color, each local group ordered by key; MPI_COMM_NULL where a
 * group has no member of the color. Built from the calls above: the two groups merged,
 * split by color, each side's part joined to the other's by Intercomm_create. */
int inter_split(MPI_Comm comm, int color, int key, MPI_Comm *out) {
  MPI_Comm merged, both = MPI_COMM_NULL, mine;
  *out = MPI_COMM_NULL;
  int err = MPI_Intercomm_merge(comm, 0, &merged);
  if (err) return err;
  /* This rank's side: 1 if it is in the group that came first in the merge. */
  const mpi_comm *m = comm_get(merged);
  const int side = comm_rank_of(comm_get(inter_local(comm_get(comm))), comm_pe(m, 0)) >= 0;
  err = MPI_Comm_split(merged, color, key, &both);
  MPI_Comm_free(&merged);
  if (err || both == MPI_COMM_NULL) return err;
  int n, r;
  MPI_Comm_size(both, &n);
  MPI_Comm_rank(both, &r);
  int *sides = malloc(n * sizeof *sides);
  if (!sides) {
    MPI_Comm_free(&both);
    return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Comm_split", "no memory");
  }
  err = MPI_Allgather(&side, 1, MPI_INT, sides, 1, MPI_INT, both);
  int remote_leader = -1;
  for (int k = 0; k < n && remote_leader < 0; ++k)
    if (sides[k] != side) remote_leader = k;
  free(sides);
  /* A color with members on one side only: no intercommunicator (all of them agree). */
  if (!err && remote_leader >= 0) err = MPI_Comm_split(both, side, r, &mine);
  if (!err && remote_leader >= 0)
    err = MPI_Intercomm_create(mine, 0, both, remote_leader, 0, out);
  if (remote_leader >= 0 && !err) MPI_Comm_free(&mine);
  MPI_Comm_free(&both);
  return err;
}
