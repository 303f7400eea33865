/* Tests of the rest of MPI-1 in MPI-EMX: groups, communicators of any PEs in any order,
 * derived datatypes, packing, buffered mode, cancel of receives and sends, Testsome,
 * Reduce_scatter, v-collectives on non-contiguous types, user operations and reductions
 * on derived types, intercommunicators, attributes, error handlers, topologies, and edge
 * cases of the standard.
 *
 *   mpi_t_mpi1 [TEST...] [-mpi-matching=...] [-mpi-protocol=...]
 *
 * Prints "NAME: ok" on rank 0 for each test (all of them without arguments). Needs at
 * least 3 ranks for the interesting cases; runs on any number. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* ---- Groups ------------------------------------------------------------------------------ */

static void test_groups(void) {
  MPI_Group world, odd, even, u, i, d, rev;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n, r;
  MPI_Group_size(world, &n);
  MPI_Group_rank(world, &r);
  check(n == size && r == rank, "world group size %d rank %d", n, r);
  int ranges[1][3] = {{1, size - 1, 2}};
  if (size > 1) MPI_Group_range_incl(world, 1, ranges, &odd);
  else odd = MPI_GROUP_EMPTY;
  MPI_Group_difference(world, odd, &even);
  MPI_Group_size(even, &n);
  check(n == (size + 1) / 2, "even group of %d", n);
  MPI_Group_rank(even, &r);
  check(r == (rank % 2 ? MPI_UNDEFINED : rank / 2), "rank %d in the even group", r);
  MPI_Group_union(odd, even, &u);
  MPI_Group_size(u, &n);
  check(n == size, "union of %d", n);
  int cmp;
  MPI_Group_compare(u, world, &cmp);
  check(cmp == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "union vs world: %d", cmp);
  MPI_Group_intersection(odd, even, &i);
  check(i == MPI_GROUP_EMPTY, "odd and even intersect");
  MPI_Group_compare(world, world, &cmp);
  check(cmp == MPI_IDENT, "world vs world: %d", cmp);
  /* Reversed by incl; translate ranks between the orders. */
  int *ranks = malloc(size * sizeof *ranks), *out = malloc(size * sizeof *out);
  for (int k = 0; k < size; ++k) ranks[k] = size - 1 - k;
  MPI_Group_incl(world, size, ranks, &rev);
  MPI_Group_translate_ranks(rev, size, ranks, world, out);
  for (int k = 0; k < size; ++k) check(out[k] == k, "translated %d -> %d", ranks[k], out[k]);
  MPI_Group_excl(world, 1, ranks, &d); /* all but the last */
  MPI_Group_size(d, &n);
  check(n == size - 1, "excl: %d", n);
  MPI_Group_compare(rev, world, &cmp);
  check(cmp == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "reversed vs world: %d", cmp);
  free(ranks);
  free(out);
  MPI_Group *all[] = {&world, &odd, &even, &u, &i, &d, &rev};
  for (unsigned k = 0; k < sizeof all / sizeof *all; ++k)
    if (*all[k] != MPI_GROUP_EMPTY) MPI_Group_free(all[k]);
  check(world == MPI_GROUP_NULL, "freed group not null");
}

/* ---- Communicators of any PEs in any order ------------------------------------------------ */

/* A ring in c: named sources, wildcard sources, probes; statuses name ranks of c. */
static void ring(MPI_Comm c, const char *what) {
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  int got = -1;
  MPI_Status st;
  MPI_Sendrecv(&r, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, c, &st);
  check(got == left && st.MPI_SOURCE == left, "%s: got %d from %d, not %d", what, got,
        st.MPI_SOURCE, left);
  /* Wildcard source: the status names the sender's rank in c. */
  MPI_Request q;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 6, c, &q);
  MPI_Send(&r, 1, MPI_INT, right, 6, c);
  MPI_Wait(&q, &st);
  check(got == left && st.MPI_SOURCE == left, "%s: wildcard got %d from %d", what, got,
        st.MPI_SOURCE);
  /* Probe of an unexpected message (the send need not complete before its receive). */
  MPI_Isend(&r, 1, MPI_INT, right, 7, c, &q);
  MPI_Probe(MPI_ANY_SOURCE, 7, c, &st);
  check(st.MPI_SOURCE == left, "%s: probe says %d", what, st.MPI_SOURCE);
  MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 7, c, &st);
  check(got == left, "%s: probed message %d", what, got);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Barrier(c);
}

static void test_split(void) {
  /* Colors by rank % 3, keys reversing the order: ranks are PEs in no range. */
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &c);
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  const int members = (size - rank % 3 + 2) / 3;
  check(n == members && r == members - 1 - rank / 3, "split: rank %d of %d", r, n);
  ring(c, "split");
  MPI_Group g, wg;
  MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int mine = 0, world_rank;
  MPI_Group_translate_ranks(g, 1, &mine, wg, &world_rank);
  check(world_rank == rank % 3 + 3 * (members - 1),
        "rank 0 of the split is world rank %d", world_rank);
  MPI_Group_free(&g);
  /* Same key everywhere: the order of the parent. Undefined color: no communicator. */
  MPI_Comm d, none;
  MPI_Comm_split(c, 0, 0, &d);
  int cmp;
  MPI_Comm_compare(c, d, &cmp);
  check(cmp == MPI_CONGRUENT, "split of all with one key: %d", cmp);
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
  check((none == MPI_COMM_NULL) == (rank == 0), "undefined color gave %d", none);
  if (none != MPI_COMM_NULL) {
    ring(none, "split-without-0");
    MPI_Comm_free(&none);
  }
  /* Comm_create: the odd ranks in reverse order. */
  int *ranks = malloc(size * sizeof *ranks), k = 0;
  for (int x = size - 1; x >= 0; --x)
    if (x % 2) ranks[k++] = x;
  MPI_Group odd;
  MPI_Group_incl(wg, k, ranks, &odd);
  MPI_Comm oc;
  MPI_Comm_create(MPI_COMM_WORLD, odd, &oc);
  check((oc == MPI_COMM_NULL) == (rank % 2 == 0), "Comm_create membership");
  if (oc != MPI_COMM_NULL) {
    MPI_Comm_rank(oc, &r);
    check(ranks[r] == rank, "Comm_create: rank %d is world %d", r, rank);
    ring(oc, "create");
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, oc);
    check(sum == (size / 2) * (size / 2), "sum of odd ranks %d", sum);
    MPI_Comm_free(&oc);
  }
  free(ranks);
  MPI_Group_free(&odd);
  MPI_Group_free(&wg);
  MPI_Comm_free(&d);
  MPI_Comm_free(&c);
}

/* ---- Derived datatypes -------------------------------------------------------------------- */

typedef struct {
  char c;
  double d;
  int i[3];
} item; /* padded: c at 0, d at 8, i at 16, size 32 */

static MPI_Datatype item_type(void) {
  static item x;
  int len[3] = {1, 1, 3};
  MPI_Aint base, disp[3];
  MPI_Get_address(&x, &base);
  MPI_Get_address(&x.c, &disp[0]);
  MPI_Get_address(&x.d, &disp[1]);
  MPI_Get_address(&x.i, &disp[2]);
  for (int k = 0; k < 3; ++k) disp[k] -= base;
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t;
  MPI_Type_create_struct(3, len, disp, types, &t);
  MPI_Type_commit(&t);
  return t;
}

