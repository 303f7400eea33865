/* Barrier, reductions and prefix sums on any number of PEs, against known results.
 *   rt_collective [REPEAT [VLEN]]     (default 6 and 300: two vector chunks)
 * PE p contributes p+1 (and floats (p+1)/2, vectors v[i] = p*i + 1 + round; the integer
 * sums and prefixes also values of every sign, check_sum_scan). The PEs
 * start out of step (PE p first spins p*37 mod 500 clocks) and
 * every kind of call is repeated so both element sets are used many times. PE 0 prints
 * the outcome; results: barrier_cycles, sum_cycles (one call, averaged), errors. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_VLEN = 600 };
static unsigned errors;

static void expect_i(const char *what, int32_t got, int32_t want) {
  if (got != want && errors++ < 10)
    printf("PE %u: %s = %d, expected %d\n", emx_pe_id(), what, (int)got, (int)want);
}
static void expect_f(const char *what, float got, float want) {
  if (got != want && errors++ < 10)
    printf("PE %u: %s = %g, expected %g\n", emx_pe_id(), what, (double)got, (double)want);
}

static volatile uint32_t sink;
static void spin(unsigned n) {
  for (unsigned k = 0; k < n; ++k) sink += k;
}

/* The hand-written integer steps (emx/butterfly.h): values of every sign and size, so
 * a lost or doubled block shows; the caller's live values must survive their waits. */
static int32_t value_of(unsigned q, int r) { return (int32_t)(q * 2654435761u) >> (q % 7 + r % 5); }
static void check_sum_scan(int r) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  int32_t all = 0, below = 0;
  for (unsigned q = 0; q < pes; ++q) {
    if (q < me) below += value_of(q, r);
    all += value_of(q, r);
  }
  const int32_t x = value_of(me, r);
  const int32_t live1 = x ^ 0x5a5a, live2 = (int32_t)me * 3 - r; /* live across the calls */
  expect_i("sum (steps)", emx_sum_i32(x), all);
  expect_i("exclusive scan (steps)", emx_scan_i32(x, 0), below);
  expect_i("inclusive scan (steps)", emx_scan_i32(x, 1), below + x);
  int32_t b = -1;
  expect_i("sum of sum_scan", emx_sum_scan_i32(x, &b), all);
  expect_i("prefix of sum_scan", b, below);
  expect_i("live value 1", live1, x ^ 0x5a5a);
  expect_i("live value 2", live2, (int32_t)me * 3 - r);
}

/* The same from a thread started by a packet: it runs on the shared thread stack, which
 * the steps' first wait must make its own, since another thread, started meanwhile,
 * scribbles on whatever stack is the shared one while the first one waits. */
static emx_sync_t threads_done;
static volatile int collectives_finished;
static void collectives_in_a_thread(uint32_t *args) {
  for (int r = 0; r < (int)args[0]; ++r) check_sum_scan(r + 100);
  collectives_finished = 1;
  emx_sync_done(&threads_done);
}
static void scribbler(uint32_t *args) {
  (void)args;
  while (!collectives_finished) {
    volatile uint32_t junk[128];
    for (unsigned k = 0; k < 128; ++k) junk[k] = 0xdead0000u + k;
    sink += junk[127];
    emx_yield();
  }
  emx_sync_done(&threads_done);
}

static int32_t vec[MAX_VLEN];
static float fvec[MAX_VLEN];

int main(int argc, char **argv) {
  const int repeat = argc > 1 ? atoi(argv[1]) : 6;
  int vlen = argc > 2 ? atoi(argv[2]) : 300;
  if (vlen > MAX_VLEN) vlen = MAX_VLEN;
  const unsigned me = emx_pe_id();
  const int32_t p = (int32_t)emx_pe_count(), x = (int32_t)me + 1;
  spin(me * 37 % 500);
  for (int r = 0; r < repeat; ++r) {
    emx_barrier();
    expect_i("sum", emx_sum_i32(x), p * (p + 1) / 2);
    expect_i("max", emx_max_i32(x), p);
    expect_i("min", emx_min_i32(x - r), 1 - r);
    expect_f("float sum", emx_sum_f32(0.5f * x), 0.25f * p * (p + 1));
    expect_f("float max", emx_max_f32(-0.5f * x), -0.5f);
    expect_f("float min", emx_min_f32(0.5f * x), 0.5f);
    expect_i("inclusive prefix sum", emx_prefix_sum_i32(x), x * (x + 1) / 2);
    expect_i("exclusive prefix sum", emx_exclusive_prefix_sum_i32(x), x * (x - 1) / 2);
    expect_f("float exclusive scan", emx_scan_f32(1.0f, 0), (float)me);
    check_sum_scan(r);
    for (int i = 0; i < vlen; ++i) vec[i] = (int32_t)me * i + 1 + r;
    emx_allreduce_vec_i32(vec, vlen, EMX_OP_SUM);
    for (int i = 0; i < vlen; ++i)
      expect_i("vector sum", vec[i], i * p * (p - 1) / 2 + p * (1 + r));
    for (int i = 0; i < vlen; ++i) fvec[i] = (float)((int32_t)me - i);
    emx_allreduce_vec_f32(fvec, vlen, EMX_OP_MAX);
    for (int i = 0; i < vlen; ++i) expect_f("vector max", fvec[i], (float)(p - 1 - i));
    if (me % 3 == 1) spin(200); /* fall out of step again */
  }
  const uint32_t rounds = 3;
  emx_sync_init(&threads_done, 2);
  emx_spawn(me, collectives_in_a_thread, &rounds, 1);
  emx_spawn(me, scribbler, &rounds, 1);
  emx_sync_wait(&threads_done);

  /* Floats: every PE gets the same bits even when the order matters. */
  const float third = emx_sum_f32(1.0f / (float)(me + 3));
  const float lo = emx_min_f32(third), hi = emx_max_f32(third);
  expect_f("float sum equal on all PEs", lo, hi);

  emx_barrier();
  uint32_t t0 = (uint32_t)emx_cycles();
  emx_barrier();
  const uint32_t barrier = (uint32_t)emx_cycles() - t0;
  t0 = (uint32_t)emx_cycles();
  (void)emx_sum_i32(x);
  const uint32_t sum = (uint32_t)emx_cycles() - t0;
  const int32_t all_errors = emx_sum_i32((int32_t)errors);
  const int32_t barrier_max = emx_max_i32((int32_t)barrier), sum_max = emx_max_i32((int32_t)sum);
  if (me == 0) {
    printf("collectives on %d PEs: %s\n", (int)p, all_errors ? "FAILED" : "ok");
    emx_result_int("errors", all_errors);
    emx_result_int("barrier_cycles", barrier_max);
    emx_result_int("sum_cycles", sum_max);
  }
  return all_errors != 0;
}
