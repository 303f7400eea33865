/* Conformance of MPI-EMX with the MPI-1.3 and MPI-2.2 texts where outside test suites
 * found it wrong or limited: each test checks what the standard's text says, on every
 * rank, in whatever variant the options choose.
 *
 *   mpi_t_conform [TEST...] [-mpi-matching=...] [-mpi-protocol=...]
 *   mpi_t_conform fatal-keyval     (MPI_Keyval_free of a bad key: the fatal message)
 *
 * Prints "NAME: ok" on rank 0 for each test (all of them without arguments). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

static int next_rank(void) { return (rank + 1) % size; }
static int prev_rank(void) { return (rank + size - 1) % size; }

/* ---- Pair types (MPI-1 4.9.3): size counts the data, extent includes the padding --------- */

typedef struct {
  double v;
  int i;
} double_int;
typedef struct {
  short v;
  int i;
} short_int;
typedef struct {
  float v;
  int i;
} float_int;
typedef struct {
  long double v;
  int i;
} ldouble_int;

static void check_shape(MPI_Datatype t, const char *name, int size_, MPI_Aint extent,
                        MPI_Aint true_extent) {
  int s;
  MPI_Aint lb, ext, tlb, text, ub;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  MPI_Type_ub(t, &ub);
  check(s == size_ && lb == 0 && ext == extent && ub == extent && tlb == 0 &&
            text == true_extent,
        "%s: size %d extent %ld lb %ld ub %ld true extent %ld (want %d, %ld, 0, %ld, %ld)",
        name, s, (long)ext, (long)lb, (long)ub, (long)text, size_, (long)extent, (long)extent,
        (long)true_extent);
}