static void test_types(void) {
  /* Extents and sizes. */
  MPI_Datatype it = item_type(), vec, col, idx, res, hv;
  int sz;
  MPI_Aint lb, ext;
  MPI_Type_size(it, &sz);
  MPI_Type_get_extent(it, &lb, &ext);
  check(sz == 1 + 8 + 12 && lb == 0 && ext == (MPI_Aint)sizeof(item), "struct: size %d lb %ld extent %ld",
        sz, (long)lb, (long)ext);
  /* A column of a 6x5 int matrix. */
  MPI_Type_vector(6, 1, 5, MPI_INT, &col);
  MPI_Type_commit(&col);
  MPI_Type_size(col, &sz);
  MPI_Type_get_extent(col, &lb, &ext);
  check(sz == 24 && ext == (5 * 5 + 1) * 4, "vector: size %d extent %ld", sz, (long)ext);
  MPI_Type_create_resized(col, 0, 4, &res); /* columns next to each other */
  MPI_Type_commit(&res);
  MPI_Type_get_extent(res, &lb, &ext);
  check(ext == 4, "resized extent %ld", (long)ext);
  MPI_Type_vector(3, 2, 4, MPI_SHORT, &vec);
  MPI_Type_commit(&vec);
  int blen[3] = {2, 1, 3}, disp[3] = {5, 0, 10};
  MPI_Type_indexed(3, blen, disp, MPI_INT, &idx);
  MPI_Type_commit(&idx);
  MPI_Type_get_extent(idx, &lb, &ext);
  check(lb == 0 && ext == 13 * 4, "indexed: lb %ld extent %ld", (long)lb, (long)ext);
  MPI_Type_create_hvector(2, 1, 24, MPI_DOUBLE, &hv);
  MPI_Type_commit(&hv);
  /* MPI-1 markers: an int between LB at -4 and UB at 12. */
  MPI_Datatype mk, parts[3] = {MPI_LB, MPI_INT, MPI_UB};
  int ones[3] = {1, 1, 1};
  MPI_Aint mdisp[3] = {-4, 0, 12};
  MPI_Type_struct(3, ones, mdisp, parts, &mk);
  MPI_Type_commit(&mk);
  MPI_Type_lb(mk, &lb);
  MPI_Type_extent(mk, &ext);
  MPI_Aint ub;
  MPI_Type_ub(mk, &ub);
  check(lb == -4 && ext == 16 && ub == 12, "markers: lb %ld ub %ld extent %ld", (long)lb, (long)ub,
        (long)ext);

  if (size > 1) {
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    /* Struct items, blocking and non-blocking, persistent. */
    item out[4], in[4];
    memset(in, 0x55, sizeof in);
    for (int k = 0; k < 4; ++k)
      out[k] = (item){(char)('a' + rank + k), rank * 1.5 + k, {rank, k, rank * k}};
    MPI_Status st;
    MPI_Sendrecv(out, 4, it, to, 1, in, 4, it, from, 1, MPI_COMM_WORLD, &st);
    for (int k = 0; k < 4; ++k)
      check(in[k].c == 'a' + from + k && in[k].d == from * 1.5 + k && in[k].i[0] == from &&
                in[k].i[1] == k && in[k].i[2] == from * k,
            "struct item %d from %d", k, from);
    int n;
    MPI_Get_count(&st, it, &n);
    check(n == 4, "Get_count of items %d", n);
    MPI_Get_elements(&st, it, &n);
    check(n == 20, "Get_elements of items %d", n);
    /* A column sent, received as a contiguous row; and back into a column. */
    int m[6][5], row[6], m2[6][5];
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 5; ++x) m[y][x] = rank * 100 + y * 5 + x, m2[y][x] = -1;
    MPI_Request q[2];
    MPI_Irecv(row, 6, MPI_INT, from, 2, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(&m[0][2], 1, col, to, 2, MPI_COMM_WORLD, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    for (int y = 0; y < 6; ++y) check(row[y] == from * 100 + y * 5 + 2, "column %d: %d", y, row[y]);
    MPI_Irecv(&m2[0][1], 2, res, from, 3, MPI_COMM_WORLD, &q[0]); /* columns 1 and 2 */
    MPI_Send(&m[0][0], 12, MPI_INT, to, 3, MPI_COMM_WORLD);
    MPI_Wait(&q[0], &st);
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 5; ++x) {
        /* Copy 0 of the resized column is column 1, copy 1 column 2. */
        const int want = x == 1 ? from * 100 + y : x == 2 ? from * 100 + 6 + y : -1;
        check(m2[y][x] == want, "m2[%d][%d] = %d, not %d", y, x, m2[y][x], want);
      }
    /* A short message into a vector: Get_elements counts what came. */
    short sv[12], sin[12];
    for (int k = 0; k < 12; ++k) sv[k] = (short)(rank * 10 + k), sin[k] = -1;
    MPI_Sendrecv(sv, 5, MPI_SHORT, to, 4, sin, 1, vec, from, 4, MPI_COMM_WORLD, &st);
    MPI_Get_elements(&st, vec, &n);
    int cnt;
    MPI_Get_count(&st, vec, &cnt);
    check(n == 5 && cnt == MPI_UNDEFINED, "partial vector: %d elements, count %d", n, cnt);
    const int at[5] = {0, 1, 4, 5, 8};
    for (int k = 0; k < 5; ++k) check(sin[at[k]] == from * 10 + k, "vector element %d", k);
    check(sin[2] == -1 && sin[9] == -1, "vector gaps written");
    /* Persistent receive of an indexed type, twice. */
    int big[16], got[16];
    MPI_Request pr;
    MPI_Recv_init(got, 1, idx, from, 5, MPI_COMM_WORLD, &pr);
    for (int round = 0; round < 2; ++round) {
      for (int k = 0; k < 16; ++k) big[k] = rank * 1000 + round * 100 + k, got[k] = -1;
      MPI_Start(&pr);
      MPI_Send(big, 6, MPI_INT, to, 5, MPI_COMM_WORLD);
      MPI_Wait(&pr, &st);
      const int where[6] = {5, 6, 0, 10, 11, 12};
      for (int k = 0; k < 6; ++k)
        check(got[where[k]] == from * 1000 + round * 100 + k, "indexed round %d element %d", round, k);
    }
    MPI_Request_free(&pr);
    /* hvector of doubles with a type freed while the receive is pending. */
    double dv[6], dr[6] = {0};
    for (int k = 0; k < 6; ++k) dv[k] = rank + k / 8.0;
    MPI_Datatype tmp;
    MPI_Type_dup(hv, &tmp);
    MPI_Type_commit(&tmp);
    MPI_Irecv(dr, 1, tmp, from, 6, MPI_COMM_WORLD, &q[0]);
    MPI_Type_free(&tmp);
    MPI_Send(dv, 2, MPI_DOUBLE, to, 6, MPI_COMM_WORLD);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    check(dr[0] == from && dr[1] == 0 && dr[2] == 0 && dr[3] == from + 1 / 8.0 && dr[4] == 0,
          "hvector placement");
  }
  /* A 2x3 block at (1, 2) of a 4x6 int array (C order), to the next rank as 6 ints. */
  if (size > 1) {
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int a[4][6], got[6], sizes[2] = {4, 6}, sub[2] = {2, 3}, start[2] = {1, 2};
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 6; ++x) a[y][x] = rank * 100 + y * 10 + x;
    MPI_Datatype sa;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &sa);
    MPI_Type_commit(&sa);
    MPI_Type_get_extent(sa, &lb, &ext);
    check(lb == 0 && ext == 4 * 6 * 4, "subarray extent %ld", (long)ext);
    MPI_Request q;
    MPI_Irecv(got, 6, MPI_INT, from, 7, MPI_COMM_WORLD, &q);
    int done = 0;
    MPI_Status st;
    MPI_Send(a, 1, sa, to, 7, MPI_COMM_WORLD);
    while (!done) MPI_Request_get_status(q, &done, &st);
    check(st.MPI_SOURCE == from && st.MPI_TAG == 7, "Request_get_status");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    const int want[6] = {12, 13, 14, 22, 23, 24};
    for (int k = 0; k < 6; ++k) check(got[k] == from * 100 + want[k], "subarray element %d", k);
    MPI_Type_free(&sa);
  }
  /* Collectives on non-contiguous types: a column broadcast, gathered, reduced. */
  int m[4][3];
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 3; ++x) m[y][x] = rank == 0 ? y * 10 + x : -1;
  MPI_Datatype c3;
  MPI_Type_vector(4, 1, 3, MPI_INT, &c3);
  MPI_Type_commit(&c3);
  MPI_Bcast(&m[0][1], 1, c3, 0, MPI_COMM_WORLD);
  for (int y = 0; y < 4; ++y)
    check(m[y][1] == y * 10 + 1 && (rank == 0 || (m[y][0] == -1 && m[y][2] == -1)),
          "bcast column row %d", y);
  int mine[4][3], sum[4][3];
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 3; ++x) mine[y][x] = rank + y, sum[y][x] = -7;
  MPI_Allreduce(&mine[0][2], &sum[0][2], 1, c3, MPI_SUM, MPI_COMM_WORLD);
  for (int y = 0; y < 4; ++y)
    check(sum[y][2] == size * (size - 1) / 2 + size * y && sum[y][0] == -7, "allreduce column %d", y);
  int *all = malloc(4 * size * sizeof *all);
  MPI_Gather(&mine[0][0], 1, c3, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      for (int y = 0; y < 4; ++y) check(all[r * 4 + y] == r + y, "gather column %d %d", r, y);
  free(all);
  MPI_Type_free(&c3);
  MPI_Datatype *ts[] = {&it, &vec, &col, &idx, &res, &hv, &mk};
  for (unsigned k = 0; k < sizeof ts / sizeof *ts; ++k) MPI_Type_free(ts[k]);
}

