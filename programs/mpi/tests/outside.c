/* An MPI-1 test written as the classic outside suites are (MPICH's test/mpi, the IBM
 * suite): its own small harness (errors counted per rank, the first few printed, " No
 * Errors" from rank 0 at the end), each test run over communicators made one after
 * another (the world, a duplicate, the ranks reversed, halves, the odd ranks; halves
 * joined by an intercommunicator), only MPI-1 names and the C library. It is not part of
 * the project's build: tests/mpi/test_mpi.py (OutsideSuite) compiles it with
 * scripts/emx-mpicc as a user would, and runs it in every variant.
 *
 *   outside [-mpi-matching=...] [-mpi-protocol=...]   (any number of ranks) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank, wsize;

static void fail(const char *test, const char *what, long got, long want) {
  if (++errs <= 8) printf("[%d] %s: %s: got %ld, expected %ld\n", wrank, test, what, got, want);
}
#define EXPECT(test, what, got, want)                  \
  do {                                                 \
    const long g_ = (long)(got), w_ = (long)(want);    \
    if (g_ != w_) fail(test, what, g_, w_);            \
  } while (0)

/* ---- Communicators to run the tests over --------------------------------------------- */

/* The k-th intracommunicator (0 when there are no more); *name says which. Some ranks
 * get MPI_COMM_NULL and skip it. */
static int get_intracomm(int k, MPI_Comm *comm, const char **name) {
  switch (k) {
    case 0: *comm = MPI_COMM_WORLD, *name = "world"; return 1;
    case 1: MPI_Comm_dup(MPI_COMM_WORLD, comm), *name = "dup"; return 1;
    case 2: MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, comm), *name = "reversed"; return 1;
    case 3: MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize / 2, wrank, comm), *name = "half"; return 1;
    case 4: {
      MPI_Group world, odd;
      int range[1][3] = {{1, wsize - 1, 2}};
      MPI_Comm_group(MPI_COMM_WORLD, &world);
      if (wsize > 1) MPI_Group_range_incl(world, 1, range, &odd);
      else odd = MPI_GROUP_EMPTY;
      MPI_Comm_create(MPI_COMM_WORLD, odd, comm);
      MPI_Group_free(&world);
      if (odd != MPI_GROUP_EMPTY) MPI_Group_free(&odd);
      *name = "odd";
      return 1;
    }
    default: return 0;
  }
}
static void free_comm(MPI_Comm *comm) {
  if (*comm != MPI_COMM_WORLD && *comm != MPI_COMM_NULL) MPI_Comm_free(comm);
}
#define FOR_COMMS(comm, name)                                                 \
  for (int k_ = 0; get_intracomm(k_, &comm, &name); ++k_, free_comm(&comm)) \
    if (comm != MPI_COMM_NULL)

/* ---- Point to point -------------------------------------------------------------------- */

