/* Communicators: a table indexed by the MPI_Comm handle. A communicator is a range of
 * PEs (rank r = PE base_pe + r: MPI_COMM_WORLD, MPI_COMM_SELF, their duplicates, and
 * whatever Comm_split/Comm_create make that happens to be one) or any PEs in any order
 * (a comm_map: rank -> PE and PE -> rank, the one translation every path uses through
 * comm_pe, comm_rank_of and req_source). Each has its own context id for point-to-point
 * traffic and the next one for its collectives, so their messages never match each
 * other's receives. */
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

/* Under MPI_THREAD_MULTIPLE computations of a rank may create communicators from
 * different parents at once, and the all-reduce below blocks: had each read next_ctx
 * before it, two would get the same id (the test "comms" of mpi_t_p2p saw it). So, as
 * MPICH does, one creation at a time per rank owns the allocation: the owner offers its
 * next id, the others refuse (CTX_REFUSED, above every id), and a round that any member
 * refused is repeated. No lock is held while waiting for absent members (two ranks
 * could take it for different parents and deadlock): a creation competes only once
 * every member of its parent is in the call (a barrier), and among those waiting the
 * parent with the lowest context id goes first, so every one finishes. Creations from
 * one parent come in the same order on every member, as MPI requires. */
enum { CTX_REFUSED = 0x10000 };
typedef struct ctx_waiter {
  uint16_t parent_ctx;
  struct ctx_waiter *next;
} ctx_waiter;
static ctx_waiter *ctx_waiting; /* this rank's creations past their barrier (their stacks) */
static int ctx_owned;           /* one of them is in its all-reduce as the owner */
static int ctx_inter;           /* an intercommunicator's id is being agreed (intercomm.c) */
/* Intercommunicators (and what Intercomm_merge makes of them) take their ids from the
 * upper half, so that their agreement needs nothing from the rank's other creations. */
enum { CTX_INTER_BASE = 0x8000 };
static uint16_t next_inter_ctx = CTX_INTER_BASE;

static int ctx_first(const ctx_waiter *w) {
  for (const ctx_waiter *o = ctx_waiting; o; o = o->next)
    if (o->parent_ctx < w->parent_ctx) return 0;
  return 1;
}

/* Freed ids are used again: once the next ids are used up, the members agree on the
 * lowest pair free on all of them (an all-reduce of their masks of free pairs, 2 KiB, only
 * then; a rank's mask from the communicators it holds, so nothing is kept before). */
enum { CTX_PAIRS = CTX_INTER_BASE / 2, CTX_MASK_WORDS = CTX_PAIRS / 32 };

static int agree_reused_ctx(MPI_Comm parent, int least, uint16_t *ctx) {
  uint32_t *free_pairs = malloc(CTX_MASK_WORDS * sizeof *free_pairs);
  if (!free_pairs) return mpi_error(parent, MPI_ERR_NO_MEM, "communicator creation", "no memory");
  for (int k = 0; k < CTX_MASK_WORDS; ++k) free_pairs[k] = ~0u;
  for (int h = 0; h < mpi_comm_count; ++h) {
    const mpi_comm *c = mpi_comm_table[h];
    if (c && c->ctx < CTX_INTER_BASE) free_pairs[c->ctx / 64] &= ~(1u << (c->ctx / 2 % 32));
  }
  int err = MPI_Allreduce(MPI_IN_PLACE, free_pairs, CTX_MASK_WORDS, MPI_UNSIGNED, MPI_BAND,
                          parent);
  int pair = -1;
  for (int p = (least + 1) / 2; !err && p < CTX_PAIRS && pair < 0; ++p)
    if (free_pairs[p / 32] >> (p % 32) & 1) pair = p;
  free(free_pairs);
  if (err) return err;
  if (pair < 0)
    return mpi_error(parent, MPI_ERR_OTHER, "communicator creation",
                     "out of context ids: %d communicators in use (free some with "
                     "MPI_Comm_free)", CTX_PAIRS);
  *ctx = (uint16_t)(2 * pair);
  return MPI_SUCCESS;
}