/* ---- Pack / Unpack ------------------------------------------------------------------------ */

static void test_pack(void) {
  char buf[64];
  int pos = 0, a[3] = {rank, 2 * rank, 3 * rank}, psize;
  double d = rank / 4.0;
  MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &psize);
  check(psize == 12, "Pack_size %d", psize);
  MPI_Pack(a, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
  MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
  check(pos == 20, "position %d", pos);
  if (size > 1) {
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    char in[64];
    MPI_Status st;
    MPI_Sendrecv(buf, pos, MPI_PACKED, to, 1, in, sizeof in, MPI_PACKED, from, 1, MPI_COMM_WORLD, &st);
    int n, b[3];
    double e;
    MPI_Get_count(&st, MPI_PACKED, &n);
    pos = 0;
    MPI_Unpack(in, n, &pos, b, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(in, n, &pos, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    check(n == 20 && b[0] == from && b[1] == 2 * from && b[2] == 3 * from && e == from / 4.0,
          "unpacked %d %d %d %g", b[0], b[1], b[2], e);
    /* Packed data received as typed data. */
    MPI_Sendrecv(buf, 12, MPI_PACKED, to, 2, b, 3, MPI_INT, from, 2, MPI_COMM_WORLD, &st);
    check(b[2] == 3 * from, "packed received as ints: %d", b[2]);
  }
  /* Too little room: MPI_ERR_TRUNCATE, returned. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  pos = 60;
  check(MPI_Pack(a, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE && pos == 60,
        "Pack beyond the buffer");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- Buffered mode ------------------------------------------------------------------------ */

static void test_bsend(void) {
  enum { N = 20, WORDS = 50 };
  const int bytes = N * (WORDS * 4 + MPI_BSEND_OVERHEAD);
  char *space = malloc(bytes);
  MPI_Buffer_attach(space, bytes);
  if (size > 1) {
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    /* Every message buffered before any receive is posted: Bsend returns at once. */
    static int data[N][WORDS];
    for (int k = 0; k < N; ++k)
      for (int w = 0; w < WORDS; ++w) data[k][w] = rank * 10000 + k * 100 + w;
    for (int k = 0; k < N - 1; ++k) MPI_Bsend(data[k], WORDS, MPI_INT, to, k, MPI_COMM_WORLD);
    MPI_Request q;
    MPI_Ibsend(data[N - 1], WORDS, MPI_INT, to, N - 1, MPI_COMM_WORLD, &q);
    int flag;
    MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    check(flag, "Ibsend not complete at once");
    memset(data, 0, sizeof data); /* the copies are in the attached buffer */
    MPI_Barrier(MPI_COMM_WORLD);
    int in[WORDS];
    for (int k = N - 1; k >= 0; --k) {
      MPI_Recv(in, WORDS, MPI_INT, from, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int w = 0; w < WORDS; ++w)
        check(in[w] == from * 10000 + k * 100 + w, "bsend %d word %d: %d", k, w, in[w]);
    }
    /* No room: MPI_ERR_BUFFER, returned, nothing sent. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static int huge[2000];
    check(MPI_Bsend(huge, 2000, MPI_INT, to, 99, MPI_COMM_WORLD) == MPI_ERR_BUFFER,
          "Bsend beyond the buffer");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  void *back;
  int back_size;
  MPI_Buffer_detach(&back, &back_size);
  check(back == space && back_size == bytes, "detach gave %p %d", back, back_size);
  free(space);
}

/* ---- Cancel, Testsome ---------------------------------------------------------------------- */

/* A receive of tag from `from` that nobody sends to, cancelled (after a barrier, so that
 * its request may be at the sender already, if `settle`): it must say so and leave the
 * buffer alone. */
static void expect_cancelled(int from, int tag, int settle, const char *what) {
  int x = -1, flag;
  MPI_Status st;
  MPI_Request q;
  MPI_Irecv(&x, 1, MPI_INT, from, tag, MPI_COMM_WORLD, &q);
  if (settle) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Cancel(&q);
  MPI_Wait(&q, &st);
  MPI_Test_cancelled(&st, &flag);
  check(flag && x == -1, "%s not cancelled", what);
}

static void test_cancel(void) {
  int x = -1, flag;
  MPI_Status st;
  MPI_Request q;
  expect_cancelled(MPI_ANY_SOURCE, 77, 0, "wildcard receive");
  /* A receive from a named source (its request may be at the sender already). */
  const int from = (rank + size - 1) % size, to = (rank + 1) % size;
  expect_cancelled(from, 78, 1, "named receive");
  MPI_Barrier(MPI_COMM_WORLD);
  /* Cancelled at once, its receive request perhaps still waiting for its operand
   * segment (the cancel must not overtake it: nobody sends tag 80). */
  expect_cancelled(from, 80, 0, "receive cancelled at once");
  MPI_Barrier(MPI_COMM_WORLD);
  /* The next message on that key goes to the next receive. */
  MPI_Irecv(&x, 1, MPI_INT, from, 78, MPI_COMM_WORLD, &q);
  MPI_Send(&rank, 1, MPI_INT, to, 78, MPI_COMM_WORLD);
  MPI_Wait(&q, &st);
  MPI_Test_cancelled(&st, &flag);
  check(!flag && x == from, "after the cancel: %d", x);
  /* A receive matched before the cancel: completes normally. */
  MPI_Irecv(&x, 1, MPI_INT, from, 79, MPI_COMM_WORLD, &q);
  MPI_Send(&rank, 1, MPI_INT, to, 79, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Cancel(&q);
  MPI_Wait(&q, &st);
  MPI_Test_cancelled(&st, &flag);
  check(!flag && x == from && st.MPI_SOURCE == from, "matched receive cancelled");
  /* A send matched before the cancel: it completes normally. */
  MPI_Irecv(&x, 1, MPI_INT, from, 81, MPI_COMM_WORLD, &q);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request sq;
  MPI_Isend(&rank, 1, MPI_INT, to, 81, MPI_COMM_WORLD, &sq);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Cancel(&sq);
  MPI_Wait(&sq, &st);
  MPI_Test_cancelled(&st, &flag);
  check(!flag && x == from, "matched send cancelled");
}

/* The receiver-side protocol of this run (-mpi-protocol=, read before MPI_Init takes it
 * out of argv). */
static int protocol_sync;

/* Sends cancelled where the protocol still can: a send request waiting unmatched at the
 * receiver with no data moved. */
static void test_cancel_send(void) {
  const int from = (rank + size - 1) % size, to = (rank + 1) % size;
  int x = -1, flag, v = rank * 3 + 1;
  MPI_Status st;
  MPI_Request q;
  /* A synchronous send nobody receives: withdrawn in every variant. */
  MPI_Issend(&v, 1, MPI_INT, to, 90, MPI_COMM_WORLD, &q);
  MPI_Cancel(&q);
  MPI_Wait(&q, &st);
  MPI_Test_cancelled(&st, &flag);
  check(flag, "unmatched Issend not cancelled");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Iprobe(from, 90, MPI_COMM_WORLD, &flag, &st);
  check(!flag, "a cancelled send can be probed");
  /* The next message with that tag goes to the next receive. */
  MPI_Sendrecv(&rank, 1, MPI_INT, to, 90, &x, 1, MPI_INT, from, 90, MPI_COMM_WORLD, &st);
  check(x == from, "after the cancelled send: %d", x);
  /* A standard send nobody asked for yet: withdrawn under sync; under buffered and get
   * withdrawn if its data has moved into the receiver's buffer by the time of the cancel
   * (conform's cancel_moved waits for that), else the cancel meets the data on its way and
   * fails: either way it is cancelled exactly when it does not arrive (below). */
  MPI_Isend(&v, 1, MPI_INT, to, 91, MPI_COMM_WORLD, &q);
  MPI_Cancel(&q);
  MPI_Wait(&q, &st);
  MPI_Test_cancelled(&st, &flag);
  check(flag || !protocol_sync, "standard send under sync not cancelled");
  int theirs;
  MPI_Sendrecv(&flag, 1, MPI_INT, to, 92, &theirs, 1, MPI_INT, from, 92, MPI_COMM_WORLD, &st);
  if (theirs) {
    MPI_Iprobe(from, 91, MPI_COMM_WORLD, &flag, &st);
    check(!flag, "a cancelled standard send arrived");
  } else {
    MPI_Recv(&x, 1, MPI_INT, from, 91, MPI_COMM_WORLD, &st);
    check(x == from * 3 + 1, "the send whose cancel failed: %d", x);
  }
  /* A persistent synchronous send: cancelled, then started again and received. */
  MPI_Request p;
  MPI_Ssend_init(&v, 1, MPI_INT, to, 93, MPI_COMM_WORLD, &p);
  MPI_Start(&p);
  MPI_Cancel(&p);
  MPI_Wait(&p, &st);
  MPI_Test_cancelled(&st, &flag);
  check(flag, "persistent send not cancelled");
  MPI_Barrier(MPI_COMM_WORLD);
  v = rank * 5;
  MPI_Irecv(&x, 1, MPI_INT, from, 93, MPI_COMM_WORLD, &q);
  MPI_Start(&p);
  MPI_Wait(&p, &st);
  MPI_Test_cancelled(&st, &flag);
  check(!flag, "the second round is cancelled");
  MPI_Wait(&q, &st);
  check(x == from * 5, "second round got %d", x);
  MPI_Request_free(&p);
  /* Cancelled, then the request freed before the answer: nothing arrives. */
  MPI_Issend(&v, 1, MPI_INT, to, 94, MPI_COMM_WORLD, &q);
  MPI_Cancel(&q);
  MPI_Request_free(&q);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Iprobe(from, 94, MPI_COMM_WORLD, &flag, &st);
  check(!flag, "a freed cancelled send arrived");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_testsome(void) {
  enum { N = 6 };
  int in[N], idx[N], out, seen = 0;
  MPI_Request q[N];
  MPI_Status st[N];
  const int from = (rank + size - 1) % size, to = (rank + 1) % size;
  for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, from, k, MPI_COMM_WORLD, &q[k]);
  MPI_Testsome(N, q, &out, idx, st);
  check(out == 0, "Testsome before any send: %d", out);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody sends before everybody has tested */
  for (int k = N - 1; k >= 0; --k) {
    const int v = rank * 10 + k;
    MPI_Send(&v, 1, MPI_INT, to, k, MPI_COMM_WORLD);
  }
  while (seen < N) {
    MPI_Testsome(N, q, &out, idx, st);
    if (!check(out >= 0 && out <= N - seen, "Testsome gave %d with %d to come", out, N - seen)) break;
    for (int j = 0; j < out; ++j)
      check(in[idx[j]] == from * 10 + idx[j] && st[j].MPI_TAG == idx[j], "Testsome index %d", idx[j]);
    seen += out;
  }
  MPI_Testsome(N, q, &out, idx, st);
  check(out == MPI_UNDEFINED, "Testsome with nothing active: %d", out);
}

/* ---- Reduce_scatter ------------------------------------------------------------------------- */

static void test_reduce_scatter(void) {
  int *counts = malloc(size * sizeof *counts), total = 0;
  for (int r = 0; r < size; ++r) counts[r] = r % 3 + 1, total += counts[r];
  int *v = malloc(total * sizeof *v), got[3] = {-1, -1, -1};
  for (int k = 0; k < total; ++k) v[k] = rank + k;
  MPI_Reduce_scatter(v, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int first = 0;
  for (int r = 0; r < rank; ++r) first += counts[r];
  for (int k = 0; k < counts[rank]; ++k)
    check(got[k] == size * (size - 1) / 2 + size * (first + k), "reduce_scatter %d: %d", k, got[k]);
  int b[2 * 64], bg[2];
  for (int k = 0; k < 2 * size; ++k) b[k] = k;
  MPI_Reduce_scatter_block(b, bg, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  check(bg[0] == 2 * rank && bg[1] == 2 * rank + 1, "reduce_scatter_block %d %d", bg[0], bg[1]);
  free(counts);
  free(v);
}

/* ---- v-collectives on non-contiguous types ---------------------------------------------- */

/* Every other int: MPI_INT resized to an extent of two ints (not contiguous). */
static MPI_Datatype every_other(void) {
  MPI_Datatype t;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t);
  MPI_Type_commit(&t);
  return t;
}

/* Checks n ints of a: want(k) where want >= 0, else untouched (-1). */
#define CHECK_INTS(a, n, want, what)                                                   \
  for (int k_ = 0; k_ < (n); ++k_) {                                                \
    const int w_ = (want);                                                          \
    if (!check((a)[k_] == w_, "%s: [%d] = %d, not %d", what, k_, (a)[k_], w_)) break; \
  }

static void test_vcoll(void) {
  const MPI_Datatype gap = every_other();
  const int root = size - 1;
  int *counts = malloc(4 * size * sizeof *counts), *displs = counts + size;
  int *sc = counts + 2 * size, *sd = counts + 3 * size;
  for (int k = 0; k < size; ++k) counts[k] = k % 3 + 1, displs[k] = 4 * k; /* 8 ints a block */
  int *g = malloc(8 * size * sizeof *g), mine[3], spread[6];
  for (int i = 0; i < 3; ++i) mine[i] = rank * 10 + i, spread[2 * i] = mine[i], spread[2 * i + 1] = -5;
  /* The ints of block k of a gap-typed array: slot 8k + 2i holds k * 10 + i. */
#define GAPPED(k_, counts_) ((k_) % 2 == 0 && (k_) % 8 / 2 < (counts_)[(k_) / 8] ? (k_) / 8 * 10 + (k_) % 8 / 2 : -1)

  /* Gatherv: contiguous sends into every other int at the root; then gapped sends. */
  for (int k = 0; k < 8 * size; ++k) g[k] = -1;
  MPI_Gatherv(mine, counts[rank], MPI_INT, g, counts, displs, gap, root, MPI_COMM_WORLD);
  if (rank == root) CHECK_INTS(g, 8 * size, GAPPED(k_, counts), "gatherv into gaps");
  for (int k = 0; k < 8 * size; ++k) g[k] = -1;
  MPI_Gatherv(spread, counts[rank], gap, g, counts, displs, gap, root, MPI_COMM_WORLD);
  if (rank == root) CHECK_INTS(g, 8 * size, GAPPED(k_, counts), "gatherv gaps to gaps");
  /* In place at the root: its block is in g already. */
  for (int k = 0; k < 8 * size; ++k) g[k] = rank == root && k / 8 == root ? GAPPED(k, counts) : -1;
  MPI_Gatherv(rank == root ? MPI_IN_PLACE : (void *)spread, counts[rank], gap, g, counts, displs,
              gap, root, MPI_COMM_WORLD);
  if (rank == root) CHECK_INTS(g, 8 * size, GAPPED(k_, counts), "gatherv in place");

  /* Scatterv from the gapped array at the root into gaps everywhere. */
  for (int k = 0; k < 8 * size; ++k) g[k] = rank == root ? GAPPED(k, counts) : -1;
  int got[6];
  for (int k = 0; k < 6; ++k) got[k] = -1;
  MPI_Scatterv(g, counts, displs, gap, got, counts[rank], gap, root, MPI_COMM_WORLD);
  CHECK_INTS(got, 6, k_ % 2 == 0 && k_ / 2 < counts[rank] ? rank * 10 + k_ / 2 : -1, "scatterv");
  for (int k = 0; k < 6; ++k) got[k] = -1;
  MPI_Scatterv(g, counts, displs, gap, rank == root ? MPI_IN_PLACE : (void *)got, counts[rank],
               MPI_INT, root, MPI_COMM_WORLD);
  if (rank != root) CHECK_INTS(got, 6, k_ < counts[rank] ? rank * 10 + k_ : -1, "scatterv to ints");
  if (rank == root) CHECK_INTS(g, 8 * size, GAPPED(k_, counts), "scatterv in place: root's data");

  /* Allgatherv: gapped sends into contiguous blocks, and into gaps in place. */
  int *flat = malloc(4 * size * sizeof *flat);
  for (int k = 0; k < 4 * size; ++k) flat[k] = -1;
  for (int k = 0; k < size; ++k) sd[k] = 4 * (size - 1 - k); /* the blocks in reverse order */
  MPI_Allgatherv(spread, counts[rank], gap, flat, counts, sd, MPI_INT, MPI_COMM_WORLD);
  CHECK_INTS(flat, 4 * size,
             k_ % 4 < counts[size - 1 - k_ / 4] ? (size - 1 - k_ / 4) * 10 + k_ % 4 : -1,
             "allgatherv");
  for (int k = 0; k < 8 * size; ++k) g[k] = k / 8 == rank ? GAPPED(k, counts) : -1;
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, counts, displs, gap, MPI_COMM_WORLD);
  CHECK_INTS(g, 8 * size, GAPPED(k_, counts), "allgatherv in place");

  /* Alltoallv: to rank k, (rank + k) % 3 ints of gap from block k (slots 6k + 2i);
   * value rank * 100 + k * 10 + i. */
  int *out = malloc(6 * size * sizeof *out), *in = malloc(6 * size * sizeof *in);
  for (int k = 0; k < size; ++k) {
    sc[k] = (rank + k) % 3, sd[k] = 3 * k;
    for (int i = 0; i < 6; ++i) out[6 * k + i] = i % 2 ? -5 : rank * 100 + k * 10 + i / 2;
  }
  for (int k = 0; k < 6 * size; ++k) in[k] = -1;
  MPI_Alltoallv(out, sc, sd, gap, in, sc, sd, gap, MPI_COMM_WORLD); /* symmetric counts */
  CHECK_INTS(in, 6 * size,
             k_ % 2 == 0 && k_ % 6 / 2 < sc[k_ / 6] ? k_ / 6 * 100 + rank * 10 + k_ % 6 / 2 : -1,
             "alltoallv");

  /* Reduce_scatter on gaps: element j of the vector is rank + j everywhere. */
  int total = 0, first = 0;
  for (int k = 0; k < size; ++k) total += counts[k], first += k < rank ? counts[k] : 0;
  int *v = malloc(2 * total * sizeof *v);
  for (int j = 0; j < total; ++j) v[2 * j] = rank + j, v[2 * j + 1] = -5;
  for (int k = 0; k < 6; ++k) got[k] = -1;
  MPI_Reduce_scatter(v, got, counts, gap, MPI_SUM, MPI_COMM_WORLD);
  CHECK_INTS(got, 6,
             k_ % 2 == 0 && k_ / 2 < counts[rank] ? size * (size - 1) / 2 + size * (first + k_ / 2) : -1,
             "reduce_scatter on gaps");
#undef GAPPED
  free(v), free(in), free(out), free(flat), free(g), free(counts);
  MPI_Datatype t = gap;
  MPI_Type_free(&t);
}

/* ---- User operations and reductions on derived types ---------------------------------------- */

/* A 2x2 matrix stored by rows with a spare int after each row: {a, b, -, c, d, -}; the
 * type (two rows of two ints, stride 3, extent 6 ints) is not contiguous. Products mod
 * 101 do not commute. */
enum { MAT = 6 };
static MPI_Datatype mat_type, seen_type;

static void mat_mul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
  const int *a = invec;
  int *b = inoutvec;
  seen_type = *dt;
  for (int n = 0; n < *len; ++n, a += MAT, b += MAT) {
    const int c0 = (a[0] * b[0] + a[1] * b[3]) % 101, c1 = (a[0] * b[1] + a[1] * b[4]) % 101;
    const int c3 = (a[3] * b[0] + a[4] * b[3]) % 101, c4 = (a[3] * b[1] + a[4] * b[4]) % 101;
    b[0] = c0, b[1] = c1, b[3] = c3, b[4] = c4;
  }
}

/* Rank r's matrix number m: {r + 1, m + 2, r % 3, 1 + m}. */
static void mat_of(int r, int m, int *x) {
  x[0] = r + 1, x[1] = m + 2, x[2] = -9, x[3] = r % 3, x[4] = 1 + m, x[5] = -9;
}
/* The product of the matrices number m of ranks from..to-1, in rank order. */
static void mat_product(int from, int to, int m, int *p) {
  p[0] = 1, p[1] = 0, p[3] = 0, p[4] = 1;
  int x[MAT];
  for (int r = to - 1; r >= from; --r) {
    mat_of(r, m, x);
    int len = 1;
    MPI_Datatype t = mat_type;
    mat_mul(x, p, &len, &t);
  }
}
static int mat_equal(const int *x, const int *y) {
  return x[0] == y[0] && x[1] == y[1] && x[3] == y[3] && x[4] == y[4];
}

typedef struct {
  int n;
  double max;
} tally; /* int at 0, double at 8: a struct type of mixed runs */

static void tally_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
  (void)dt;
  const tally *a = invec;
  tally *b = inoutvec;
  for (int k = 0; k < *len; ++k) {
    b[k].n += a[k].n;
    if (a[k].max > b[k].max) b[k].max = a[k].max;
  }
}

static void test_userops(void) {
  MPI_Datatype rows;
  MPI_Type_vector(2, 2, 3, MPI_INT, &rows);
  MPI_Type_create_resized(rows, 0, MAT * sizeof(int), &mat_type);
  MPI_Type_commit(&mat_type);
  MPI_Type_free(&rows);
  MPI_Op mul, tal;
  MPI_Op_create(mat_mul, 0, &mul);
  MPI_Op_create(tally_fn, 1, &tal);
  int mine[2 * MAT], res[2 * MAT], want[MAT];
  mat_of(rank, 0, mine), mat_of(rank, 1, mine + MAT);
  /* Allreduce of two matrices each: the products in rank order; spares untouched. */
  for (int k = 0; k < 2 * MAT; ++k) res[k] = -1;
  seen_type = MPI_DATATYPE_NULL;
  MPI_Allreduce(mine, res, 2, mat_type, mul, MPI_COMM_WORLD);
  const MPI_Datatype saw = seen_type;
  for (int m = 0; m < 2; ++m) {
    mat_product(0, size, m, want);
    check(mat_equal(res + m * MAT, want) && res[m * MAT + 2] == -1 && res[m * MAT + 5] == -1,
          "allreduce of matrices %d: %d %d %d %d", m, res[m * MAT], res[m * MAT + 1],
          res[m * MAT + 3], res[m * MAT + 4]);
  }
  check(size == 1 || rank != 0 || saw == mat_type, "the user function saw type %d", saw);
  /* Reduce at another root, Scan, Exscan (rank 0's buffer untouched). */
  const int root = 1 % size;
  for (int k = 0; k < 2 * MAT; ++k) res[k] = -1;
  MPI_Reduce(mine, res, 2, mat_type, mul, root, MPI_COMM_WORLD);
  mat_product(0, size, 1, want);
  if (rank == root) check(mat_equal(res + MAT, want), "reduce of matrices at %d", root);
  MPI_Scan(mine, res, 2, mat_type, mul, MPI_COMM_WORLD);
  mat_product(0, rank + 1, 1, want);
  check(mat_equal(res + MAT, want) && res[MAT + 2] == -1, "scan of matrices");
  for (int k = 0; k < 2 * MAT; ++k) res[k] = -1;
  MPI_Exscan(mine, res, 2, mat_type, mul, MPI_COMM_WORLD);
  mat_product(0, rank, 0, want);
  check(rank == 0 ? res[0] == -1 && res[4] == -1 : mat_equal(res, want), "exscan of matrices");
  /* In place. */
  memcpy(res, mine, sizeof res);
  MPI_Allreduce(MPI_IN_PLACE, res, 2, mat_type, mul, MPI_COMM_WORLD);
  mat_product(0, size, 0, want);
  check(mat_equal(res, want), "allreduce of matrices in place");
  /* Reduce_scatter_block: rank k gets the product of everybody's matrix k. */
  int *vec = malloc(size * MAT * sizeof *vec), one[MAT] = {-1, -1, -1, -1, -1, -1};
  for (int k = 0; k < size; ++k) mat_of(rank, k, vec + k * MAT);
  MPI_Reduce_scatter_block(vec, one, 1, mat_type, mul, MPI_COMM_WORLD);
  mat_product(0, size, rank, want);
  check(mat_equal(one, want) && one[2] == -1, "reduce_scatter_block of matrices");
  free(vec);
  /* Reduce_local on the type's layout. */
  int a[MAT], b[MAT];
  mat_of(1, 0, a), mat_of(2, 0, b);
  MPI_Reduce_local(a, b, 1, mat_type, mul);
  mat_product(1, 3, 0, want);
  check(mat_equal(b, want), "reduce_local of matrices");

  /* A struct of an int and a double: a commutative user operation, and MPI_SUM element
   * by element; MPI_BAND is not defined on its double (refused before anything moves). */
  MPI_Datatype tt, ttypes[2] = {MPI_INT, MPI_DOUBLE};
  int tlen[2] = {1, 1};
  MPI_Aint tdisp[2] = {offsetof(tally, n), offsetof(tally, max)};
  MPI_Type_create_struct(2, tlen, tdisp, ttypes, &tt);
  MPI_Type_commit(&tt);
  tally t[2] = {{1, rank * 0.5}, {rank, -rank}}, tr[2];
  MPI_Allreduce(t, tr, 2, tt, tal, MPI_COMM_WORLD);
  check(tr[0].n == size && tr[0].max == (size - 1) * 0.5 && tr[1].n == size * (size - 1) / 2 &&
            tr[1].max == 0,
        "tally: %d %g %d %g", tr[0].n, tr[0].max, tr[1].n, tr[1].max);
  MPI_Allreduce(t, tr, 2, tt, MPI_SUM, MPI_COMM_WORLD);
  check(tr[0].n == size && tr[0].max == size * (size - 1) * 0.25, "sum of tallies %d %g", tr[0].n,
        tr[0].max);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Allreduce(t, tr, 2, tt, MPI_BAND, MPI_COMM_WORLD) == MPI_ERR_OP, "BAND on doubles");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&tt);
  MPI_Op_free(&mul);
  MPI_Op_free(&tal);
  MPI_Type_free(&mat_type);
}

/* ---- Intercommunicators ------------------------------------------------------------------- */

/* The even and the odd ranks of the world, joined by an intercommunicator: sizes, groups,
 * point to point addressing the remote group (named and wildcard sources), a separate
 * context for a duplicate, no collectives, and the merge in both orders. */
static void test_intercomm(void) {
  if (size < 2) return;
  const int parity = rank % 2, nmine = (size + 1 - parity) / 2, ntheirs = size - nmine;
  MPI_Comm local, ic;
  MPI_Comm_split(MPI_COMM_WORLD, parity, rank, &local);
  /* Leaders: local rank 0, world ranks 0 and 1. */
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - parity, 33, &ic);
  int flag, n, r, rn;
  MPI_Comm_test_inter(ic, &flag);
  MPI_Comm_size(ic, &n);
  MPI_Comm_rank(ic, &r);
  MPI_Comm_remote_size(ic, &rn);
  check(flag && n == nmine && r == rank / 2 && rn == ntheirs, "intercomm: inter %d size %d rank %d remote %d",
        flag, n, r, rn);
  MPI_Group g, rg, wg;
  MPI_Comm_group(ic, &g);
  MPI_Comm_remote_group(ic, &rg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int *ranks = malloc(size * sizeof *ranks), *w = malloc(size * sizeof *w);
  for (int k = 0; k < size; ++k) ranks[k] = k;
  MPI_Group_translate_ranks(rg, ntheirs, ranks, wg, w);
  for (int k = 0; k < ntheirs; ++k) check(w[k] == 2 * k + 1 - parity, "remote rank %d is world %d", k, w[k]);
  MPI_Group_size(g, &n);
  MPI_Group_rank(g, &r);
  check(n == nmine && r == rank / 2, "local group: size %d rank %d", n, r);
  MPI_Group_free(&g), MPI_Group_free(&rg), MPI_Group_free(&wg);
  /* Local rank i sends its world rank to remote rank i % ntheirs; each receives from the
   * remote ranks j with j % nmine == its local rank, by wildcard source. */
  const int me = rank / 2;
  int expect = 0;
  for (int j = 0; j < ntheirs; ++j) expect += j % nmine == me;
  MPI_Request *q = malloc((expect + 1) * sizeof *q);
  int *got = malloc((expect + 1) * sizeof *got);
  for (int k = 0; k < expect; ++k) MPI_Irecv(&got[k], 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &q[k]);
  MPI_Send(&rank, 1, MPI_INT, me % ntheirs, 5, ic);
  for (int k = 0; k < expect; ++k) {
    MPI_Status st;
    MPI_Wait(&q[k], &st);
    check(st.MPI_SOURCE % nmine == me && got[k] == 2 * st.MPI_SOURCE + 1 - parity,
          "wildcard on the intercommunicator: %d from remote rank %d", got[k], st.MPI_SOURCE);
  }
  /* Probed: the status names the remote rank. */
  MPI_Request pq;
  MPI_Isend(&rank, 1, MPI_INT, me % ntheirs, 7, ic, &pq);
  for (int k = 0; k < expect; ++k) {
    MPI_Status st;
    int v = -1;
    MPI_Probe(MPI_ANY_SOURCE, 7, ic, &st);
    MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 7, ic, MPI_STATUS_IGNORE);
    check(st.MPI_SOURCE % nmine == me && v == 2 * st.MPI_SOURCE + 1 - parity,
          "probe on the intercommunicator: %d from remote rank %d", v, st.MPI_SOURCE);
  }
  MPI_Wait(&pq, MPI_STATUS_IGNORE);
  /* Named: local rank i and remote rank i swap (both groups have them below ntheirs). */
  MPI_Comm dup;
  MPI_Comm_dup(ic, &dup);
  MPI_Comm_test_inter(dup, &flag);
  MPI_Comm_remote_size(dup, &rn);
  check(flag && rn == ntheirs, "dup of the intercommunicator: inter %d remote %d", flag, rn);
  if (me < ntheirs && me < nmine) {
    int a = -1, b = -1, va = rank, vb = rank + 1000;
    MPI_Status st;
    /* The same tag on both: each message stays in its communicator. */
    MPI_Request sq[2];
    MPI_Isend(&va, 1, MPI_INT, me, 6, ic, &sq[0]);
    MPI_Isend(&vb, 1, MPI_INT, me, 6, dup, &sq[1]);
    MPI_Recv(&b, 1, MPI_INT, me, 6, dup, &st);
    MPI_Recv(&a, 1, MPI_INT, me, 6, ic, MPI_STATUS_IGNORE);
    MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
    const int peer = 2 * me + 1 - parity;
    check(a == peer && b == peer + 1000 && st.MPI_SOURCE == me, "named on the intercommunicator: %d %d from %d",
          a, b, st.MPI_SOURCE);
  }
  /* No collectives in MPI-1: refused. */
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  int x = 0, y;
  check(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "collective on an intercommunicator");
  check(MPI_Barrier(ic) == MPI_ERR_COMM, "barrier on an intercommunicator");
  /* MPI-2's split of one (conform.c tests it fully): an intercommunicator again. */
  MPI_Comm split;
  int split_inter = 0;
  check(MPI_Comm_split(ic, 0, 0, &split) == MPI_SUCCESS && split != MPI_COMM_NULL &&
            MPI_Comm_test_inter(split, &split_inter) == MPI_SUCCESS && split_inter,
        "split of an intercommunicator");
  if (split != MPI_COMM_NULL) MPI_Comm_free(&split);
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
  /* Merged: the evens first (high = parity), then the other way round; the same high on
   * both sides puts the group of the lower leader (the evens) first. */
  for (int way = 0; way < 3; ++way) {
    MPI_Comm m;
    const int high = way == 0 ? parity : way == 1 ? !parity : 1;
    MPI_Intercomm_merge(way == 2 ? dup : ic, high, &m);
    MPI_Comm_size(m, &n);
    MPI_Comm_rank(m, &r);
    const int evens_first = way != 1, nevens = (size + 1) / 2, nodds = size / 2;
    const int want = parity == 0 ? (evens_first ? me : nodds + me) : (evens_first ? nevens + me : me);
    check(n == size && r == want, "merge %d: rank %d of %d, not %d", way, r, n, want);
    MPI_Comm_test_inter(m, &flag);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m);
    check(!flag && sum == size * (size - 1) / 2, "merge %d: sum %d", way, sum);
    ring(m, "merged");
    MPI_Comm_free(&m);
  }
  /* An intercommunicator from an intercommunicator: refused. */
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Comm bad;
  check(MPI_Intercomm_create(dup, 0, MPI_COMM_WORLD, 0, 1, &bad) == MPI_ERR_COMM,
        "intercommunicator made from an intercommunicator");
  free(q), free(got), free(ranks), free(w);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
}