/* Every basic type, several counts, around a ring. */
#define RING_TYPE(T, MT, comm, name)                                                         \
  do {                                                                                       \
    const int counts[4] = {0, 1, 17, 1000};                                                  \
    for (int c = 0; c < 4; ++c) {                                                            \
      const int n = counts[c];                                                               \
      T *out = malloc((n + 1) * sizeof(T)), *in = malloc((n + 1) * sizeof(T));              \
      for (int i = 0; i < n; ++i) out[i] = (T)((rank * 7 + i) % 100), in[i] = (T)0;         \
      MPI_Status st;                                                                         \
      MPI_Sendrecv(out, n, MT, right, c, in, n, MT, left, c, comm, &st);                     \
      int got;                                                                               \
      MPI_Get_count(&st, MT, &got);                                                          \
      EXPECT(name, "count of " #MT, got, n);                                                 \
      EXPECT(name, "source of " #MT, st.MPI_SOURCE, left);                                   \
      for (int i = 0; i < n; ++i)                                                            \
        if (in[i] != (T)((left * 7 + i) % 100)) {                                            \
          fail(name, "element of " #MT, (long)in[i], (left * 7 + i) % 100);                  \
          break;                                                                             \
        }                                                                                    \
      free(out), free(in);                                                                   \
    }                                                                                        \
  } while (0)

static void test_sendrecv(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  RING_TYPE(char, MPI_CHAR, comm, name);
  RING_TYPE(unsigned char, MPI_UNSIGNED_CHAR, comm, name);
  RING_TYPE(short, MPI_SHORT, comm, name);
  RING_TYPE(int, MPI_INT, comm, name);
  RING_TYPE(long, MPI_LONG, comm, name);
  RING_TYPE(float, MPI_FLOAT, comm, name);
  RING_TYPE(double, MPI_DOUBLE, comm, name);
}

/* Rank 0 receives from everybody with MPI_ANY_SOURCE and MPI_ANY_TAG, each sender's tag
 * being its rank; the message size unknown until probed. */
static void test_anyall(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank) {
    int *v = malloc(rank * sizeof *v);
    for (int i = 0; i < rank; ++i) v[i] = rank * 100 + i;
    MPI_Send(v, rank, MPI_INT, 0, rank, comm);
    free(v);
    MPI_Barrier(comm); /* nothing of the next test may meet rank 0's wildcards */
    return;
  }
  char *seen = calloc(size, 1);
  for (int k = 1; k < size; ++k) {
    MPI_Status st;
    int n;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    EXPECT(name, "probed tag", st.MPI_TAG, st.MPI_SOURCE);
    EXPECT(name, "probed count", n, st.MPI_SOURCE);
    int *v = malloc((n + 1) * sizeof *v);
    MPI_Recv(v, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm, &st);
    for (int i = 0; i < n; ++i) EXPECT(name, "anyall value", v[i], st.MPI_SOURCE * 100 + i);
    seen[st.MPI_SOURCE]++;
    free(v);
  }
  for (int k = 1; k < size; ++k) EXPECT(name, "messages from a rank", seen[k], 1);
  free(seen);
  MPI_Barrier(comm);
}

/* Messages to oneself in every mode. */
static void test_self(void) {
  int rank, in[4] = {0}, out[4] = {1, 2, 3, 4};
  MPI_Comm_rank(MPI_COMM_SELF, &rank);
  MPI_Request r;
  MPI_Status st;
  MPI_Isend(out, 4, MPI_INT, 0, 1, MPI_COMM_SELF, &r);
  MPI_Recv(in, 4, MPI_INT, 0, 1, MPI_COMM_SELF, &st);
  MPI_Wait(&r, &st);
  EXPECT("self", "isend", in[3], 4);
  MPI_Irecv(in, 4, MPI_INT, 0, 2, MPI_COMM_SELF, &r);
  MPI_Ssend(out, 3, MPI_INT, 0, 2, MPI_COMM_SELF);
  MPI_Wait(&r, &st);
  int n;
  MPI_Get_count(&st, MPI_INT, &n);
  EXPECT("self", "ssend count", n, 3);
  MPI_Irecv(in, 4, MPI_INT, 0, 3, MPI_COMM_SELF, &r);
  MPI_Rsend(out, 4, MPI_INT, 0, 3, MPI_COMM_SELF);
  MPI_Wait(&r, &st);
  EXPECT("self", "rsend", in[0] + in[1] + in[2] + in[3], 10);
  EXPECT("self", "rank", rank, 0);
}

/* Persistent requests restarted, completed by Waitany and Testall. */
static void test_persistent(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[3], in[3];
  MPI_Request q[4];
  for (int k = 0; k < 3; ++k) MPI_Recv_init(&in[k], 1, MPI_INT, left, k, comm, &q[k]);
  MPI_Send_init(out, 3, MPI_INT, right, 9, comm, &q[3]);
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 3; ++k) out[k] = rank * 10 + round + k, in[k] = -1;
    MPI_Startall(3, q);
    for (int k = 2; k >= 0; --k) MPI_Send(&out[k], 1, MPI_INT, right, k, comm);
    for (int done = 0; done < 3; ++done) {
      int idx;
      MPI_Status st;
      MPI_Waitany(3, q, &idx, &st);
      EXPECT(name, "waitany tag", st.MPI_TAG, idx);
      EXPECT(name, "waitany value", in[idx], left * 10 + round + idx);
    }
    int got[3] = {-1, -1, -1}, flag = 0;
    MPI_Request r;
    MPI_Irecv(got, 3, MPI_INT, left, 9, comm, &r);
    MPI_Start(&q[3]);
    MPI_Request both[2] = {r, q[3]};
    while (!flag) MPI_Testall(2, both, &flag, MPI_STATUSES_IGNORE);
    q[3] = both[1];
    EXPECT(name, "persistent send", got[2], left * 10 + round + 2);
  }
  for (int k = 0; k < 4; ++k) MPI_Request_free(&q[k]);
}

