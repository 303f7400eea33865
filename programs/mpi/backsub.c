/* Back substitution Ux = b, the MPI paper's Table 3 experiment (docs/experiments/mpi.md,
 * "Back substitution"): an ordinary MPI program, single precision (the PE's FP is RV32F).
 *
 *   mpi_backsub [normal|advance|seq] [yield|noyield] [N] [BLOCK]      (2000, 25)
 *
 * Rows are distributed block-cyclic: block k (rows k*BLOCK ..) belongs to rank k mod P.
 * The solve is pipelined from the last block up. The owner of block k brings its right-
 * hand side up to date, solves its diagonal block for x_k and sends x_k to rank k-1 mod P
 * (the owner of block k-1); every rank passes a received x_k on down the ring as long as
 * a rank further on owns a block below k, and updates its own right-hand sides with it
 * (the owner of block k-1 first updates only that block, solves and sends, then the rest).
 *   normal:  each x_k is received when it is needed (MPI_Recv);
 *   advance: every receive is posted first (MPI_Irecv, inside the timed region), and
 *            waited for when it is needed;
 *   seq:     the sequential solver on rank 0 alone, no MPI calls in the timed region;
 *   yield:   the update loop calls emx_yield() after each row, so that protocol threads
 *            for this PE run while it computes; without it the loop is one thread (as
 *            EM-C compiled the block's double loop into one SCB) and they wait for it.
 * The matrix is generated from a seeded generator, strictly diagonally dominant by rows,
 * with a known solution; every run checks the residual and the error and fails (exit
 * status 3) when either is too large.
 * Results (emx_result, rank 0): cycles and time_us of the timed region (start_cycle and
 * end_cycle: where it lies in the run), mflops (N^2 flops
 * over that time) and mflops_per_pe, residual (max |b - Ux| / (||U_i||_1 ||x||_inf) over
 * the rows), error (max |x - x_true| / |x_true|), preissue_cycles (advance: the posting,
 * on the slowest rank). */
#include <mpi.h>

#include <emx/emx.h>
#include <emx/threads.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEED = 12345, TAG_MOD = 1024, EXIT_BAD_ARG = 2, EXIT_WRONG = 3, EXIT_NO_MEMORY = 4 };
static const float RESIDUAL_LIMIT = 1e-5f, ERROR_LIMIT = 1e-4f;

typedef enum { RECV_NORMAL, RECV_ADVANCE, SEQUENTIAL } recv_mode_t;

typedef struct {
  int n, bs, nb, p, me;        /* size, block, blocks, ranks taking part, this rank */
  int nlocal;                  /* rows held here */
  float **row;                 /* row[l] = &U[i][i] of local row l (U[i][c] = row[l][c - i]) */
  float *b, *b0, *x;           /* local right-hand sides (by local row; b0 as generated); the whole x */
  int *applied;                /* per local block: columns >= applied[lb] are in its b */
} solver_t;

static int block_lo(const solver_t *s, int k) { return k * s->bs; }
static int block_hi(const solver_t *s, int k) { return k * s->bs + s->bs < s->n ? k * s->bs + s->bs : s->n; }
static int owner(const solver_t *s, int k) { return k % s->p; }
/* Local row of global row i (its block is owned here). */
static int local_row(const solver_t *s, int i) { return (i / s->bs / s->p) * s->bs + i % s->bs; }

/* The generator: one stream per row, so that every rank makes its rows alone. */
static uint32_t row_seed(int i) {
  uint32_t z = (uint32_t)i * 0x9e3779b9u + SEED;
  z = (z ^ (z >> 16)) * 0x85ebca6bu;
  z = (z ^ (z >> 13)) * 0xc2b2ae35u;
  return z ^ (z >> 16);
}
static float uniform(uint32_t *state) { /* in [-1, 1) */
  *state = *state * 1664525u + 1013904223u;
  return (float)(int32_t)(*state & 0xffffff00u) * (1.0f / 2147483648.0f);
}
static float x_true(int c) { return 1.0f + (float)(c % 16) * 0.0625f; }

/* Rows of this rank with U[i][c] uniform in [-1, 1) above the diagonal, U[i][i] = 1 +
 * sum |U[i][c]| (so ||U_i||_1 = 2 U[i][i] - 1), b = U x_true. */