/* ---- Attributes and error handlers ---------------------------------------------------------- */

static int deleted;
static int count_delete(MPI_Comm c, int key, void *value, void *extra) {
  (void)c, (void)key, (void)extra;
  deleted += *(int *)value;
  return MPI_SUCCESS;
}

static void test_attrs(void) {
  static int value = 5, other = 7;
  int key, key2, flag;
  MPI_Keyval_create(MPI_DUP_FN, count_delete, &key, 0);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key2, 0);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Attr_put(c, key, &value);
  MPI_Comm_set_attr(c, key2, &other);
  int *got;
  MPI_Attr_get(c, key, &got, &flag);
  check(flag && got == &value, "attribute got back");
  MPI_Comm d;
  MPI_Comm_dup(c, &d); /* key copied (MPI_DUP_FN), key2 not */
  MPI_Comm_get_attr(d, key, &got, &flag);
  check(flag && got == &value, "attribute copied by dup");
  MPI_Comm_get_attr(d, key2, &got, &flag);
  check(!flag, "null copy copied");
  MPI_Attr_put(c, key, &other); /* replaces: deletes the old value */
  check(deleted == 5, "delete on replace: %d", deleted);
  MPI_Comm_free(&c);
  MPI_Comm_free(&d);
  check(deleted == 5 + 7 + 5, "delete at free: %d", deleted);
  int *ub;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  check(flag && *ub >= 32767, "MPI_TAG_UB");
  MPI_Keyval_free(&key);
  MPI_Comm_free_keyval(&key2);
  check(key == MPI_KEYVAL_INVALID, "keyval not invalid");
}