/* Buffered mode: all messages out before any receive. */
static void test_bsend(MPI_Comm comm, const char *name) {
  int rank, size, bsize;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Pack_size(50, MPI_INT, comm, &bsize);
  bsize = 10 * (bsize + MPI_BSEND_OVERHEAD);
  char *buf = malloc(bsize);
  MPI_Buffer_attach(buf, bsize);
  int v[50], in[50];
  for (int m = 0; m < 10; ++m) {
    for (int i = 0; i < 50; ++i) v[i] = rank + m * i;
    MPI_Bsend(v, 50, MPI_INT, right, m, comm);
  }
  for (int m = 9; m >= 0; --m) {
    MPI_Recv(in, 50, MPI_INT, left, m, comm, MPI_STATUS_IGNORE);
    EXPECT(name, "bsend", in[49], left + m * 49);
  }
  void *back;
  MPI_Buffer_detach(&back, &bsize);
  free(back);
}

/* Cancel of a synchronous send nobody receives, and of a receive nobody sends to. */
static void test_cancel(MPI_Comm comm, const char *name) {
  int rank, size, flag, v = 1, x = -1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Request r;
  MPI_Status st;
  MPI_Issend(&v, 1, MPI_INT, (rank + 1) % size, 123, comm, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  int theirs;
  MPI_Sendrecv(&flag, 1, MPI_INT, (rank + 1) % size, 124, &theirs, 1, MPI_INT,
               (rank + size - 1) % size, 124, comm, MPI_STATUS_IGNORE);
  if (!theirs) /* allowed: the cancel failed, so the message must be received */
    MPI_Recv(&x, 1, MPI_INT, (rank + size - 1) % size, 123, comm, MPI_STATUS_IGNORE);
  MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 125, comm, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  EXPECT(name, "receive cancelled", flag, 1);
}

/* ---- Collectives --------------------------------------------------------------------------- */

/* Every predefined operation on the types it is defined for, results computed here. */
#define ALLRED(T, MT, OP, value, expect, name)                                    \
  do {                                                                            \
    T in_[5], out_[5];                                                            \
    for (int i = 0; i < 5; ++i) in_[i] = (T)(value), out_[i] = (T)0;              \
    MPI_Allreduce(in_, out_, 5, MT, OP, comm);                                    \
    for (int i = 0; i < 5; ++i)                                                   \
      if (out_[i] != (T)(expect)) {                                               \
        fail(name, #OP " on " #MT, (long)out_[i], (long)(T)(expect));             \
        break;                                                                    \
      }                                                                           \
  } while (0)
#define ALLRED_ARITH(T, MT, name)                                                    \
  do {                                                                               \
    ALLRED(T, MT, MPI_SUM, rank % 5 + i, sum5 + size * i, name);                     \
    ALLRED(T, MT, MPI_MAX, rank % 5 + i, (size < 5 ? size - 1 : 4) + i, name);       \
    ALLRED(T, MT, MPI_MIN, rank % 5 + i, i, name);                                   \
    ALLRED(T, MT, MPI_PROD, rank < 3 ? 2 : 1, size < 3 ? 1 << size : 8, name);       \
  } while (0)
#define ALLRED_LOGIC(T, MT, name)                                                    \
  do {                                                                               \
    ALLRED(T, MT, MPI_LAND, rank != 1, size < 2, name);                              \
    ALLRED(T, MT, MPI_LOR, rank == size - 1, 1, name);                               \
    ALLRED(T, MT, MPI_LXOR, 1, size % 2, name);                                      \
    ALLRED(T, MT, MPI_BAND, 0x3c | (1 << (rank % 2)), 0x3c | (size < 2 ? 1 : 0), name); \
    ALLRED(T, MT, MPI_BOR, 1 << (rank % 4), (1 << (size < 4 ? size : 4)) - 1, name); \
    ALLRED(T, MT, MPI_BXOR, 3, size % 2 ? 3 : 0, name);                              \
  } while (0)

static void test_allred(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int sum5 = 0;
  for (int r = 0; r < size; ++r) sum5 += r % 5;
  ALLRED_ARITH(int, MPI_INT, name);
  ALLRED_ARITH(long, MPI_LONG, name);
  ALLRED_ARITH(short, MPI_SHORT, name);
  ALLRED_ARITH(unsigned, MPI_UNSIGNED, name);
  ALLRED_ARITH(float, MPI_FLOAT, name);
  ALLRED_ARITH(double, MPI_DOUBLE, name);
  ALLRED_LOGIC(int, MPI_INT, name);
  ALLRED_LOGIC(unsigned char, MPI_UNSIGNED_CHAR, name);
  ALLRED_LOGIC(long, MPI_LONG, name);
  /* MAXLOC and MINLOC: the value peaks at the middle rank. */
  struct { double v; int i; } d = {-(rank - size / 2) * (rank - size / 2), rank}, dr;
  MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  EXPECT(name, "maxloc", dr.i, size / 2);
  struct { int v; int i; } p = {rank % 3, rank}, pr;
  MPI_Allreduce(&p, &pr, 1, MPI_2INT, MPI_MINLOC, comm);
  EXPECT(name, "minloc value", pr.v, 0);
  EXPECT(name, "minloc index", pr.i, 0);
}

/* A non-commutative user operation: 2x2 integer matrices multiplied mod 1000. */
static void matmul(void *a, void *b, int *len, MPI_Datatype *t) {
  int *x = a, *y = b;
  (void)t;
  for (int n = 0; n < *len; ++n, x += 4, y += 4) {
    const int c0 = (x[0] * y[0] + x[1] * y[2]) % 1000, c1 = (x[0] * y[1] + x[1] * y[3]) % 1000;
    const int c2 = (x[2] * y[0] + x[3] * y[2]) % 1000, c3 = (x[2] * y[1] + x[3] * y[3]) % 1000;
    y[0] = c0, y[1] = c1, y[2] = c2, y[3] = c3;
  }
}

static void test_collectives(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Barrier(comm);
  /* Bcast of a struct type from every root. */
  struct rec { int id; double w; char tag[6]; } rec;
  MPI_Datatype rt, parts[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  int lens[3] = {1, 1, 6};
  MPI_Aint base, disp[3];
  MPI_Address(&rec, &base);
  MPI_Address(&rec.id, &disp[0]), MPI_Address(&rec.w, &disp[1]), MPI_Address(rec.tag, &disp[2]);
  for (int k = 0; k < 3; ++k) disp[k] -= base;
  MPI_Type_struct(3, lens, disp, parts, &rt);
  MPI_Type_commit(&rt);
  for (int root = 0; root < size; ++root) {
    memset(&rec, 0, sizeof rec);
    if (rank == root) rec.id = root, rec.w = root / 2.0, strcpy(rec.tag, "root");
    MPI_Bcast(&rec, 1, rt, root, comm);
    EXPECT(name, "bcast id", rec.id, root);
    EXPECT(name, "bcast w", rec.w * 2, root);
    EXPECT(name, "bcast tag", strcmp(rec.tag, "root"), 0);
  }
  MPI_Type_free(&rt);
  /* Gatherv of rank + 1 ints at stride; Scatterv back. */
  int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
  int total = 0;
  for (int r = 0; r < size; ++r) counts[r] = r % 4 + 1, displs[r] = total + r, total += counts[r] + r;
  int *all = malloc((total + 1) * sizeof *all), mine[4], back[4];
  for (int i = 0; i < 4; ++i) mine[i] = rank * 10 + i;
  MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, 0, comm);
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < counts[r]; ++i) EXPECT(name, "gatherv", all[displs[r] + i], r * 10 + i);
  MPI_Scatterv(all, counts, displs, MPI_INT, back, counts[rank], MPI_INT, 0, comm);
  for (int i = 0; i < counts[rank]; ++i) EXPECT(name, "scatterv", back[i], rank * 10 + i);
  /* Alltoallv of a column type: a column of my matrix to each rank. */
  MPI_Datatype col, col1;
  MPI_Type_vector(3, 1, size, MPI_INT, &col);
  MPI_Type_create_resized(col, 0, sizeof(int), &col1);
  MPI_Type_commit(&col1);
  int *m = malloc(3 * size * sizeof *m), *got = malloc(3 * size * sizeof *got);
  int *ones = malloc(size * sizeof *ones), *step = malloc(size * sizeof *step);
  for (int i = 0; i < 3 * size; ++i) m[i] = rank * 1000 + i;
  for (int r = 0; r < size; ++r) ones[r] = 1, step[r] = r;
  MPI_Alltoallv(m, ones, step, col1, got, ones, step, col1, comm); /* column r to rank r */
  for (int r = 0; r < size; ++r)
    for (int y = 0; y < 3; ++y) EXPECT(name, "alltoallv column", got[y * size + r], r * 1000 + y * size + rank);
  MPI_Type_free(&col);
  MPI_Type_free(&col1);
  /* A non-commutative user operation on 4-int matrices: Reduce at every root, Allreduce,
   * Scan, checked against the product in rank order computed here. */
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_INT, &four);
  MPI_Type_commit(&four);
  int a[4] = {1, rank + 1, rank % 2, 1}, prod[4], want[4] = {1, 0, 0, 1};
  for (int r = size - 1; r >= 0; --r) { /* want = A_0 A_1 ... A_{n-1} */
    int ar[4] = {1, r + 1, r % 2, 1}, one = 1;
    MPI_Datatype t = four;
    matmul(ar, want, &one, &t);
  }
  for (int root = 0; root < size; ++root) {
    MPI_Reduce(a, prod, 1, four, op, root, comm);
    if (rank == root) EXPECT(name, "user op reduce", memcmp(prod, want, sizeof want), 0);
  }
  MPI_Allreduce(a, prod, 1, four, op, comm);
  EXPECT(name, "user op allreduce", memcmp(prod, want, sizeof want), 0);
  int scan_want[4] = {1, 0, 0, 1};
  for (int r = rank; r >= 0; --r) {
    int ar[4] = {1, r + 1, r % 2, 1}, one = 1;
    MPI_Datatype t = four;
    matmul(ar, scan_want, &one, &t);
  }
  MPI_Scan(a, prod, 1, four, op, comm);
  EXPECT(name, "user op scan", memcmp(prod, scan_want, sizeof scan_want), 0);
  MPI_Type_free(&four);
  MPI_Op_free(&op);
  int *rs = malloc(total * sizeof *rs), rsout[4];
  int rtotal = 0;
  for (int r = 0; r < size; ++r) rtotal += counts[r];
  for (int i = 0; i < rtotal; ++i) rs[i] = i;
  MPI_Reduce_scatter(rs, rsout, counts, MPI_INT, MPI_SUM, comm);
  int first = 0;
  for (int r = 0; r < rank; ++r) first += counts[r];
  for (int i = 0; i < counts[rank]; ++i) EXPECT(name, "reduce_scatter", rsout[i], (first + i) * size);
  free(rs), free(counts), free(displs), free(all), free(m), free(got), free(ones), free(step);
}

