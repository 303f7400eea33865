/* Groups: ordered sets of PEs (MPI_Comm_group and the set operations), and
 * MPI_Comm_create from a group. A group is its PEs in rank order; handles index a
 * table (MPI_GROUP_EMPTY is predefined). */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

typedef struct {
  int size;
  uint16_t pe[]; /* rank -> PE */
} mpi_group;

static mpi_group **groups;
static int group_count;
static mpi_group empty_group;

static mpi_group *group_get(MPI_Group g) {
  if (g == MPI_GROUP_EMPTY) return &empty_group;
  return g > MPI_GROUP_EMPTY && g < group_count ? groups[g] : 0;
}

static int check_group(const char *fn, MPI_Group g, mpi_group **out) {
  MPI_REQUIRE_INIT(fn);
  *out = group_get(g);
  return *out ? MPI_SUCCESS
              : mpi_error(MPI_COMM_WORLD, MPI_ERR_GROUP, fn, "invalid group %d", g);
}

static mpi_group *group_alloc(int n) {
  mpi_group *g = malloc(sizeof *g + (n ? n : 1) * sizeof g->pe[0]);
  if (g) g->size = n;
  return g;
}

/* A handle for g (freed on failure); an empty result is MPI_GROUP_EMPTY. */
static int group_handle(const char *fn, mpi_group *g, MPI_Group *out) {
  if (!g) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
  if (!g->size) {
    free(g);
    *out = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
  }
  int h = MPI_GROUP_EMPTY + 1;
  while (h < group_count && groups[h]) ++h;
  if (h >= group_count) {
    mpi_group **t = realloc(groups, (h + 8) * sizeof *t);
    if (!t) {
      free(g);
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
    }
    for (int k = group_count; k < h + 8; ++k) t[k] = 0;
    groups = t;
    group_count = h + 8;
  }
  groups[h] = g;
  *out = h;
  return MPI_SUCCESS;
}

static int rank_in(const mpi_group *g, unsigned pe) {
  for (int r = 0; r < g->size; ++r)
    if (g->pe[r] == pe) return r;
  return MPI_UNDEFINED;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_group", &c);
  if (err) return err;
  if (c->inter) return MPI_Comm_group(inter_local(c), group); /* the local group */
  mpi_group *g = group_alloc(c->size);
  if (g) comm_pes(c, g->pe);
  return group_handle("MPI_Comm_group", g, group);
}

/* The group of the PEs pes[0..n) (MPI_Comm_remote_group). */
int group_of_pes(const char *fn, const uint16_t *pes, int n, MPI_Group *out) {
  mpi_group *g = group_alloc(n);
  if (g) memcpy(g->pe, pes, n * sizeof *pes);
  return group_handle(fn, g, out);
}

int MPI_Group_size(MPI_Group group, int *size) {
  mpi_group *g;
  const int err = check_group("MPI_Group_size", group, &g);
  if (!err) *size = g->size;
  return err;
}

int MPI_Group_rank(MPI_Group group, int *rank) {
  mpi_group *g;
  const int err = check_group("MPI_Group_rank", group, &g);
  if (!err) *rank = rank_in(g, emx_pe_id());
  return err;
}

int MPI_Group_free(MPI_Group *group) {
  mpi_group *g;
  const int err = check_group("MPI_Group_free", *group, &g);
  if (err) return err;
  if (*group != MPI_GROUP_EMPTY) {
    free(g);
    groups[*group] = 0;
  }
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group a, int n, const int *ranks, MPI_Group b, int *out) {
  const char *fn = "MPI_Group_translate_ranks";
  mpi_group *ga, *gb;
  int err = check_group(fn, a, &ga);
  if (!err) err = check_group(fn, b, &gb);
  if (err) return err;
  for (int k = 0; k < n; ++k) {
    if (ranks[k] == MPI_PROC_NULL) {
      out[k] = MPI_PROC_NULL;
      continue;
    }
    if (ranks[k] < 0 || ranks[k] >= ga->size)
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "invalid rank %d (group of %d)", ranks[k],
                       ga->size);
    out[k] = rank_in(gb, ga->pe[ranks[k]]);
  }
  return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group a, MPI_Group b, int *result) {
  mpi_group *ga, *gb;
  int err = check_group("MPI_Group_compare", a, &ga);
  if (!err) err = check_group("MPI_Group_compare", b, &gb);
  if (err) return err;
  int same_order = ga->size == gb->size, same_set = same_order;
  for (int r = 0; r < ga->size && same_set; ++r) {
    if (r < gb->size && ga->pe[r] != gb->pe[r]) same_order = 0;
    if (rank_in(gb, ga->pe[r]) == MPI_UNDEFINED) same_set = 0;
  }
  *result = same_order && same_set ? MPI_IDENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

/* ---- Set operations ------------------------------------------------------------------- */

enum set_op { S_UNION, S_INTERSECTION, S_DIFFERENCE };

/* Union: a's members, then b's not in a; intersection and difference: a's members in
 * a's order that are (not) in b. */
static int set_op(const char *fn, MPI_Group a, MPI_Group b, enum set_op op, MPI_Group *out) {
  mpi_group *ga, *gb;
  int err = check_group(fn, a, &ga);
  if (!err) err = check_group(fn, b, &gb);
  if (err) return err;
  mpi_group *g = group_alloc(ga->size + gb->size);
  if (g) {
    int n = 0;
    for (int r = 0; r < ga->size; ++r) {
      const int in_b = rank_in(gb, ga->pe[r]) != MPI_UNDEFINED;
      if (op == S_UNION || (op == S_INTERSECTION) == in_b) g->pe[n++] = ga->pe[r];
    }
    if (op == S_UNION)
      for (int r = 0; r < gb->size; ++r)
        if (rank_in(ga, gb->pe[r]) == MPI_UNDEFINED) g->pe[n++] = gb->pe[r];
    g->size = n;
  }
  return group_handle(fn, g, out);
}

int MPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group *out) {
  return set_op("MPI_Group_union", a, b, S_UNION, out);
}
int MPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group *out) {
  return set_op("MPI_Group_intersection", a, b, S_INTERSECTION, out);
}
int MPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group *out) {
  return set_op("MPI_Group_difference", a, b, S_DIFFERENCE, out);
}

