/* Collective tests of MPI-EMX: every collective, every root, several counts, on
 * MPI_COMM_WORLD, on a duplicate, and on a smaller Cartesian communicator (the ranks
 * beyond it check that they are left out).
 *
 *   mpi_t_coll [MAXCOUNT [ALLROOTS]] [-mpi-matching=...] [-mpi-protocol=...]
 *
 * Prints "world: ok", "dup: ok", "subset: ok" on rank 0. Counts: 0, 1, 7 and MAXCOUNT
 * (default 300). Every rank is a root in turn on up to ALLROOTS ranks (default 16); on
 * more, the first, second, middle and last. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int counts[4] = {0, 1, 7, 300};
static int all_roots = 16;

/* The roots to try on a communicator of n ranks: the next after `root`, or n when done. */
static int next_root(int root, int n) {
  if (n <= all_roots) return root + 1;
  const int pick[] = {0, 1, n / 2, n - 1};
  for (int k = 0; k < 4; ++k)
    if (pick[k] > root) return pick[k];
  return n;
}
#define FOR_ROOTS(root, n) for (int root = 0; root < (n); root = next_root(root, (n)))

/* The value rank r contributes at element i (small, so sums stay exact in doubles). */
static int val(int r, int i) { return (r * 7 + i * 3) % 23 - 5; }

typedef struct {
  MPI_Comm comm;
  int rank, size;
  const char *name;
} comm_t;

static void test_barrier(comm_t c) {
  /* Nobody leaves before everybody has arrived: a value written before the barrier by
   * every rank is visible after it, through messages nobody waits for in between. */
  for (int k = 0; k < 5; ++k) MPI_Barrier(c.comm);
  check(1, "barrier");
}

static void test_bcast(comm_t c) {
  FOR_ROOTS(root, c.size)
    for (int ci = 0; ci < 4; ++ci) {
      const int n = counts[ci];
      int *b = malloc((n + 1) * sizeof *b);
      for (int i = 0; i < n; ++i) b[i] = c.rank == root ? val(root, i) : -999;
      MPI_Bcast(b, n, MPI_INT, root, c.comm);
      for (int i = 0; i < n; ++i)
        if (!check(b[i] == val(root, i), "%s bcast root %d count %d: [%d] = %d", c.name, root, n, i, b[i]))
          break;
      free(b);
    }
  double d = c.rank == 0 ? 2.5 : 0;
  MPI_Bcast(&d, 1, MPI_DOUBLE, 0, c.comm);
  check(d == 2.5, "%s bcast double", c.name);
}