/* ---- Groups, topologies, attributes, errors, datatypes ------------------------------------- */

static void test_groups(void) {
  MPI_Group world, first, rest;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int half = (wsize + 1) / 2, *ranks = malloc(wsize * sizeof *ranks), *out = malloc(wsize * sizeof *out);
  for (int i = 0; i < half; ++i) ranks[i] = i;
  MPI_Group_incl(world, half, ranks, &first);
  MPI_Group_excl(world, half, ranks, &rest);
  int n, r, cmp;
  MPI_Group_size(rest, &n);
  EXPECT("groups", "excl size", n, wsize - half);
  MPI_Group_rank(first, &r);
  EXPECT("groups", "incl rank", r, wrank < half ? wrank : MPI_UNDEFINED);
  for (int i = 0; i < wsize - half; ++i) ranks[i] = i;
  MPI_Group_translate_ranks(rest, wsize - half, ranks, world, out);
  for (int i = 0; i < wsize - half; ++i) EXPECT("groups", "translate", out[i], half + i);
  MPI_Group u;
  MPI_Group_union(rest, first, &u);
  MPI_Group_compare(u, world, &cmp);
  EXPECT("groups", "union compare", cmp, wsize - half ? MPI_SIMILAR : MPI_IDENT);
  MPI_Group_free(&u), MPI_Group_free(&first), MPI_Group_free(&world);
  if (rest != MPI_GROUP_EMPTY) MPI_Group_free(&rest);
  free(ranks), free(out);
}