static int exhausted(int all, int least) { return (all < least ? least : all) > CTX_INTER_BASE - 2; }

/* The largest next id of the members in *all; or, once the next ids are used up, a
 * freed pair agreed on (*reused, else 0), under MPI_THREAD_MULTIPLE while this
 * creation still owns the allocation (every member does then: none refused). */
static int max_next_ctx(MPI_Comm parent, int least, int *all, uint16_t *reused) {
  int level;
  MPI_Query_thread(&level);
  *reused = 0;
  if (level < MPI_THREAD_MULTIPLE) {
    int mine = next_ctx;
    int err = MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MAX, parent);
    if (!err && exhausted(*all, least)) err = agree_reused_ctx(parent, least, reused);
    return err;
  }
  int err = MPI_Barrier(parent);
  if (err) return err;
  ctx_waiter me = {comm_get(parent)->ctx, ctx_waiting}, **p = &ctx_waiting;
  ctx_waiting = &me;
  do {
    const int own = !ctx_owned && ctx_first(&me);
    int mine = own ? next_ctx : CTX_REFUSED;
    ctx_owned |= own;
    err = MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MAX, parent);
    if (own && !err && *all != CTX_REFUSED && exhausted(*all, least))
      err = agree_reused_ctx(parent, least, reused);
    if (own) ctx_owned = 0;
    /* Refused: the owner is another computation, here or on a member; let this PE's run
     * (over a parent of one rank the all-reduce never blocks, and the loop would keep
     * the PE from them). */
    if (!err && *all == CTX_REFUSED) emx_yield();
  } while (!err && *all == CTX_REFUSED);
  while (*p != &me) p = &(*p)->next;
  *p = me.next;
  return err;
}

/* A context id that no member of `parent` uses: the largest next id of all members (an
 * all-reduce over the parent, so every member calls this in the same order), at least
 * `least`. Communicators made by one call (Comm_split) may get the same id: their members
 * are disjoint. */
static int agree_ctx(MPI_Comm parent, int least, uint16_t *ctx) {
  int all;
  const int err = max_next_ctx(parent, least, &all, ctx);
  if (err || *ctx) return err; /* (a reused id) */
  if (all < least) all = least;
  *ctx = (uint16_t)all;
  next_ctx = (uint16_t)(all + 2);
  return MPI_SUCCESS;
}

static int make(const mpi_comm *proto, uint16_t ctx, MPI_Comm parent, MPI_Comm *out) {
  mpi_comm *c = malloc(sizeof *c);
  if (!c) return mpi_error(parent, MPI_ERR_NO_MEM, "communicator creation", "no memory");
  *c = *proto;
  c->ctx = ctx;
  c->attrs = 0;
  c->name = 0;
  *out = insert(c);
  if (*out == MPI_COMM_NULL) {
    free(c);
    return mpi_error(parent, MPI_ERR_NO_MEM, "communicator creation", "no memory");
  }
  if (c->map) ++c->map->refs;
  return MPI_SUCCESS;
}

int comm_new(const mpi_comm *proto, MPI_Comm parent, int member, MPI_Comm *out) {
  uint16_t ctx;
  const int err = agree_ctx(parent, proto->map ? COMM_MAPPED_CTX : 0, &ctx);
  if (err) return err;
  if (!member) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return make(proto, ctx, parent, out);
}

void comm_map_unref(comm_map *m) {
  if (m && !--m->refs) free(m);
}

int comm_new_pes(const mpi_comm *proto, MPI_Comm parent, const uint16_t *pes, int n,
                 MPI_Comm *out) {
  int range = 1;
  for (int r = 0; r < n; ++r)
    if (pes[r] != pes[0] + r) range = 0;
  uint16_t ctx;
  const int err = agree_ctx(parent, range ? 0 : COMM_MAPPED_CTX, &ctx);
  if (err) return err;
  return comm_make_pes(proto, parent, pes, n, -1, ctx, out);
}