static void test_pairs(void) {
  check_shape(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12, sizeof(double_int), 12);
  check_shape(MPI_SHORT_INT, "MPI_SHORT_INT", 6, sizeof(short_int), 8);
  check_shape(MPI_FLOAT_INT, "MPI_FLOAT_INT", 8, sizeof(float_int), 8);
  check_shape(MPI_2INT, "MPI_2INT", 8, 8, 8);
  check_shape(MPI_LONG_INT, "MPI_LONG_INT", 8, 8, 8);
  check_shape(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 20, sizeof(ldouble_int), 20);
  /* A struct built like the pair has its shape. */
  MPI_Datatype like;
  int len[2] = {1, 1};
  MPI_Aint disp[2] = {offsetof(double_int, v), offsetof(double_int, i)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_struct(2, len, disp, types, &like);
  MPI_Type_commit(&like);
  check_shape(like, "struct {double, int}", 12, sizeof(double_int), 12);
  /* {double, int, double, int} (no padding inside) received as 2 MPI_DOUBLE_INT. */
  MPI_Datatype four;
  int len4[4] = {1, 1, 1, 1};
  MPI_Aint disp4[4] = {0, 8, 12, 20};
  MPI_Datatype types4[4] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(4, len4, disp4, types4, &four);
  MPI_Type_commit(&four);
  char packed[24];
  const double a = 1.5 + rank, b = -2.25 - rank;
  const int ia = 10 * rank + 1, ib = 10 * rank + 2;
  memcpy(packed, &a, 8), memcpy(packed + 8, &ia, 4);
  memcpy(packed + 12, &b, 8), memcpy(packed + 20, &ib, 4);
  double_int got[3];
  memset(got, 0x5a, sizeof got);
  MPI_Status st;
  MPI_Sendrecv(packed, 1, four, next_rank(), 1, got, 2, MPI_DOUBLE_INT, prev_rank(), 1,
               MPI_COMM_WORLD, &st);
  const int p = prev_rank();
  check(got[0].v == 1.5 + p && got[0].i == 10 * p + 1 && got[1].v == -2.25 - p &&
            got[1].i == 10 * p + 2,
        "struct as 2 MPI_DOUBLE_INT: %g %d %g %d", got[0].v, got[0].i, got[1].v, got[1].i);
  unsigned char untouched[sizeof got[2]];
  memset(untouched, 0x5a, sizeof untouched);
  check(!memcmp(&got[2], untouched, sizeof untouched), "a third pair written");
  int count, elements;
  MPI_Get_count(&st, MPI_DOUBLE_INT, &count);
  MPI_Get_elements(&st, MPI_DOUBLE_INT, &elements);
  check(count == 2 && elements == 4, "Get_count %d Get_elements %d (want 2, 4)", count, elements);
  MPI_Get_count(&st, four, &count);
  MPI_Get_elements(&st, four, &elements);
  check(count == 1 && elements == 4, "as the struct: count %d elements %d", count, elements);
  /* Arrays of padded pairs both ways, and a partial one. */
  short_int s[5], r[5];
  for (int k = 0; k < 5; ++k) s[k] = (short_int){(short)(rank * 7 + k), rank * 100 + k};
  memset(r, 0x77, sizeof r);
  MPI_Sendrecv(s, 4, MPI_SHORT_INT, next_rank(), 2, r, 5, MPI_SHORT_INT, prev_rank(), 2,
               MPI_COMM_WORLD, &st);
  int ok = 1;
  for (int k = 0; k < 4; ++k) ok &= r[k].v == (short)(p * 7 + k) && r[k].i == p * 100 + k;
  MPI_Get_count(&st, MPI_SHORT_INT, &count);
  MPI_Get_elements(&st, MPI_SHORT_INT, &elements);
  check(ok && count == 4 && elements == 8, "MPI_SHORT_INT array: count %d elements %d", count,
        elements);
  /* MAXLOC / MINLOC on the padded pairs, contiguous in the user's array. */
  double_int in[2] = {{(double)(rank % 3), rank}, {-(double)rank, rank}}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  const int best = size < 3 ? size - 1 : 2;
  check(out[0].v == (double)(best % 3) && out[0].i == best && out[1].v == 0 && out[1].i == 0,
        "MAXLOC on MPI_DOUBLE_INT: %g@%d %g@%d", out[0].v, out[0].i, out[1].v, out[1].i);
  short_int sin_ = {(short)(rank == size - 1 ? -5 : rank), rank}, sout;
  MPI_Allreduce(&sin_, &sout, 1, MPI_SHORT_INT, MPI_MINLOC, MPI_COMM_WORLD);
  check(sout.v == -5 && sout.i == size - 1, "MINLOC on MPI_SHORT_INT: %d@%d",
        sout.v, sout.i);
  MPI_Type_free(&like);
  MPI_Type_free(&four);
}

/* ---- MPI_Sendrecv_replace with a strided type (MPI-1 3.10) ------------------------------ */

static void test_replace(void) {
  MPI_Datatype column;
  MPI_Type_vector(5, 2, 3, MPI_INT, &column); /* 2 of every 3 ints, 5 times */
  MPI_Type_commit(&column);
  int buf[2 * 15];
  for (int k = 0; k < 30; ++k) buf[k] = rank * 1000 + k;
  MPI_Status st;
  MPI_Sendrecv_replace(buf, 2, column, next_rank(), 3, prev_rank(), 3, MPI_COMM_WORLD, &st);
  /* Two copies: extent 14 ints (the second starts at 14); ints 28, 29 beyond them. */
  int bad = -1;
  for (int at = 0; at < 30; ++at) {
    const int in_type = at < 28 && at % 14 % 3 != 2;
    const int want = (in_type ? prev_rank() : rank) * 1000 + at;
    if (buf[at] != want && bad < 0) bad = at;
  }
  check(bad < 0, "Sendrecv_replace with a vector: int %d is %d", bad, bad < 0 ? 0 : buf[bad]);
  int count;
  MPI_Get_count(&st, column, &count);
  check(count == 2 && st.MPI_SOURCE == prev_rank(), "Sendrecv_replace status: count %d from %d",
        count, st.MPI_SOURCE);
  MPI_Type_free(&column);
}

/* ---- A buffer sized as MPI-1 3.6.1 prescribes is large enough ---------------------------- */

static void test_bsend_size(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  enum { N = 9 };
  int total = 0, sizes[N], packs[N];
  for (int k = 0; k < N; ++k) {
    sizes[k] = k * 5 + 1; /* 1, 6, 11 ... chars: never whole words */
    MPI_Pack_size(sizes[k], MPI_CHAR, MPI_COMM_WORLD, &packs[k]);
    total += packs[k] + MPI_BSEND_OVERHEAD;
  }
  /* A struct of a char and a double (padded) too. */
  MPI_Datatype cd;
  int len[2] = {1, 1};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
  MPI_Type_struct(2, len, disp, types, &cd);
  MPI_Type_commit(&cd);
  int cd_pack;
  MPI_Pack_size(3, cd, MPI_COMM_WORLD, &cd_pack);
  total += cd_pack + MPI_BSEND_OVERHEAD;
  /* The buffer starts one byte past a word: its start is not aligned either. */
  char *raw = malloc(total + 1), *buffer = raw + 1;
  check(MPI_Buffer_attach(buffer, total) == MPI_SUCCESS, "attach");
  char data[N][64];
  for (int k = 0; k < N; ++k) {
    memset(data[k], 'a' + k, sizeof data[k]);
    const int err = MPI_Bsend(data[k], sizes[k], MPI_CHAR, next_rank(), 4 + k, MPI_COMM_WORLD);
    check(err == MPI_SUCCESS, "Bsend %d of %d chars (buffer of %d): error %d", k, sizes[k], total,
          err);
  }
  struct {
    char c;
    double d;
  } cds[3] = {{'x', 1.0}, {'y', 2.0}, {'z', 3.0}}, cdr[3];
  check(MPI_Bsend(cds, 3, cd, next_rank(), 20, MPI_COMM_WORLD) == MPI_SUCCESS, "Bsend struct");
  for (int k = 0; k < N; ++k) {
    char in[64];
    memset(in, 0, sizeof in);
    MPI_Recv(in, 64, MPI_CHAR, prev_rank(), 4 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int ok = in[sizes[k]] == 0;
    for (int j = 0; j < sizes[k]; ++j) ok &= in[j] == 'a' + k;
    check(ok, "buffered message %d", k);
  }
  MPI_Recv(cdr, 3, cd, prev_rank(), 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(cdr[2].c == 'z' && cdr[2].d == 3.0, "buffered struct");
  void *back;
  int back_size;
  MPI_Buffer_detach(&back, &back_size);
  check(back == buffer && back_size == total, "detach gave %p, %d", back, back_size);
  free(raw);
  MPI_Type_free(&cd);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- Context ids are used again (MPI-1 5.4.3: freed communicators) ----------------------- */

static void test_contexts(void) {
  /* A communicator kept through it all: its messages never meet the new ones'. */
  MPI_Comm kept;
  MPI_Comm_dup(MPI_COMM_WORLD, &kept);
  /* More creations than there are ids, each freed: on MPI_COMM_SELF (no messages), then
   * across the ranks, which must agree on ids free on all of them. */
  int failed = 0;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  for (int k = 0; k < 17000 && !failed; ++k) {
    MPI_Comm c;
    failed = MPI_Comm_dup(MPI_COMM_SELF, &c) || MPI_Comm_free(&c);
  }
  check(!failed, "Comm_dup/Comm_free of MPI_COMM_SELF failed after many");
  for (int k = 0; k < 4; ++k) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c);
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    /* A message on each: the wildcard receive on `kept` must get kept's. */
    int a = 100 + rank, b = 200 + rank, x = -1, y = -1;
    MPI_Request q[2];
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, kept, &q[0]);
    MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &q[1]);
    MPI_Send(&b, 1, MPI_INT, (r + 1) % n, 7, c);
    MPI_Send(&a, 1, MPI_INT, next_rank(), 7, kept);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    MPI_Group g, wg;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int prev_in_c = (r + n - 1) % n, world_prev;
    MPI_Group_translate_ranks(g, 1, &prev_in_c, wg, &world_prev);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    check(x == 100 + prev_rank() && y == 200 + world_prev, "round %d: kept got %d, new got %d", k,
          x, y);
    MPI_Comm_free(&c);
  }
  MPI_Comm_free(&kept);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* ---- Waitany/Testany/Waitsome/Testsome of nothing (MPI-1 3.7.5) -------------------------- */

static void test_none_active(void) {
  MPI_Request nulls[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  for (int n = 0; n <= 3; n += 3) {
    int index = 4472, flag = -1, outcount = 100, indices[3];
    MPI_Status st;
    st.MPI_ERROR = 99;
    int err = MPI_Waitany(n, nulls, &index, &st);
    check(err == MPI_SUCCESS && index == MPI_UNDEFINED, "Waitany(%d): %d, index %d", n, err, index);
    index = 4472;
    err = MPI_Testany(n, nulls, &index, &flag, &st);
    check(err == MPI_SUCCESS && index == MPI_UNDEFINED && flag == 1,
          "Testany(%d): %d, index %d, flag %d", n, err, index, flag);
    err = MPI_Waitsome(n, nulls, &outcount, indices, MPI_STATUSES_IGNORE);
    check(err == MPI_SUCCESS && outcount == MPI_UNDEFINED, "Waitsome(%d): %d, outcount %d", n, err,
          outcount);
    outcount = 100;
    err = MPI_Testsome(n, nulls, &outcount, indices, MPI_STATUSES_IGNORE);
    check(err == MPI_SUCCESS && outcount == MPI_UNDEFINED, "Testsome(%d): %d, outcount %d", n, err,
          outcount);
    flag = -1;
    err = MPI_Testall(n, nulls, &flag, MPI_STATUSES_IGNORE);
    check(err == MPI_SUCCESS && flag == 1, "Testall(%d): %d, flag %d", n, err, flag);
    check(MPI_Waitall(n, nulls, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall(%d)", n);
  }
  /* An inactive persistent request counts as null. */
  int v = 0;
  MPI_Request p;
  MPI_Recv_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &p);
  int index = 7;
  check(MPI_Waitany(1, &p, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS && index == MPI_UNDEFINED,
        "Waitany of an inactive persistent request: index %d", index);
  MPI_Request_free(&p);
}

/* ---- Zero blocks, and a duplicate of a committed type (MPI-1 3.12, MPI-2 8.4) ------------ */

static void test_zero_types(void) {
  MPI_Datatype none, dup_int, dup_none;
  check(MPI_Type_struct(0, NULL, NULL, NULL, &none) == MPI_SUCCESS, "Type_struct of 0 blocks");
  check(MPI_Type_create_struct(0, NULL, NULL, NULL, &dup_none) == MPI_SUCCESS,
        "Type_create_struct of 0 blocks");
  MPI_Type_free(&dup_none);
  int s;
  MPI_Aint lb, ext;
  MPI_Type_size(none, &s);
  MPI_Type_get_extent(none, &lb, &ext);
  check(s == 0 && lb == 0 && ext == 0, "empty struct: size %d lb %ld extent %ld", s, (long)lb,
        (long)ext);
  MPI_Type_commit(&none);
  int x = 5;
  MPI_Status st;
  MPI_Sendrecv(&x, 3, none, next_rank(), 8, &x, 3, none, prev_rank(), 8, MPI_COMM_WORLD, &st);
  int count;
  MPI_Get_count(&st, none, &count);
  check(x == 5 && count == 0, "empty struct message: count %d", count);
  MPI_Datatype zero_vec;
  check(MPI_Type_vector(0, 4, 9, MPI_INT, &zero_vec) == MPI_SUCCESS, "vector of 0 blocks");
  MPI_Type_free(&zero_vec);
  /* Type_dup of a basic type is committed: usable at once. */
  MPI_Type_dup(MPI_INT, &dup_int);
  int y = -1, z = 40 + rank;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int err = MPI_Sendrecv(&z, 1, dup_int, next_rank(), 9, &y, 1, dup_int, prev_rank(), 9,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(err == MPI_SUCCESS && y == 40 + prev_rank(), "Type_dup(MPI_INT): error %d, got %d", err, y);
  /* ... and of an uncommitted derived type is not. */
  MPI_Datatype pair, dup_pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_dup(pair, &dup_pair);
  check(MPI_Send(&z, 1, dup_pair, next_rank(), 9, MPI_COMM_WORLD) == MPI_ERR_TYPE,
        "a duplicate of an uncommitted type was used");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&pair);
  MPI_Type_free(&dup_pair);
  MPI_Type_free(&dup_int);
  MPI_Type_free(&none);
}

/* ---- MPI_Dims_create: as close to each other as possible (MPI-1 6.5.2) -------------------- */

static void dims_case(int nodes, int nd, const int *given, const int *want) {
  int d[40];
  for (int k = 0; k < nd; ++k) d[k] = given ? given[k] : 0;
  const int err = MPI_Dims_create(nodes, nd, d);
  int ok = err == MPI_SUCCESS;
  for (int k = 0; k < nd; ++k) ok &= d[k] == want[k];
  check(ok, "Dims_create(%d, %d): error %d, %d x %d x %d ...", nodes, nd, err, d[0],
        nd > 1 ? d[1] : 0, nd > 2 ? d[2] : 0);
}

static void test_dims(void) {
  dims_case(72, 2, 0, (int[]){9, 8});
  dims_case(540, 2, 0, (int[]){27, 20});
  dims_case(24, 3, 0, (int[]){4, 3, 2});
  dims_case(6, 4, 0, (int[]){3, 2, 1, 1});
  dims_case(1, 2, 0, (int[]){1, 1});
  dims_case(7, 2, 0, (int[]){7, 1});
  dims_case(64, 3, 0, (int[]){4, 4, 4});
  dims_case(36, 3, (int[]){0, 3, 0}, (int[]){4, 3, 3});
  dims_case(80, 2, 0, (int[]){10, 8});
  int seventeen[17];
  for (int k = 0; k < 17; ++k) seventeen[k] = 2;
  dims_case(1 << 17, 17, 0, seventeen);
  int thirty[30];
  for (int k = 0; k < 30; ++k) thirty[k] = k < 2 ? 3 : 1;
  dims_case(9, 30, 0, thirty);
  /* A Cartesian grid of 17 dimensions, the first the ranks, the others 1. */
  int cd[17], per[17] = {0};
  for (int k = 0; k < 17; ++k) cd[k] = k ? 1 : size;
  MPI_Comm cart;
  check(MPI_Cart_create(MPI_COMM_WORLD, 17, cd, per, 0, &cart) == MPI_SUCCESS, "17-d grid");
  int nd;
  MPI_Cartdim_get(cart, &nd);
  check(nd == 17, "Cartdim_get: %d", nd);
  MPI_Comm_free(&cart);
}

/* ---- Errors name the call made (MPI-1 and MPI-2 names of one function) -------------------- */

static int last_error;
static char last_text[MPI_MAX_ERROR_STRING];
static void record_error(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  last_error = *code;
}

static void test_error_names(void) {
  MPI_Errhandler h;
  MPI_Comm_create_errhandler(record_error, &h);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, h);
  int bad = 12345;
  last_error = 0;
  MPI_Keyval_free(&bad);
  check(last_error == MPI_ERR_KEYVAL, "Keyval_free of a bad key: %d", last_error);
  bad = 12345;
  last_error = 0;
  MPI_Comm_free_keyval(&bad);
  check(last_error == MPI_ERR_KEYVAL, "Comm_free_keyval of a bad key: %d", last_error);
  last_error = 0;
  int len;
  check(MPI_Error_string(-5, last_text, &len) == MPI_ERR_ARG && last_error == MPI_ERR_ARG,
        "Error_string(-5) succeeded");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&h);
}

/* ---- Every (operation, predefined type) pair MPI-1 4.9.2 defines ------------------------- */

enum { OPS = 12 };
static const MPI_Op all_ops[OPS] = {MPI_MAX, MPI_MIN,  MPI_SUM, MPI_PROD, MPI_LAND,   MPI_LOR,
                                    MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
static const char *const op_names[OPS] = {"MAX", "MIN",  "SUM", "PROD", "LAND",   "LOR",
                                          "LXOR", "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC"};
/* Which groups of operations a type belongs to: integer, floating, byte. */
enum { G_INT = 1, G_FLOAT = 2, G_BYTE = 4, G_PAIR = 8 };
static int defined_on(int op, int group) {
  if (op <= 3) return group & (G_INT | G_FLOAT);    /* MAX MIN SUM PROD */
  if (op <= 6) return group & G_INT;                /* logical */
  if (op <= 9) return group & (G_INT | G_BYTE);     /* bitwise */
  return group & G_PAIR;                            /* MAXLOC MINLOC */
}

/* Expected v[0] op v[1] op ... over the ranks for a C type (commutative operations in
 * rank order), each rank contributing (rank + 1) * (k + 1) + k for element k. */
#define REDUCE_TYPE(T, MT, GROUP, NAME)                                                        \
  static void reduce_##NAME(void) {                                                            \
    for (int o = 0; o < OPS; ++o) {                                                            \
      if (o >= 10) continue;                                                                   \
      T in[3], out[3], want[3];                                                                \
      for (int k = 0; k < 3; ++k) in[k] = (T)((rank + 1) * (k + 1) + k);                       \
      const int def = defined_on(o, GROUP) != 0;                                               \
      const int err = MPI_Allreduce(in, out, 3, MT, all_ops[o], MPI_COMM_WORLD);               \
      if (!def) {                                                                              \
        check(err == MPI_ERR_OP, "%s on %s: error %d, not MPI_ERR_OP", op_names[o], #MT, err);  \
        continue;                                                                              \
      }                                                                                        \
      for (int k = 0; k < 3; ++k) {                                                            \
        T acc = (T)(1 * (k + 1) + k);                                                          \
        for (int r = 1; r < size; ++r) {                                                       \
          const T x = (T)((r + 1) * (k + 1) + k);                                              \
          switch (o) {                                                                         \
            case 0: acc = x > acc ? x : acc; break;                                            \
            case 1: acc = x < acc ? x : acc; break;                                            \
            case 2: acc = (T)(acc + x); break;                                                 \
            case 3: acc = (T)(acc * x); break;                                                 \
            case 4: acc = (T)(acc && x); break;                                                \
            case 5: acc = (T)(acc || x); break;                                                \
            case 6: acc = (T)(!acc != !x); break;                                              \
            default: acc = bitwise_##NAME(o, acc, x); break;                                   \
          }                                                                                    \
        }                                                                                      \
        want[k] = acc;                                                                         \
      }                                                                                        \
      check(err == MPI_SUCCESS && !memcmp(out, want, sizeof out), "%s on %s: error %d",       \
            op_names[o], #MT, err);                                                            \
    }                                                                                          \
  }
#define BITWISE(T, NAME)                                                                       \
  static T bitwise_##NAME(int o, T a, T b) {                                                   \
    return (T)(o == 7 ? a & b : o == 8 ? a | b : a ^ b);                                       \
  }
#define NO_BITWISE(T, NAME)                                                                    \
  static T bitwise_##NAME(int o, T a, T b) {                                                   \
    (void)o, (void)b;                                                                          \
    return a;                                                                                  \
  }

BITWISE(int, int)
REDUCE_TYPE(int, MPI_INT, G_INT, int)
BITWISE(long, long)
REDUCE_TYPE(long, MPI_LONG, G_INT, long)
BITWISE(short, short)
REDUCE_TYPE(short, MPI_SHORT, G_INT, short)
BITWISE(unsigned short, ushort)
REDUCE_TYPE(unsigned short, MPI_UNSIGNED_SHORT, G_INT, ushort)
BITWISE(unsigned, unsigned)
REDUCE_TYPE(unsigned, MPI_UNSIGNED, G_INT, unsigned)
BITWISE(unsigned long, ulong)
REDUCE_TYPE(unsigned long, MPI_UNSIGNED_LONG, G_INT, ulong)
BITWISE(long long, llong)
REDUCE_TYPE(long long, MPI_LONG_LONG, G_INT, llong)
BITWISE(unsigned long long, ullong)
REDUCE_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, G_INT, ullong)
BITWISE(signed char, schar)
REDUCE_TYPE(signed char, MPI_SIGNED_CHAR, G_INT, schar)
BITWISE(unsigned char, uchar)
REDUCE_TYPE(unsigned char, MPI_UNSIGNED_CHAR, G_INT, uchar)
BITWISE(unsigned char, byte)
REDUCE_TYPE(unsigned char, MPI_BYTE, G_BYTE, byte)
NO_BITWISE(float, float)
REDUCE_TYPE(float, MPI_FLOAT, G_FLOAT, float)
NO_BITWISE(double, double)
REDUCE_TYPE(double, MPI_DOUBLE, G_FLOAT, double)
NO_BITWISE(long double, ldouble)
REDUCE_TYPE(long double, MPI_LONG_DOUBLE, G_FLOAT, ldouble)

/* MAXLOC and MINLOC on every pair type; the other operations refused. */
#define REDUCE_PAIR(S, MT, NAME)                                                               \
  static void reduce_##NAME(void) {                                                            \
    for (int o = 0; o < OPS; ++o) {                                                            \
      S in[2], out[2];                                                                         \
      /* Value: a peak at the middle rank, equal values at the ends (smallest index wins). */  \
      in[0].v = (rank == size / 2) ? 50 : (rank == 0 || rank == size - 1) ? 1 : 7;             \
      in[0].i = rank;                                                                          \
      in[1].v = 3, in[1].i = size - rank;                                                      \
      const int err = MPI_Allreduce(in, out, 2, MT, all_ops[o], MPI_COMM_WORLD);               \
      if (o < 10) {                                                                            \
        check(err == MPI_ERR_OP, "%s on %s: error %d", op_names[o], #MT, err);                 \
        continue;                                                                              \
      }                                                                                        \
      const int max = o == 10;                                                                 \
      const int want_v = max || size == 1 ? 50 : 1, want_i = max ? size / 2 : 0;               \
      check(err == MPI_SUCCESS && out[0].v == want_v && out[0].i == want_i &&                  \
                out[1].v == 3 && out[1].i == 1,                                                \
            "%s on %s: error %d, %d@%d %d@%d", op_names[o], #MT, err, (int)out[0].v,           \
            out[0].i, (int)out[1].v, out[1].i);                                                \
    }                                                                                          \
  }
typedef struct {
  int v, i;
} int_int;
typedef struct {
  long v;
  int i;
} long_int;
REDUCE_PAIR(int_int, MPI_2INT, pair_2int)
REDUCE_PAIR(long_int, MPI_LONG_INT, pair_long)
REDUCE_PAIR(short_int, MPI_SHORT_INT, pair_short)
REDUCE_PAIR(float_int, MPI_FLOAT_INT, pair_float)
REDUCE_PAIR(double_int, MPI_DOUBLE_INT, pair_double)
REDUCE_PAIR(ldouble_int, MPI_LONG_DOUBLE_INT, pair_ldouble)

static void test_op_table(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  reduce_int(), reduce_long(), reduce_short(), reduce_ushort(), reduce_unsigned();
  reduce_ulong(), reduce_llong(), reduce_ullong(), reduce_schar(), reduce_uchar();
  reduce_byte(), reduce_float(), reduce_double(), reduce_ldouble();
  reduce_pair_2int(), reduce_pair_long(), reduce_pair_short(), reduce_pair_float();
  reduce_pair_double(), reduce_pair_ldouble();
  /* Long double arithmetic is exact where it must be: 1 + 2^-100 survives a sum. */
  long double tiny = rank == 0 ? 1.0L : 0x1p-100L, sum;
  MPI_Allreduce(&tiny, &sum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  check(size == 1 || sum == 1.0L + (size - 1) * 0x1p-100L, "long double sum lost its precision");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- Tags up to MPI_TAG_UB (MPI-1 3.2.3: at least 32767; here what requests carry) ------- */

static void test_tags(void) {
  int *ub, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  check(flag && *ub == 65534, "MPI_TAG_UB is %d", flag ? *ub : -1);
  const int tags[] = {0, 32767, 32768, 40000, 65533, 65534};
  for (unsigned k = 0; k < sizeof tags / sizeof *tags; ++k) {
    int got = -1;
    MPI_Status st;
    const int me = rank * 10 + (int)k;
    MPI_Sendrecv(&me, 1, MPI_INT, next_rank(), tags[k], &got, 1, MPI_INT, prev_rank(), tags[k],
                 MPI_COMM_WORLD, &st);
    check(got == prev_rank() * 10 + (int)k && st.MPI_TAG == tags[k], "tag %d: got %d, tag %d",
          tags[k], got, st.MPI_TAG);
    /* With MPI_ANY_TAG and a probe, the status names the tag. */
    MPI_Request q;
    MPI_Isend(&me, 1, MPI_INT, next_rank(), tags[k], MPI_COMM_WORLD, &q);
    MPI_Probe(prev_rank(), MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    check(st.MPI_TAG == tags[k], "probe of tag %d: %d", tags[k], st.MPI_TAG);
    MPI_Recv(&got, 1, MPI_INT, prev_rank(), MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    check(st.MPI_TAG == tags[k], "any-tag receive of tag %d: %d", tags[k], st.MPI_TAG);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int v = 0;
  check(MPI_Send(&v, 1, MPI_INT, next_rank(), 65535, MPI_COMM_WORLD) == MPI_ERR_TAG,
        "tag 65535 accepted");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- Intercommunicators: split, create, attributes, probes (MPI-2 7.2, 6.7) ---------------- */

/* The world ranks of comm's remote group (inter) in its rank order. */
static int remote_world_ranks(MPI_Comm inter, int *out) {
  MPI_Group g, wg;
  int n;
  MPI_Comm_remote_group(inter, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_size(g, &n);
  int *ranks = malloc(n * sizeof *ranks);
  for (int k = 0; k < n; ++k) ranks[k] = k;
  MPI_Group_translate_ranks(g, n, ranks, wg, out);
  free(ranks);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  return n;
}

/* One message from every local rank to remote rank (r % remote size), received by probe. */
static void inter_messages(MPI_Comm inter, const char *what) {
  int r, n, rn;
  MPI_Comm_rank(inter, &r);
  MPI_Comm_size(inter, &n);
  MPI_Comm_remote_size(inter, &rn);
  const int v = 1000 + rank;
  MPI_Request q;
  MPI_Isend(&v, 1, MPI_INT, r % rn, 11, inter, &q);
  /* From the remote ranks whose r % n is mine. */
  for (int s = 0; s < rn; ++s) {
    if (s % n != r) continue;
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, 11, inter, &st);
    int got = -1, count;
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 11, inter, MPI_STATUS_IGNORE);
    int world[64];
    remote_world_ranks(inter, world);
    check(count == 1 && got == 1000 + world[st.MPI_SOURCE], "%s: got %d from remote %d", what, got,
          st.MPI_SOURCE);
  }
  int flag = 1;
  MPI_Iprobe(MPI_ANY_SOURCE, 12, inter, &flag, MPI_STATUS_IGNORE);
  check(!flag, "%s: Iprobe found a message never sent", what);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
}

static int copies;
static int count_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
  (void)c, (void)key, (void)extra;
  ++copies;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void test_intercomm2(void) {
  if (size < 2) return;
  const int half = size / 2, in_a = rank < half;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? half : 0, 30, &inter);
  int lr;
  MPI_Comm_rank(local, &lr);
  inter_messages(inter, "intercommunicator");
  /* Attributes on it, copied by Comm_dup. */
  int key, *got, flag;
  static int value = 77;
  MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, 0);
  check(MPI_Comm_set_attr(inter, key, &value) == MPI_SUCCESS, "set_attr on an intercommunicator");
  MPI_Comm_get_attr(inter, key, &got, &flag);
  check(flag && got == &value, "get_attr on an intercommunicator");
  MPI_Comm dup;
  copies = 0;
  MPI_Comm_dup(inter, &dup);
  MPI_Comm_get_attr(dup, key, &got, &flag);
  check(copies == 1 && flag && got == &value, "attribute copied to the duplicate: %d", copies);
  MPI_Comm_delete_attr(dup, key);
  MPI_Comm_get_attr(dup, key, &got, &flag);
  check(!flag, "attribute deleted");
  int *tag_ub;
  MPI_Comm_get_attr(inter, MPI_TAG_UB, &tag_ub, &flag);
  check(flag && *tag_ub == 65534, "MPI_TAG_UB on an intercommunicator");
  MPI_Comm_free(&dup);
  MPI_Comm_free_keyval(&key);
  /* Comm_split: colors by local rank parity, keys reverse the local order. */
  MPI_Comm sp;
  check(MPI_Comm_split(inter, lr % 2, -lr, &sp) == MPI_SUCCESS, "Comm_split of an intercomm");
  const int a_size = half, b_size = size - half, mine = lr % 2;
  const int a_has = mine < a_size, b_has = mine < b_size; /* a member of the color on a side */
  if (!a_has || !b_has) {
    check(sp == MPI_COMM_NULL, "split: a color on one side only gave a communicator");
  } else {
    int inter_flag = 0, n, r, world[64];
    MPI_Comm_test_inter(sp, &inter_flag);
    MPI_Comm_size(sp, &n);
    MPI_Comm_rank(sp, &r);
    const int local_n = ((in_a ? a_size : b_size) - mine + 1) / 2;
    const int rn = remote_world_ranks(sp, world);
    const int other_base = in_a ? half : 0, other_n = in_a ? b_size : a_size;
    int ok = inter_flag && n == local_n && r == local_n - 1 - lr / 2;
    int k = 0;
    for (int q = other_n - 1; q >= 0; --q) /* reversed: key -rank */
      if (q % 2 == mine) ok &= k < rn && world[k++] == other_base + q;
    check(ok && k == rn, "split: inter %d, %d of %d, remote %d", inter_flag, r, n, rn);
    inter_messages(sp, "split");
    MPI_Comm_free(&sp);
  }
  /* Comm_create with the even local ranks of each side. */
  MPI_Group lg, even;
  MPI_Comm_group(inter, &lg);
  int range[1][3] = {{0, (in_a ? a_size : b_size) - 1, 2}};
  MPI_Group_range_incl(lg, 1, range, &even);
  MPI_Comm cr;
  check(MPI_Comm_create(inter, even, &cr) == MPI_SUCCESS, "Comm_create of an intercomm");
  check((cr == MPI_COMM_NULL) == (lr % 2 == 1), "Comm_create: null on rank %d", lr);
  if (cr != MPI_COMM_NULL) {
    int rn;
    MPI_Comm_remote_size(cr, &rn);
    check(rn == ((in_a ? b_size : a_size) + 1) / 2, "Comm_create: remote size %d", rn);
    inter_messages(cr, "create");
    MPI_Comm_free(&cr);
  }
  MPI_Group_free(&even);
  MPI_Group_free(&lg);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

/* ---- Large blocks in 4 MiB per PE: collectives take little scratch ------------------------ */

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int k = 0; k < *len; ++k) b[k] += a[k];
}
/* b = a - 2b: not commutative; over ranks 0..n-1 from the right. */
static void sub_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int k = 0; k < *len; ++k) b[k] = a[k] - 2 * b[k];
}

static void test_memory(void) {
  enum { BIG = 1536 * 1024 / 4 }; /* 1.5 MB of ints */
  int *in = malloc(BIG * sizeof *in), *out = malloc(BIG * sizeof *out);
  check(in && out, "no memory for the test's own buffers");
  if (!in || !out) return;
  for (int k = 0; k < BIG; ++k) in[k] = rank + k;
  MPI_Op add, sub;
  MPI_Op_create(add_ints, 1, &add);
  MPI_Op_create(sub_ints, 0, &sub);
  const int root = size - 1;
  MPI_Reduce(in, out, BIG, MPI_INT, add, root, MPI_COMM_WORLD);
  int bad = -1;
  const int sum_ranks = size * (size - 1) / 2;
  for (int k = 0; k < BIG && rank == root; ++k)
    if (out[k] != sum_ranks + size * k && bad < 0) bad = k;
  check(bad < 0, "1.5 MB Reduce with a user operation: element %d", bad);
  MPI_Allreduce(in, out, BIG, MPI_INT, sub, MPI_COMM_WORLD);
  bad = -1;
  for (int k = 0; k < BIG; k += 4099) {
    int want = size - 1 + k; /* from the right: r op (r+1 op ...) */
    for (int r = size - 2; r >= 0; --r) want = (r + k) - 2 * want;
    if (out[k] != want && bad < 0) bad = k;
  }
  check(bad < 0, "1.5 MB Allreduce, non-commutative: element %d", bad);
  MPI_Scan(in, out, BIG, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(out[BIG - 1] == (rank + 1) * (BIG - 1) + rank * (rank + 1) / 2, "1.5 MB Scan");
  /* A 1.5 MB broadcast from every root in turn. */
  for (int r = 0; r < size && r < 3; ++r) {
    for (int k = 0; k < BIG; ++k) out[k] = rank == r ? 3 * k + r : -1;
    MPI_Bcast(out, BIG, MPI_INT, r, MPI_COMM_WORLD);
    bad = -1;
    for (int k = 0; k < BIG; k += 1021)
      if (out[k] != 3 * k + r && bad < 0) bad = k;
    check(bad < 0, "1.5 MB Bcast from %d: element %d", r, bad);
  }
  /* Gather of what fits at the root beside its own buffers. */
  const int per = BIG / size;
  MPI_Gather(in, per, MPI_INT, out, per, MPI_INT, 0, MPI_COMM_WORLD);
  bad = -1;
  for (int r = 0; r < size && rank == 0; ++r)
    if (out[r * per + per - 1] != r + per - 1 && bad < 0) bad = r;
  check(bad < 0, "Gather of %d ints each: block of rank %d", per, bad);
  MPI_Op_free(&add);
  MPI_Op_free(&sub);
  free(in);
  free(out);
}

/* ---- Progress: a message that has arrived is seen by the first probe or test ---------------- */

/* Every rank sends to the next and computes; then one Iprobe, one Test must see what
 * arrived meanwhile (MPI allows them to miss it; users and test suites expect it). */
static void test_progress(void) {
  if (size < 2) return;
  const int sizes[] = {4, 4000, 24000};
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
    const int n = sizes[k];
    char *out = malloc(n), *in = malloc(n), *in2 = malloc(n);
    memset(out, rank + 1, n);
    MPI_Request pre, s, s2;
    /* A receive posted before the sender sends, tested after the computation. */
    MPI_Irecv(in2, n, MPI_CHAR, prev_rank(), 41, MPI_COMM_WORLD, &pre);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(out, n, MPI_CHAR, next_rank(), 40, MPI_COMM_WORLD, &s);
    MPI_Isend(out, n, MPI_CHAR, next_rank(), 41, MPI_COMM_WORLD, &s2);
    spin(400000); /* long enough for everything to arrive */
    int flag = 0, tflag = 0;
    MPI_Status st;
    MPI_Iprobe(prev_rank(), 40, MPI_COMM_WORLD, &flag, &st);
    MPI_Test(&pre, &tflag, MPI_STATUS_IGNORE);
    check(flag, "%d bytes: the first Iprobe missed a message that had arrived", n);
    check(tflag, "%d bytes: the first Test missed a receive completed meanwhile", n);
    MPI_Recv(in, n, MPI_CHAR, prev_rank(), 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!tflag) MPI_Wait(&pre, MPI_STATUS_IGNORE);
    check(in[n - 1] == prev_rank() + 1 && in2[0] == prev_rank() + 1, "%d bytes: data", n);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&s2, MPI_STATUS_IGNORE);
    free(out), free(in), free(in2);
  }
}