/* ---- Subsets by rank ------------------------------------------------------------------ */

/* The ranks of `group` that `incl`/`excl` name: n ranks (distinct, valid) into a flag
 * array; the new group takes them in the given order (incl) or keeps the others (excl). */
static int by_ranks(const char *fn, MPI_Group group, int n, const int *ranks, int incl,
                    MPI_Group *out) {
  mpi_group *g0;
  int err = check_group(fn, group, &g0);
  if (err) return err;
  if (n < 0 || n > g0->size)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "%d ranks of a group of %d", n, g0->size);
  char *seen = calloc(g0->size ? g0->size : 1, 1);
  mpi_group *g = group_alloc(incl ? n : g0->size - n);
  if (!seen || !g) {
    free(seen), free(g);
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
  }
  for (int k = 0; k < n && !err; ++k) {
    const int r = ranks[k];
    if (r < 0 || r >= g0->size)
      err = mpi_error(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "invalid rank %d (group of %d)", r, g0->size);
    else if (seen[r])
      err = mpi_error(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "rank %d named twice", r);
    else
      seen[r] = 1;
    if (!err && incl) g->pe[k] = g0->pe[r];
  }
  if (!err && !incl) {
    int m = 0;
    for (int r = 0; r < g0->size; ++r)
      if (!seen[r]) g->pe[m++] = g0->pe[r];
  }
  free(seen);
  if (err) {
    free(g);
    return err;
  }
  return group_handle(fn, g, out);
}

int MPI_Group_incl(MPI_Group group, int n, const int *ranks, MPI_Group *out) {
  return by_ranks("MPI_Group_incl", group, n, ranks, 1, out);
}
int MPI_Group_excl(MPI_Group group, int n, const int *ranks, MPI_Group *out) {
  return by_ranks("MPI_Group_excl", group, n, ranks, 0, out);
}

/* Ranges (first, last, stride) expanded to a rank list, in order. */
static int by_ranges(const char *fn, MPI_Group group, int n, int ranges[][3], int incl,
                     MPI_Group *out) {
  mpi_group *g0;
  int err = check_group(fn, group, &g0);
  if (err) return err;
  int total = 0;
  for (int k = 0; k < n; ++k) {
    const int first = ranges[k][0], last = ranges[k][1], stride = ranges[k][2];
    if (stride == 0 || first < 0 || first >= g0->size || last < 0 || last >= g0->size ||
        (stride > 0 && first > last) || (stride < 0 && first < last))
      return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid range (%d, %d, %d) of a group of %d",
                       first, last, stride, g0->size);
    total += (last - first) / stride + 1;
  }
  int *ranks = malloc((total ? total : 1) * sizeof *ranks);
  if (!ranks) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
  int m = 0;
  for (int k = 0; k < n; ++k)
    for (int r = ranges[k][0]; ranges[k][2] > 0 ? r <= ranges[k][1] : r >= ranges[k][1];
         r += ranges[k][2])
      ranks[m++] = r;
  err = by_ranks(fn, group, total, ranks, incl, out);
  free(ranks);
  return err;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *out) {
  return by_ranges("MPI_Group_range_incl", group, n, ranges, 1, out);
}
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *out) {
  return by_ranges("MPI_Group_range_excl", group, n, ranges, 0, out);
}

/* ---- Communicators from groups ---------------------------------------------------------- */

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  const char *fn = "MPI_Comm_create";
  mpi_comm *c;
  mpi_group *g;
  int err = check_comm(comm, fn, &c);
  if (!err) err = check_group(fn, group, &g);
  if (err) return err;
  if (c->inter) { /* MPI-2: a subgroup of the local group, matched with the remote one's */
    const mpi_comm *lc = comm_get(inter_local(c));
    int r = -1;
    for (int k = 0; k < g->size; ++k) {
      if (comm_rank_of(lc, g->pe[k]) < 0)
        return mpi_error(comm, MPI_ERR_GROUP, fn, "rank %d of the group is not in the local group",
                         k);
      if (g->pe[k] == emx_pe_id()) r = k;
    }
    return inter_split(comm, r < 0 ? MPI_UNDEFINED : 0, r, newcomm);
  }
  for (int r = 0; r < g->size; ++r)
    if (comm_rank_of(c, g->pe[r]) < 0)
      return mpi_error(comm, MPI_ERR_GROUP, fn, "rank %d of the group is not in the communicator", r);
  const mpi_comm proto = comm_plain_proto(c);
  return comm_new_pes(&proto, comm, g->pe, g->size, newcomm);
}