/* An intercommunicator's id is agreed over two groups that share no communicator yet, so
 * the refusal rounds above cannot cover it; it comes from the upper half of the ids
 * instead, which only these agreements use: the largest next upper id of the members of
 * both groups is free on all of them. Two at once on one rank would read the same next
 * id, so the second is an error (comm_inter_begin returns -1); waiting for the first
 * could deadlock (it may wait for remote members that wait for this rank). */
int comm_inter_begin(void) {
  if (ctx_inter) return -1;
  ctx_inter = 1;
  return next_inter_ctx;
}
void comm_inter_end(int ctx) {
  ctx_inter = 0;
  if (ctx < 0) return;
  if (ctx > 0xfffe - 2) mpi_internal_error("out of context ids (too many intercommunicators)");
  if (ctx + 2 > next_inter_ctx) next_inter_ctx = (uint16_t)(ctx + 2);
}

int comm_make_pes(const mpi_comm *proto, MPI_Comm parent, const uint16_t *pes, int n, int rank,
                  uint16_t ctx, MPI_Comm *out) {
  const unsigned me = emx_pe_id(), npes = emx_pe_count();
  int range = 1;
  for (int r = 0; r < n; ++r) {
    if (rank < 0 && pes[r] == me) rank = r;
    if (pes[r] != pes[0] + r) range = 0;
  }
  if (rank < 0) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  mpi_comm c = *proto;
  c.size = n;
  c.rank = rank;
  c.map = 0;
  c.base_pe = (uint16_t)pes[0];
  if (!range) {
    comm_map *m = malloc(sizeof *m + n * sizeof *m->rank_pe + npes * sizeof *m->pe_rank + 4);
    if (!m) return mpi_error(parent, MPI_ERR_NO_MEM, "communicator creation", "no memory");
    m->refs = 0;
    m->size = n;
    m->pe_rank = (int16_t *)(m + 1);
    m->rank_pe = (uint16_t *)(m->pe_rank + npes);
    for (unsigned pe = 0; pe < npes; ++pe) m->pe_rank[pe] = -1;
    for (int r = 0; r < n; ++r) m->rank_pe[r] = pes[r], m->pe_rank[pes[r]] = (int16_t)r;
    c.map = m;
    c.base_pe = COMM_MAPPED;
  }
  const int e = make(&c, ctx, parent, out);
  if (e && c.map) free(c.map);
  return e;
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
  *size = c->inter ? inter_local_size(c) : c->size; /* (an intercommunicator's own group) */
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
  if (c->inter) return inter_dup(comm, c, newcomm);
  mpi_comm proto = *c;
  proto.dims = copy_ints(c->dims, c->ndims);
  proto.periods = copy_ints(c->periods, c->ndims);
  proto.index = copy_ints(c->index, c->nnodes);
  proto.edges = copy_ints(c->edges, c->nnodes ? c->index[c->nnodes - 1] : 0);
  err = comm_new(&proto, comm, 1, newcomm);
  if (err || *newcomm == MPI_COMM_NULL) {
    free(proto.dims), free(proto.periods), free(proto.index), free(proto.edges);
    return err;
  }
  return attrs_copy(comm, c, mpi_comm_table[*newcomm]);
}