static void test_topology(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2], src, dst;
  MPI_Dims_create(wsize, 2, dims);
  EXPECT("topology", "dims", dims[0] * dims[1], wsize);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int rank;
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);
  for (int d = 0; d < 2; ++d) {
    MPI_Cart_shift(cart, d, 1, &src, &dst);
    int v = rank, got = -1;
    MPI_Sendrecv(&v, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, cart, MPI_STATUS_IGNORE);
    int c[2] = {coords[0], coords[1]}, want;
    c[d] = (c[d] - 1 + dims[d]) % dims[d];
    MPI_Cart_rank(cart, c, &want);
    EXPECT("topology", "shifted value", got, want);
  }
  int keep[2] = {1, 0}, n;
  MPI_Comm sub;
  MPI_Cart_sub(cart, keep, &sub);
  MPI_Comm_size(sub, &n);
  EXPECT("topology", "sub size", n, dims[0]);
  MPI_Comm_free(&sub);
  MPI_Comm_free(&cart);
  /* A ring as a graph. */
  int *index = malloc(wsize * sizeof *index), *edges = malloc(2 * wsize * sizeof *edges), e = 0;
  for (int r = 0; r < wsize; ++r) {
    edges[e++] = (r + 1) % wsize, edges[e++] = (r + wsize - 1) % wsize;
    index[r] = e;
  }
  MPI_Comm g;
  MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &g);
  int nb[2], cnt, status;
  MPI_Topo_test(g, &status);
  MPI_Graph_neighbors_count(g, wrank, &cnt);
  MPI_Graph_neighbors(g, wrank, 2, nb);
  EXPECT("topology", "graph", status, MPI_GRAPH);
  EXPECT("topology", "neighbours", cnt, 2);
  EXPECT("topology", "neighbour", nb[0], (wrank + 1) % wsize);
  MPI_Comm_free(&g);
  free(index), free(edges);
}