static void test_reduce(comm_t c) {
  FOR_ROOTS(root, c.size)
    for (int ci = 0; ci < 4; ++ci) {
      const int n = counts[ci];
      int *in = malloc((n + 1) * sizeof *in), *out = malloc((n + 1) * sizeof *out);
      double *din = malloc((n + 1) * sizeof *din), *dout = malloc((n + 1) * sizeof *dout);
      for (int i = 0; i < n; ++i) in[i] = val(c.rank, i), din[i] = val(c.rank, i) * 0.5;
      static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
      for (int o = 0; o < 4; ++o) {
        MPI_Reduce(in, out, n, MPI_INT, ops[o], root, c.comm);
        MPI_Reduce(din, dout, n, MPI_DOUBLE, ops[o], root, c.comm);
        if (c.rank != root) continue;
        for (int i = 0; i < n; ++i) {
          long long want = ops[o] == MPI_PROD ? 1 : ops[o] == MPI_SUM ? 0 : val(0, i);
          double dwant = ops[o] == MPI_PROD ? 1 : ops[o] == MPI_SUM ? 0 : val(0, i) * 0.5;
          for (int r = 0; r < c.size; ++r) {
            const int v = val(r, i);
            if (ops[o] == MPI_SUM) want += v, dwant += v * 0.5;
            if (ops[o] == MPI_PROD) want *= v, dwant *= v * 0.5;
            if (ops[o] == MPI_MAX && v > want) want = v, dwant = v * 0.5;
            if (ops[o] == MPI_MIN && v < want) want = v, dwant = v * 0.5;
          }
          const int ok_int = ops[o] == MPI_PROD ? out[i] == (int)want : out[i] == want;
          if (!check(ok_int && (ops[o] == MPI_PROD || dout[i] == dwant),
                     "%s reduce op %d root %d count %d: [%d] = %d / %g", c.name, o, root, n, i,
                     out[i], dout[i]))
            break;
        }
      }
      free(in), free(out), free(din), free(dout);
    }
  /* MAXLOC on (value, rank) pairs; in place at the root. */
  struct {
    double v;
    int i;
  } p = {(double)((c.rank * 5) % 7), c.rank}, q;
  MPI_Reduce(&p, &q, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, c.comm);
  if (c.rank == 0) {
    int best = 0;
    for (int r = 1; r < c.size; ++r)
      if ((r * 5) % 7 > (best * 5) % 7) best = r;
    check(q.i == best && q.v == (best * 5) % 7, "%s maxloc: %g at %d, want %d", c.name, q.v, q.i, best);
  }
  int x = c.rank + 1;
  if (c.rank == 0) MPI_Reduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, 0, c.comm);
  else MPI_Reduce(&x, 0, 1, MPI_INT, MPI_SUM, 0, c.comm);
  if (c.rank == 0) check(x == c.size * (c.size + 1) / 2, "%s reduce in place: %d", c.name, x);
}

/* A user operation that is not commutative: keeps the left operand's first element and
 * concatenates counts, so the result shows the order of combination. */
static void first_of(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  int *a = in, *b = inout;
  for (int k = 0; k < *len; ++k) b[k] = a[k] * 100 + b[k] % 100;
}

static void test_allreduce(comm_t c) {
  for (int ci = 0; ci < 4; ++ci) {
    const int n = counts[ci];
    float *in = malloc((n + 1) * sizeof *in), *out = malloc((n + 1) * sizeof *out);
    for (int i = 0; i < n; ++i) in[i] = (float)val(c.rank, i);
    MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, c.comm);
    for (int i = 0; i < n; ++i) {
      float want = 0;
      for (int r = 0; r < c.size; ++r) want += (float)val(r, i);
      if (!check(out[i] == want, "%s allreduce count %d: [%d] = %g, want %g", c.name, n, i, out[i], want))
        break;
    }
    free(in), free(out);
  }
  long long big = (long long)c.rank << 33;
  MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_LONG_LONG, MPI_BOR, c.comm);
  long long want = 0;
  for (int r = 0; r < c.size; ++r) want |= (long long)r << 33;
  check(big == want, "%s allreduce BOR long long in place", c.name);
  MPI_Op op;
  MPI_Op_create(first_of, 0, &op);
  int v = c.rank + 1, w;
  MPI_Allreduce(&v, &w, 1, MPI_INT, op, c.comm);
  /* 1 op (2 op (... op n)) with a op b = a*100 + b%100 is 100 + n%100 in rank order (and
   * n*100 + 1 the other way round). */
  const int want_w = c.size == 1 ? 1 : 100 + c.size % 100;
  check(w == want_w, "%s non-commutative allreduce %d, want %d", c.name, w, want_w);
  MPI_Op_free(&op);
}

static void test_scan(comm_t c) {
  int v = c.rank + 1, inc = 0, exc = -7;
  MPI_Scan(&v, &inc, 1, MPI_INT, MPI_SUM, c.comm);
  MPI_Exscan(&v, &exc, 1, MPI_INT, MPI_SUM, c.comm);
  check(inc == (c.rank + 1) * (c.rank + 2) / 2, "%s scan %d", c.name, inc);
  check(c.rank == 0 || exc == c.rank * (c.rank + 1) / 2, "%s exscan %d", c.name, exc);
}