static int generate(solver_t *s) {
  long words = 0;
  for (int k = s->me; k < s->nb; k += s->p)
    for (int i = block_lo(s, k); i < block_hi(s, k); ++i) words += s->n - i;
  s->nlocal = 0;
  for (int k = s->me; k < s->nb; k += s->p) s->nlocal += block_hi(s, k) - block_lo(s, k);
  float *u = malloc(words * sizeof(float));
  s->row = malloc((s->nlocal + 1) * sizeof(float *));
  s->b = malloc((s->nlocal + 1) * sizeof(float));
  s->b0 = malloc((s->nlocal + 1) * sizeof(float));
  s->x = malloc(s->n * sizeof(float));
  s->applied = malloc((s->nb / s->p + 1) * sizeof(int));
  if (!u || !s->row || !s->b || !s->b0 || !s->x || !s->applied) {
    printf("mpi_backsub: rank %d has no memory for its %d rows of U (%ld bytes; N = %d on %d ranks, "
           "%u bytes of memory per PE)\n",
           s->me, s->nlocal, words * (long)sizeof(float), s->n, s->p, emx_mem_bytes());
    return 0;
  }
  for (int lb = 0; lb * s->p + s->me < s->nb; ++lb) s->applied[lb] = s->n;
  for (int k = s->me; k < s->nb; k += s->p) {
    for (int i = block_lo(s, k); i < block_hi(s, k); ++i) {
      const int l = local_row(s, i);
      float *r = u;
      u += s->n - i;
      uint32_t state = row_seed(i);
      float sum = 0, bi = 0;
      for (int c = i + 1; c < s->n; ++c) {
        const float v = uniform(&state);
        r[c - i] = v;
        sum += fabsf(v);
        bi += v * x_true(c);
      }
      r[0] = 1.0f + sum;
      s->row[l] = r;
      s->b[l] = s->b0[l] = bi + r[0] * x_true(i);
    }
  }
  return 1;
}

/* The compute loop: b_i -= sum U[i][c] x[c] over the columns [c0, c1) for the rows of
 * local block lb. One instance with a yield after each row, one without. */
static inline __attribute__((always_inline)) void update_rows(solver_t *s, int k, int c0, int c1, int yield) {
  for (int i = block_lo(s, k), l = local_row(s, i); i < block_hi(s, k); ++i, ++l) {
    const float *u = s->row[l] + (c0 - i);
    const float *x = s->x + c0;
    float acc = 0;
    for (int c = 0; c < c1 - c0; ++c) acc += u[c] * x[c];
    s->b[l] -= acc;
    if (yield) emx_yield();
  }
}
static void update_no_yield(solver_t *s, int k, int c0, int c1) { update_rows(s, k, c0, c1, 0); }
static void update_yield(solver_t *s, int k, int c0, int c1) { update_rows(s, k, c0, c1, 1); }
typedef void (*update_fn)(solver_t *, int, int, int);

/* Brings local block k's right-hand sides up to date with every x column from `from`. */
static void update(solver_t *s, update_fn fn, int k, int from) {
  const int lb = k / s->p;
  if (from < s->applied[lb]) fn(s, k, from, s->applied[lb]);
  s->applied[lb] = from;
}

/* x of diagonal block k from its up-to-date right-hand sides. */
static void solve_diagonal(solver_t *s, int k) {
  for (int i = block_hi(s, k) - 1, l = local_row(s, i); i >= block_lo(s, k); --i, --l) {
    const float *u = s->row[l];
    float acc = s->b[l];
    for (int c = i + 1; c < block_hi(s, k); ++c) acc -= u[c - i] * s->x[c];
    s->x[i] = acc / u[0];
  }
}

/* The rank at `hop` steps down the ring from block k's owner holds block k - hop (if it
 * exists) and so needs x_k; the chain stops at the first rank that owns nothing below k. */
static int hop_of(const solver_t *s, int k, int rank) { return (owner(s, k) - rank + s->p) % s->p; }
static int receives(const solver_t *s, int k) {
  const int h = hop_of(s, k, s->me);
  return h != 0 && k - h >= 0;
}
static int passes_on(const solver_t *s, int k) {
  const int h = hop_of(s, k, s->me);
  return h + 1 < s->p && k - (h + 1) >= 0;
}