static int copies, deletes;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
  (void)c, (void)key, (void)extra;
  ++copies;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int key, void *value, void *extra) {
  (void)c, (void)key, (void)value, (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static void test_attributes(void) {
  int key, flag;
  static int value = 42;
  MPI_Keyval_create(copy_fn, delete_fn, &key, 0);
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Attr_put(a, key, &value);
  MPI_Comm_dup(a, &b);
  int *got;
  MPI_Attr_get(b, key, &got, &flag);
  EXPECT("attributes", "copied", flag && *got == 42, 1);
  MPI_Attr_delete(a, key);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  EXPECT("attributes", "copies", copies, 1);
  EXPECT("attributes", "deletes", deletes, 2);
  MPI_Keyval_free(&key);
  int *ub;
  MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  EXPECT("attributes", "tag_ub", flag && *ub >= 32767, 1);
}

static void test_errors(void) {
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int v = 0, cls, len;
  const int err = MPI_Send(&v, 1, MPI_INT, wsize, 0, MPI_COMM_WORLD);
  MPI_Error_class(err, &cls);
  EXPECT("errors", "class", cls, MPI_ERR_RANK);
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_string(err, text, &len);
  EXPECT("errors", "string", len > 0, 1);
  EXPECT("errors", "bad tag", MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD) != MPI_SUCCESS, 1);
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_datatypes(void) {
  /* An int with MPI_LB and MPI_UB around it: extent 12; three of them in a row. */
  MPI_Datatype t, parts[3] = {MPI_LB, MPI_INT, MPI_UB};
  int lens[3] = {1, 1, 1}, sz;
  MPI_Aint disp[3] = {0, 4, 12}, ext, lb;
  MPI_Type_struct(3, lens, disp, parts, &t);
  MPI_Type_commit(&t);
  MPI_Type_extent(t, &ext);
  MPI_Type_lb(t, &lb);
  MPI_Type_size(t, &sz);
  EXPECT("datatypes", "extent", ext, 12);
  EXPECT("datatypes", "lb", lb, 0);
  EXPECT("datatypes", "size", sz, 4);
  int a[9], b[3] = {0}, pos = 0, n;
  char packed[64];
  for (int i = 0; i < 9; ++i) a[i] = i;
  MPI_Pack(a, 3, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
  EXPECT("datatypes", "packed size", pos, 12);
  pos = 0;
  MPI_Unpack(packed, 12, &pos, b, 3, MPI_INT, MPI_COMM_WORLD);
  EXPECT("datatypes", "unpacked", b[0] + b[1] + b[2], 1 + 4 + 7);
  MPI_Status st;
  MPI_Sendrecv(a, 3, t, wrank, 7, b, 3, MPI_INT, wrank, 7, MPI_COMM_WORLD, &st);
  MPI_Get_elements(&st, MPI_INT, &n);
  EXPECT("datatypes", "elements", n, 3);
  EXPECT("datatypes", "through a message", b[2], 7);
  MPI_Type_free(&t);
  /* hvector and hindexed. */
  MPI_Datatype hv, hi;
  MPI_Type_hvector(2, 2, 5 * sizeof(int), MPI_INT, &hv);
  int hlen[2] = {1, 2};
  MPI_Aint hd[2] = {8 * sizeof(int), 0};
  MPI_Type_hindexed(2, hlen, hd, MPI_INT, &hi);
  MPI_Type_commit(&hv), MPI_Type_commit(&hi);
  int c[4];
  MPI_Sendrecv(a, 1, hv, wrank, 8, c, 4, MPI_INT, wrank, 8, MPI_COMM_WORLD, &st);
  EXPECT("datatypes", "hvector", c[0] * 1000 + c[1] * 100 + c[2] * 10 + c[3], 156);
  MPI_Sendrecv(a, 1, hi, wrank, 9, c, 3, MPI_INT, wrank, 9, MPI_COMM_WORLD, &st);
  EXPECT("datatypes", "hindexed", c[0] * 100 + c[1] * 10 + c[2], 801);
  MPI_Type_free(&hv), MPI_Type_free(&hi);
  /* Absolute addresses from MPI_BOTTOM: an int and a double that are not neighbours. */
  static int iv;
  static double dv;
  MPI_Datatype abs_t, at[2] = {MPI_INT, MPI_DOUBLE};
  int al[2] = {1, 1};
  MPI_Aint ad[2];
  MPI_Address(&iv, &ad[0]);
  MPI_Address(&dv, &ad[1]);
  MPI_Type_struct(2, al, ad, at, &abs_t);
  MPI_Type_commit(&abs_t);
  iv = wrank + 5, dv = wrank + 0.25;
  struct { int i; double d; } pair = {0, 0};
  MPI_Datatype pt, pts[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Aint pd[2] = {0, (char *)&pair.d - (char *)&pair};
  MPI_Type_struct(2, al, pd, pts, &pt);
  MPI_Type_commit(&pt);
  MPI_Sendrecv(MPI_BOTTOM, 1, abs_t, wrank, 10, &pair, 1, pt, wrank, 10, MPI_COMM_WORLD, &st);
  EXPECT("datatypes", "MPI_BOTTOM int", pair.i, wrank + 5);
  EXPECT("datatypes", "MPI_BOTTOM double", pair.d * 4, wrank * 4 + 1);
  MPI_Type_free(&abs_t), MPI_Type_free(&pt);
}

/* ---- Intercommunicators ----------------------------------------------------------------------- */

static void test_intercomm(void) {
  if (wsize < 2) return;
  const int low = wrank < wsize / 2;
  MPI_Comm local, ic, merged;
  MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? wsize / 2 : 0, 99, &ic);
  int rank, size, rsize, flag;
  MPI_Comm_rank(ic, &rank);
  MPI_Comm_size(ic, &size);
  MPI_Comm_remote_size(ic, &rsize);
  MPI_Comm_test_inter(ic, &flag);
  EXPECT("intercomm", "test_inter", flag, 1);
  EXPECT("intercomm", "sizes", size + rsize, wsize);
  /* Everybody sends to remote rank 0; remote rank 0 of each side receives them all (not
   * a blocking send: rank 0 of each side would wait for the other's). */
  MPI_Request sr;
  MPI_Isend(&wrank, 1, MPI_INT, 0, 1, ic, &sr);
  if (rank == 0) {
    int sum = 0, v;
    for (int k = 0; k < rsize; ++k) {
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, ic, &st);
      EXPECT("intercomm", "source", v, low ? wsize / 2 + st.MPI_SOURCE : st.MPI_SOURCE);
      sum += v;
    }
    EXPECT("intercomm", "sum", sum, low ? (wsize - 1) * wsize / 2 - (wsize / 2 - 1) * (wsize / 2) / 2
                                        : (wsize / 2 - 1) * (wsize / 2) / 2);
  }
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Comm icdup;
  int cmp;
  MPI_Comm_dup(ic, &icdup);
  MPI_Comm_compare(ic, icdup, &cmp);
  EXPECT("intercomm", "compare with its duplicate", cmp, MPI_CONGRUENT);
  MPI_Comm_compare(ic, local, &cmp);
  EXPECT("intercomm", "compare with an intracommunicator", cmp, MPI_UNEQUAL);
  MPI_Comm_free(&icdup);
  MPI_Intercomm_merge(ic, !low, &merged);
  int mrank, total;
  MPI_Comm_rank(merged, &mrank);
  EXPECT("intercomm", "merged rank", mrank, wrank);
  MPI_Allreduce(&wrank, &total, 1, MPI_INT, MPI_SUM, merged);
  EXPECT("intercomm", "merged sum", total, wsize * (wsize - 1) / 2);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&ic);
  MPI_Comm_free(&local);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm comm;
  const char *name;
  FOR_COMMS(comm, name) {
    test_sendrecv(comm, name);
    test_anyall(comm, name);
    test_persistent(comm, name);
    test_bsend(comm, name);
    test_cancel(comm, name);
    test_allred(comm, name);
    test_collectives(comm, name);
  }
  test_self();
  test_groups();
  test_topology();
  test_attributes();
  test_errors();
  test_datatypes();
  test_intercomm();
  int all;
  MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) {
    if (all) printf(" Found %d errors\n", all);
    else printf(" No Errors\n");
  }
  MPI_Finalize();
  return 0;
}