static void test_gather_scatter(comm_t c) {
  FOR_ROOTS(root, c.size)
    for (int ci = 0; ci < 4; ++ci) {
      const int n = counts[ci];
      int *mine = malloc((n + 1) * sizeof *mine), *all = malloc((n * c.size + 1) * sizeof *all);
      for (int i = 0; i < n; ++i) mine[i] = val(c.rank, i);
      MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root, c.comm);
      if (c.rank == root)
        for (int r = 0; r < c.size; ++r)
          for (int i = 0; i < n; ++i)
            if (!check(all[r * n + i] == val(r, i), "%s gather root %d count %d", c.name, root, n)) r = c.size, i = n;
      /* Scatter back something else. */
      if (c.rank == root)
        for (int k = 0; k < n * c.size; ++k) all[k] = -k;
      MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root, c.comm);
      for (int i = 0; i < n; ++i)
        if (!check(mine[i] == -(c.rank * n + i), "%s scatter root %d count %d", c.name, root, n)) break;
      /* Allgather and in-place forms. */
      for (int i = 0; i < n; ++i) mine[i] = val(c.rank, i) + root;
      MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, c.comm);
      for (int r = 0; r < c.size; ++r)
        for (int i = 0; i < n; ++i)
          if (!check(all[r * n + i] == val(r, i) + root, "%s allgather count %d", c.name, n)) r = c.size, i = n;
      for (int i = 0; i < n; ++i) all[c.rank * n + i] = val(c.rank, i) - root;
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT, c.comm);
      for (int r = 0; r < c.size; ++r)
        for (int i = 0; i < n; ++i)
          if (!check(all[r * n + i] == val(r, i) - root, "%s allgather in place count %d", c.name, n)) r = c.size, i = n;
      free(mine), free(all);
    }
}

static void test_vector_forms(comm_t c) {
  /* Rank r has r % 4 + 1 elements; blocks laid out with gaps of 2. */
  int *cnt = malloc(c.size * sizeof *cnt), *dsp = malloc(c.size * sizeof *dsp);
  int total = 0;
  for (int r = 0; r < c.size; ++r) cnt[r] = r % 4 + 1, dsp[r] = total, total += cnt[r] + 2;
  int *buf = malloc(total * sizeof *buf), mine[4];
  FOR_ROOTS(root, c.size) {
    for (int i = 0; i < cnt[c.rank]; ++i) mine[i] = val(c.rank, i) + root;
    for (int k = 0; k < total; ++k) buf[k] = 12345;
    MPI_Gatherv(mine, cnt[c.rank], MPI_INT, buf, cnt, dsp, MPI_INT, root, c.comm);
    if (c.rank == root)
      for (int r = 0; r < c.size; ++r) {
        for (int i = 0; i < cnt[r]; ++i) check(buf[dsp[r] + i] == val(r, i) + root, "%s gatherv", c.name);
        check(buf[dsp[r] + cnt[r]] == 12345, "%s gatherv wrote a gap", c.name);
      }
    if (c.rank == root)
      for (int k = 0; k < total; ++k) buf[k] = 3 * k;
    MPI_Scatterv(buf, cnt, dsp, MPI_INT, mine, cnt[c.rank], MPI_INT, root, c.comm);
    for (int i = 0; i < cnt[c.rank]; ++i) check(mine[i] == 3 * (dsp[c.rank] + i), "%s scatterv", c.name);
  }
  for (int k = 0; k < total; ++k) buf[k] = 12345;
  for (int i = 0; i < cnt[c.rank]; ++i) mine[i] = val(c.rank, i) * 2;
  MPI_Allgatherv(mine, cnt[c.rank], MPI_INT, buf, cnt, dsp, MPI_INT, c.comm);
  for (int r = 0; r < c.size; ++r) {
    for (int i = 0; i < cnt[r]; ++i) check(buf[dsp[r] + i] == val(r, i) * 2, "%s allgatherv", c.name);
    check(buf[dsp[r] + cnt[r]] == 12345, "%s allgatherv wrote a gap", c.name);
  }
  free(cnt), free(dsp), free(buf);
}