/* ---- Cancel of a send whose data moved but nobody received (MPI-1 3.8) ------------------- */

static int protocol_sync;

static void test_cancel_moved(void) {
  if (size < 2) return;
  const int sizes[] = {4, 4000};
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
    const int n = sizes[k];
    char *out = malloc(n), *in = malloc(n);
    memset(out, 'a' + rank, n);
    MPI_Request q;
    MPI_Status st;
    int flag = 0, cancelled;
    /* Unmatched: its data at the receiver (get read it, buffered wrote it), the send
     * complete; the cancel withdraws it there. (Sync: the send waits for its receive;
     * its cancel is mpi1's cancel_send.) */
    if (!protocol_sync) {
      MPI_Isend(out, n, MPI_CHAR, next_rank(), 95, MPI_COMM_WORLD, &q);
      for (int spins = 0; !flag && spins < 100000; ++spins)
        MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
      check(flag, "%d bytes: the send never completed", n);
      MPI_Cancel(&q);
      MPI_Wait(&q, &st);
      MPI_Test_cancelled(&st, &cancelled);
      check(cancelled, "%d bytes: a complete, unmatched send was not cancelled", n);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Iprobe(prev_rank(), 95, MPI_COMM_WORLD, &flag, &st);
      check(!flag, "%d bytes: the cancelled send can be probed", n);
      /* The next message on the tag is the next one received. */
      out[0] = 'z';
      MPI_Sendrecv(out, n, MPI_CHAR, next_rank(), 95, in, n, MPI_CHAR, prev_rank(), 95,
                   MPI_COMM_WORLD, &st);
      check(in[0] == 'z' && in[n - 1] == 'a' + prev_rank(), "%d bytes: after the cancel: %c", n,
            in[0]);
    }
    /* Received before the cancel: it fails, in every variant. */
    MPI_Isend(out, n, MPI_CHAR, next_rank(), 96, MPI_COMM_WORLD, &q);
    MPI_Recv(in, n, MPI_CHAR, prev_rank(), 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Cancel(&q);
    MPI_Wait(&q, &st);
    MPI_Test_cancelled(&st, &cancelled);
    check(!cancelled, "%d bytes: a received send was cancelled", n);
    /* Cancelled, then freed before the answer: nothing arrives, nothing leaks. */
    if (!protocol_sync) {
      MPI_Isend(out, n, MPI_CHAR, next_rank(), 97, MPI_COMM_WORLD, &q);
      flag = 0;
      for (int spins = 0; !flag && spins < 100000; ++spins)
        MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
      MPI_Cancel(&q);
      MPI_Request_free(&q);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Iprobe(prev_rank(), 97, MPI_COMM_WORLD, &flag, &st);
      check(!flag, "%d bytes: a freed cancelled send arrived", n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(out), free(in);
  }
}

/* ---- The tests ---------------------------------------------------------------------------- */

static const named_test tests[] = {
    {"pairs", test_pairs},         {"replace", test_replace},   {"bsend_size", test_bsend_size},
    {"contexts", test_contexts},   {"none_active", test_none_active},
    {"zero_types", test_zero_types}, {"dims", test_dims},       {"error_names", test_error_names},
    {"op_table", test_op_table},   {"tags", test_tags},         {"intercomm2", test_intercomm2},
    {"memory", test_memory},       {"progress", test_progress},
    {"cancel_moved", test_cancel_moved},
};

int main(int argc, char **argv) {
  for (int a = 1; a < argc; ++a) protocol_sync |= !strcmp(argv[a], "-mpi-protocol=sync");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc == 2 && !strcmp(argv[1], "fatal-keyval")) {
    int bad = 999;
    MPI_Keyval_free(&bad);
  }
  run_named_tests(argc, argv, tests, sizeof tests / sizeof *tests);
  MPI_Finalize();
  return 0;
}