static int handled, handled_code;
static void handler(MPI_Comm *c, int *code, ...) {
  (void)c;
  ++handled;
  handled_code = *code;
}

static void test_errhandler(void) {
  MPI_Errhandler h, got;
  MPI_Comm_create_errhandler(handler, &h);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, h);
  MPI_Comm_get_errhandler(c, &got);
  check(got == h, "handler not set");
  int x = 0;
  const int err = MPI_Send(&x, 1, MPI_INT, size + 5, 0, c);
  check(handled == 1 && handled_code == MPI_ERR_RANK && err == MPI_ERR_RANK,
        "handler called %d times with %d", handled, handled_code);
  MPI_Errhandler_free(&h);
  check(h == MPI_ERRHANDLER_NULL, "handler not freed");
  MPI_Comm_free(&c);
}

/* ---- Topologies ------------------------------------------------------------------------------ */

static void test_topo(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 0}, st;
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart, row, col;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int coords[2];
  MPI_Cart_coords(cart, rank, 2, coords);
  int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
  MPI_Cart_sub(cart, keep_row, &row);
  MPI_Cart_sub(cart, keep_col, &col);
  int r, n, nd;
  MPI_Comm_rank(row, &r);
  MPI_Comm_size(row, &n);
  check(r == coords[1] && n == dims[1], "row: rank %d size %d", r, n);
  MPI_Comm_rank(col, &r);
  MPI_Comm_size(col, &n);
  check(r == coords[0] && n == dims[0], "column: rank %d size %d", r, n);
  MPI_Topo_test(col, &st);
  MPI_Cartdim_get(col, &nd);
  check(st == MPI_CART && nd == 1, "column topology %d dims %d", st, nd);
  int src, dst;
  MPI_Cart_shift(col, 0, 1, &src, &dst);
  check(dst == (coords[0] + 1) % dims[0], "column shift %d", dst);
  /* The column is the PEs coords[1], coords[1] + dims[1], ...: a sum over it. */
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, col);
  check(sum == dims[0] * coords[1] + dims[1] * dims[0] * (dims[0] - 1) / 2, "column sum %d", sum);
  ring(col, "cart_sub");
  int newrank;
  MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank);
  check(newrank == rank, "Cart_map %d", newrank);
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  MPI_Comm_free(&cart);
  /* A graph: a star around node 0 over the first min(size, 4) ranks. */
  const int nodes = size < 4 ? size : 4;
  int index[4], edges[6], e = 0;
  for (int k = 0; k < nodes; ++k) {
    if (k == 0)
      for (int j = 1; j < nodes; ++j) edges[e++] = j;
    else
      edges[e++] = 0;
    index[k] = e;
  }
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, nodes, index, edges, 0, &g);
  check((g == MPI_COMM_NULL) == (rank >= nodes), "graph membership");
  if (g != MPI_COMM_NULL) {
    int nn, ne, cnt, nb[4], gi[4], ge[6];
    MPI_Topo_test(g, &st);
    MPI_Graphdims_get(g, &nn, &ne);
    check(st == MPI_GRAPH && nn == nodes && ne == e, "graph dims %d %d", nn, ne);
    MPI_Graph_get(g, 4, 6, gi, ge);
    check(!memcmp(gi, index, nodes * sizeof *gi) && !memcmp(ge, edges, e * sizeof *ge), "Graph_get");
    MPI_Graph_neighbors_count(g, rank, &cnt);
    MPI_Graph_neighbors(g, rank, 4, nb);
    check(cnt == (rank == 0 ? nodes - 1 : 1) && (rank == 0 || nb[0] == 0), "neighbours of %d", rank);
    MPI_Comm_free(&g);
  }
  MPI_Graph_map(MPI_COMM_WORLD, nodes, index, edges, &newrank);
  check(newrank == (rank < nodes ? rank : MPI_UNDEFINED), "Graph_map %d", newrank);
  MPI_Topo_test(MPI_COMM_WORLD, &st);
  check(st == MPI_UNDEFINED, "world has a topology %d", st);
}