static void test_alltoall(comm_t c) {
  for (int ci = 0; ci < 4; ++ci) {
    const int n = counts[ci] > 64 ? 64 : counts[ci];
    int *out = malloc((n * c.size + 1) * sizeof *out), *in = malloc((n * c.size + 1) * sizeof *in);
    for (int r = 0; r < c.size; ++r)
      for (int i = 0; i < n; ++i) out[r * n + i] = c.rank * 1000 + r * 10 + i;
    MPI_Alltoall(out, n, MPI_INT, in, n, MPI_INT, c.comm);
    for (int r = 0; r < c.size; ++r)
      for (int i = 0; i < n; ++i)
        if (!check(in[r * n + i] == r * 1000 + c.rank * 10 + i, "%s alltoall count %d", c.name, n)) r = c.size, i = n;
    free(out), free(in);
  }
  /* Alltoallv: rank s sends (s + d) % 3 elements to rank d. */
  int *sc = malloc(c.size * sizeof(int)), *sd = malloc(c.size * sizeof(int));
  int *rc = malloc(c.size * sizeof(int)), *rd = malloc(c.size * sizeof(int));
  int st = 0, rt = 0;
  for (int r = 0; r < c.size; ++r) {
    sc[r] = (c.rank + r) % 3, sd[r] = st, st += sc[r] + 1;
    rc[r] = (r + c.rank) % 3, rd[r] = rt, rt += rc[r];
  }
  int *out = malloc((st + 1) * sizeof(int)), *in = malloc((rt + 1) * sizeof(int));
  for (int r = 0; r < c.size; ++r)
    for (int i = 0; i < sc[r]; ++i) out[sd[r] + i] = c.rank * 100 + r * 3 + i;
  MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, c.comm);
  for (int r = 0; r < c.size; ++r)
    for (int i = 0; i < rc[r]; ++i) check(in[rd[r] + i] == r * 100 + c.rank * 3 + i, "%s alltoallv", c.name);
  free(sc), free(sd), free(rc), free(rd), free(out), free(in);
}

static void run_all(comm_t c) {
  test_barrier(c);
  test_bcast(c);
  test_reduce(c);
  test_allreduce(c);
  test_scan(c);
  test_gather_scatter(c);
  test_vector_forms(c);
  test_alltoall(c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1) counts[3] = atoi(argv[1]);
  if (argc > 2) all_roots = atoi(argv[2]);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run_all((comm_t){MPI_COMM_WORLD, rank, size, "world"});
  report("world");
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  run_all((comm_t){dup, rank, size, "dup"});
  MPI_Comm_free(&dup);
  report("dup");
  /* A line of size - 1 ranks (or 1): the last rank is outside. */
  const int line = size > 1 ? size - 1 : 1, periods = 0;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &line, &periods, 0, &cart);
  if (rank < line) {
    int r, n;
    MPI_Comm_rank(cart, &r);
    MPI_Comm_size(cart, &n);
    check(r == rank && n == line, "cart rank %d size %d", r, n);
    run_all((comm_t){cart, r, n, "cart"});
    MPI_Comm_free(&cart);
  } else {
    check(cart == MPI_COMM_NULL, "a rank outside the grid got a communicator");
  }
  report("subset");
  /* Any PEs in any order: the even and the odd ranks, each in reverse (Comm_split). */
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
  {
    int r, n;
    MPI_Comm_rank(split, &r);
    MPI_Comm_size(split, &n);
    check(n == (size + (rank % 2 ? 0 : 1)) / 2 && r == n - 1 - rank / 2, "split rank %d size %d",
          r, n);
    run_all((comm_t){split, r, n, "split"});
    MPI_Comm_free(&split);
  }
  report("split");
  MPI_Finalize();
  return 0;
}