static void send_x(solver_t *s, int k, MPI_Request *sends, int *nsends) {
  const int lo = block_lo(s, k);
  MPI_Isend(s->x + lo, block_hi(s, k) - lo, MPI_FLOAT, (s->me + s->p - 1) % s->p, k % TAG_MOD, MPI_COMM_WORLD,
            &sends[(*nsends)++]);
}

/* Posts the receive of x_k (its request in recvs[k]). */
static void post_recv(solver_t *s, int k, MPI_Request *recvs) {
  const int lo = block_lo(s, k);
  MPI_Irecv(s->x + lo, block_hi(s, k) - lo, MPI_FLOAT, (s->me + 1) % s->p, k % TAG_MOD, MPI_COMM_WORLD, &recvs[k]);
}

static void solve_parallel(solver_t *s, recv_mode_t mode, update_fn fn, MPI_Request *recvs, MPI_Request *sends,
                           double *preissue) {
  int nsends = 0;
  if (mode == RECV_ADVANCE) {
    const double t = (double)emx_cycles();
    for (int k = s->nb - 1; k >= 0; --k)
      if (receives(s, k)) post_recv(s, k, recvs);
    *preissue = (double)emx_cycles() - t;
  }
  for (int k = s->nb - 1; k >= 0; --k) {
    if (owner(s, k) == s->me) {
      update(s, fn, k, block_hi(s, k));
      solve_diagonal(s, k);
      if (s->p > 1 && k > 0) send_x(s, k, sends, &nsends);
      for (int j = k - s->p; j >= 0; j -= s->p) update(s, fn, j, block_lo(s, k));
    } else if (receives(s, k)) {
      if (mode == RECV_NORMAL) post_recv(s, k, recvs);
      MPI_Wait(&recvs[k], MPI_STATUS_IGNORE);
      if (passes_on(s, k)) send_x(s, k, sends, &nsends);
      /* The owner of block k-1 is next on the critical path: the next round brings only
       * that block up to date and solves it; its other blocks wait until x_{k-1} is sent. */
      if (k > 0 && owner(s, k - 1) == s->me) continue;
      for (int j = k - hop_of(s, k, s->me); j >= 0; j -= s->p) update(s, fn, j, block_lo(s, k));
    }
  }
  MPI_Waitall(nsends, sends, MPI_STATUSES_IGNORE);
}

/* The plain sequential solver (one rank holds every row). */
static void solve_sequential(solver_t *s) {
  for (int i = s->n - 1; i >= 0; --i) {
    const float *u = s->row[i];
    float acc = s->b[i];
    for (int c = i + 1; c < s->n; ++c) acc -= u[c - i] * s->x[c];
    s->x[i] = acc / u[0];
  }
}

/* The worst residual and error over this rank's rows (it holds every x column they use). */
static void check(const solver_t *s, float *residual, float *error) {
  float xmax = 0;
  for (int c = 0; c < s->n; ++c) xmax = fmaxf(xmax, fabsf(x_true(c)));
  *residual = 0;
  *error = 0;
  for (int k = s->me; k < s->nb; k += s->p) {
    for (int i = block_lo(s, k); i < block_hi(s, k); ++i) {
      const int l = local_row(s, i);
      const float *u = s->row[l];
      float acc = s->b0[l];
      for (int c = i; c < s->n; ++c) acc -= u[c - i] * s->x[c];
      *residual = fmaxf(*residual, fabsf(acc) / ((2.0f * u[0] - 1.0f) * xmax));
      *error = fmaxf(*error, fabsf(s->x[i] - x_true(i)) / fabsf(x_true(i)));
    }
  }
}

enum { WHY = 160 };

/* A positive integer argument, or 0 with the reason in why. */
static int positive(const char *text, const char *what, char *why) {
  char *end;
  const long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 1 || v > 1000000) {
    snprintf(why, WHY, "bad %s '%s' (expected an integer from 1 to 1000000)", what, text);
    return 0;
  }
  return (int)v;
}