int MPI_Comm_free(MPI_Comm *comm) {
  mpi_comm *c;
  int err = check_comm(*comm, "MPI_Comm_free", &c);
  if (err) return err;
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return mpi_error(*comm, MPI_ERR_COMM, "MPI_Comm_free", "cannot free a predefined communicator");
  err = attrs_delete_all(*comm, c);
  if (err) return err;
  mpi_comm_table[*comm] = 0;
  free(c->dims);
  free(c->periods);
  free(c->index);
  free(c->edges);
  comm_map_unref(c->map);
  inter_free(c->inter);
  free(c->name);
  free(c);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

/* The PEs of c in rank order (n = c->size entries). */
void comm_pes(const mpi_comm *c, uint16_t *pes) {
  for (int r = 0; r < c->size; ++r) pes[r] = (uint16_t)comm_pe(c, r);
}

int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result) {
  mpi_comm *ca, *cb;
  int err = check_comm(a, "MPI_Comm_compare", &ca);
  if (!err) err = check_comm(b, "MPI_Comm_compare", &cb);
  if (err) return err;
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  int local = MPI_CONGRUENT; /* intercommunicators: their local groups too (the worse) */
  if ((ca->inter != 0) != (cb->inter != 0)) local = MPI_UNEQUAL;
  else if (ca->inter) MPI_Comm_compare(inter_local(ca), inter_local(cb), &local);
  if (local == MPI_UNEQUAL || ca->size != cb->size) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int same_order = 1, same_set = 1;
  for (int r = 0; r < ca->size; ++r) {
    if (comm_pe(ca, r) != comm_pe(cb, r)) same_order = 0;
    if (comm_rank_of(cb, comm_pe(ca, r)) < 0) same_set = 0;
  }
  *result = same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
  if (*result < local) *result = local; /* MPI_CONGRUENT < MPI_SIMILAR < MPI_UNEQUAL */
  return MPI_SUCCESS;
}

/* A communicator's fields without its topology, attributes or map (for new ones). */
mpi_comm comm_plain_proto(const mpi_comm *c) {
  mpi_comm p = *c;
  p.topo = p.ndims = p.nnodes = 0;
  p.dims = p.periods = p.index = p.edges = 0;
  p.map = 0;
  p.attrs = 0;
  p.inter = 0;
  return p;
}

typedef struct {
  int color, key, rank;
} split_entry;

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  const char *fn = "MPI_Comm_split";
  mpi_comm *c;
  int err = check_comm(comm, fn, &c);
  if (err) return err;
  if (color < 0 && color != MPI_UNDEFINED)
    return mpi_error(comm, MPI_ERR_ARG, fn, "negative color %d (not MPI_UNDEFINED)", color);
  if (c->inter) return inter_split(comm, color, key, newcomm);
  const int n = c->size;
  int mine[2] = {color, key};
  int *all = malloc(2 * n * sizeof *all);
  split_entry *e = malloc(n * sizeof *e);
  uint16_t *pes = malloc(n * sizeof *pes);
  if (!all || !e || !pes) {
    free(all), free(e), free(pes);
    return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory");
  }
  err = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
  int m = 0;
  if (!err && color != MPI_UNDEFINED) {
    /* My color's members by key, then by rank in comm (a stable insertion sort). */
    for (int r = 0; r < n; ++r) {
      if (all[2 * r] != color) continue;
      int j = m++;
      while (j > 0 && e[j - 1].key > all[2 * r + 1]) e[j] = e[j - 1], --j;
      e[j] = (split_entry){color, all[2 * r + 1], r};
    }
    for (int j = 0; j < m; ++j) pes[j] = (uint16_t)comm_pe(c, e[j].rank);
  }
  if (!err) {
    const mpi_comm proto = comm_plain_proto(c);
    err = comm_new_pes(&proto, comm, pes, m, newcomm);
  }
  free(all), free(e), free(pes);
  return err;
}

int MPI_Topo_test(MPI_Comm comm, int *status) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Topo_test", &c);
  if (err) return err;
  *status = c->topo ? c->topo : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *name) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_set_name", &c);
  if (err) return err;
  char *copy = malloc(MPI_MAX_OBJECT_NAME);
  if (!copy) return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Comm_set_name", "no memory");
  strncpy(copy, name, MPI_MAX_OBJECT_NAME - 1);
  copy[MPI_MAX_OBJECT_NAME - 1] = 0;
  free(c->name);
  c->name = copy;
  return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_get_name", &c);
  if (err) return err;
  const char *n = c->name ? c->name : comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                                    : comm == MPI_COMM_SELF  ? "MPI_COMM_SELF" : "";
  strncpy(name, n, MPI_MAX_OBJECT_NAME - 1);
  name[MPI_MAX_OBJECT_NAME - 1] = 0;
  *resultlen = (int)strlen(name);
  return MPI_SUCCESS;
}