/* ---- Edge cases of the standard ---------------------------------------------------------------- */

static void test_edges(void) {
  MPI_Status st;
  int x = 5;
  /* From MPI_PROC_NULL: at once, source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
  MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  int n;
  MPI_Get_count(&st, MPI_INT, &n);
  check(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0 && x == 5,
        "receive from PROC_NULL: %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
  MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
  MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL, 0,
               MPI_COMM_WORLD, &st);
  check(st.MPI_SOURCE == MPI_PROC_NULL, "sendrecv with PROC_NULL");
  /* Zero counts and NULL buffers. */
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Sendrecv(0, 0, MPI_INT, to, 4, 0, 0, MPI_INT, from, 4, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &n);
  check(n == 0 && st.MPI_SOURCE == from, "zero-count message");
  /* No data with MPI_DATATYPE_NULL (count 0). */
  MPI_Sendrecv(0, 0, MPI_DATATYPE_NULL, to, 6, 0, 0, MPI_DATATYPE_NULL, from, 6, MPI_COMM_WORLD, &st);
  check(st.MPI_SOURCE == from && st.MPI_TAG == 6, "zero count of MPI_DATATYPE_NULL");
  /* A zero-size derived type. */
  MPI_Datatype z;
  MPI_Type_contiguous(0, MPI_INT, &z);
  MPI_Type_commit(&z);
  MPI_Sendrecv(&x, 3, z, to, 5, &x, 3, z, from, 5, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, z, &n);
  check(n == 0, "count of a zero-size type %d", n);
  MPI_Type_free(&z);
  /* Request_free of a NULL request, Wait on MPI_REQUEST_NULL: empty status. */
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Wait(&q, &st);
  check(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "wait on a null request");
  int inter;
  MPI_Comm_test_inter(MPI_COMM_WORLD, &inter);
  check(!inter, "world is an intercommunicator");
  int commute, provided, is_main, vlen, red[2] = {1, 2};
  const int add[2] = {10, 20};
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Op_commutative(MPI_SUM, &commute);
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&is_main);
  MPI_Get_library_version(version, &vlen);
  MPI_Reduce_local(add, red, 2, MPI_INT, MPI_SUM);
  check(commute && provided == MPI_THREAD_SINGLE && is_main && vlen > 0 && red[0] == 11 &&
            red[1] == 22,
        "MPI-2 names: %d %d %d %d %d", commute, provided, is_main, vlen, red[1]);
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  check(!strcmp(name, "MPI_COMM_WORLD") && len == 14, "world's name %s", name);
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_name(d, "mine");
  MPI_Comm_get_name(d, name, &len);
  check(!strcmp(name, "mine"), "set name %s", name);
  MPI_Comm_free(&d);
}

static const named_test tests[] = {
    {"groups", test_groups},   {"split", test_split},     {"types", test_types},
    {"pack", test_pack},       {"bsend", test_bsend},     {"cancel", test_cancel},
    {"cancel_send", test_cancel_send},
    {"testsome", test_testsome}, {"reduce_scatter", test_reduce_scatter},
    {"vcoll", test_vcoll},     {"userops", test_userops},  {"intercomm", test_intercomm},
    {"attrs", test_attrs},     {"errhandler", test_errhandler}, {"topo", test_topo},
    {"edges", test_edges},
};

int main(int argc, char **argv) {
  for (int a = 1; a < argc; ++a) protocol_sync |= !strcmp(argv[a], "-mpi-protocol=sync");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run_named_tests(argc, argv, tests, sizeof tests / sizeof *tests);
  MPI_Finalize();
  return 0;
}