static int parse(int argc, char **argv, recv_mode_t *mode, int *yield, int *n, int *bs, char *why) {
  *mode = RECV_NORMAL;
  *yield = 0;
  *n = 2000;
  *bs = 25;
  if (argc > 1) {
    if (strcmp(argv[1], "normal") == 0) *mode = RECV_NORMAL;
    else if (strcmp(argv[1], "advance") == 0) *mode = RECV_ADVANCE;
    else if (strcmp(argv[1], "seq") == 0) *mode = SEQUENTIAL;
    else {
      snprintf(why, WHY, "unknown receive mode '%s' (expected normal, advance or seq)", argv[1]);
      return 0;
    }
  }
  if (argc > 2) {
    if (strcmp(argv[2], "yield") == 0) *yield = 1;
    else if (strcmp(argv[2], "noyield") != 0) {
      snprintf(why, WHY, "unknown loop form '%s' (expected yield or noyield)", argv[2]);
      return 0;
    }
  }
  if (argc > 3 && !(*n = positive(argv[3], "N", why))) return 0;
  if (argc > 4 && !(*bs = positive(argv[4], "BLOCK", why))) return 0;
  if (argc > 5) {
    snprintf(why, WHY, "too many arguments (usage: mpi_backsub [normal|advance|seq] [yield|noyield] [N] [BLOCK])");
    return 0;
  }
  if (*bs > *n) {
    snprintf(why, WHY, "BLOCK %d is larger than N %d", *bs, *n);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  recv_mode_t mode;
  int yield, n, bs;
  char why[WHY];
  if (!parse(argc, argv, &mode, &yield, &n, &bs, why)) { /* every rank parses the same arguments */
    if (me == 0) printf("mpi_backsub: %s\n", why);
    MPI_Finalize();
    return EXIT_BAD_ARG;
  }
  solver_t s = {.n = n, .bs = bs, .nb = (n + bs - 1) / bs, .p = mode == SEQUENTIAL ? 1 : size, .me = me};
  const int active = mode != SEQUENTIAL || me == 0;
  int ok = !active || generate(&s);
  int all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all_ok) {
    MPI_Finalize();
    return EXIT_NO_MEMORY;
  }
  MPI_Request *recvs = malloc(s.nb * sizeof *recvs), *sends = malloc(s.nb * sizeof *sends);
  double preissue = 0;

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = (double)emx_cycles();
  if (mode == SEQUENTIAL) {
    if (active) solve_sequential(&s);
  } else {
    solve_parallel(&s, mode, yield ? update_yield : update_no_yield, recvs, sends, &preissue);
  }
  const double t1 = (double)emx_cycles();
  /* The check is one long thread per rank: started before the last rank has finished, it
   * would hold up the protocol messages that rank still waits for. */
  MPI_Barrier(MPI_COMM_WORLD);

  float residual = 0, error = 0;
  if (active) check(&s, &residual, &error);
  /* Over the ranks: the latest end, the earliest start, the worst residual and error. */
  double mine[5] = {t1, -t0, residual, error, preissue}, worst[5];
  MPI_Reduce(mine, worst, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int status = 0;
  if (me == 0) {
    const double cycles = worst[0] + worst[1], mhz = emx_clock_khz() / 1000.0, us = cycles / mhz;
    const double mflops = (double)n * n / us;
    printf("back substitution N=%d block=%d on %d PE%s, %s%s: %.0f cycles = %.1f us, %.3f MFlops "
           "(%.3f per PE); residual %.2e, error %.2e\n",
           n, bs, s.p, s.p > 1 ? "s" : "", mode == SEQUENTIAL ? "sequential" : mode == RECV_ADVANCE ? "advance" : "normal",
           mode != SEQUENTIAL && yield ? ", yield" : "", cycles, us, mflops, mflops / s.p, worst[2], worst[3]);
    emx_result("cycles", cycles);
    emx_result("start_cycle", -worst[1]); /* the timed region, in clocks since the start */
    emx_result("end_cycle", worst[0]);
    emx_result("time_us", us);
    emx_result("mflops", mflops);
    emx_result("mflops_per_pe", mflops / s.p);
    emx_result("residual", worst[2]);
    emx_result("error", worst[3]);
    if (mode == RECV_ADVANCE) emx_result("preissue_cycles", worst[4]);
    if (!(worst[2] <= RESIDUAL_LIMIT && worst[3] <= ERROR_LIMIT)) {
      printf("mpi_backsub: WRONG SOLUTION: residual %.3e (limit %.1e), error %.3e (limit %.1e)\n", worst[2],
             (double)RESIDUAL_LIMIT, worst[3], (double)ERROR_LIMIT);
      status = EXIT_WRONG;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
