/* The default demonstration (scripts/emx demo): every PE sums the squares of its share
 * of 1..N, writes its 64-bit partial sum into PE 0's memory by two remote writes (SYSWR,
 * served by PE 0's memory unit without a thread) and then invokes a thread on PE 0 (one
 * 2-word packet); packets from one PE to another arrive in order, so the partial sum is
 * there when the thread runs. PE 0 adds the partial sums up as they arrive, checks the
 * total, and measures one remote read (SYSRD) from the last PE. */
#include <emx/emx.h>
#include <stdio.h>
#include <stdlib.h>

static void add_partial(uint32_t pe, uint32_t unused, uint32_t cont);
static void got_read(uint32_t value, uint32_t unused, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, add_partial, got_read};
static emx_static_frame_t frame EMX_FRAME_ALIGN = {tmpl, {0}};

static uint64_t total, started;
static unsigned partials;
static uint64_t partial[1024];  /* on PE 0: written remotely, one per PE */
static volatile uint32_t probe = 0x2a;
static uint64_t read_sent;
static unsigned n_terms;

static void add_partial(uint32_t pe, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  total += partial[pe];
  if (++partials < emx_pe_count()) return;
  const uint64_t n = n_terms, expect = n * (n + 1) * (2 * n + 1) / 6;
  const uint64_t cycles = emx_cycles() - started;
  printf("sum of i^2 for i = 1..%u over %u PEs: %llu (%s), %llu cycles = %.1f us\n", n_terms,
         emx_pe_count(), (unsigned long long)total, total == expect ? "correct" : "WRONG",
         (unsigned long long)cycles, cycles * 1000.0 / emx_clock_khz());
  emx_result_int("sum", (long long)total);
  emx_result_int("sum_cycles", (long long)cycles);
  read_sent = emx_cycles();  /* now one remote read from the last PE */
  emx_send(EMX_PKT_sysrd, emx_gaddr(emx_pe_count() - 1, &probe), emx_gaddr(0, &frame.slot[1]));
  if (total != expect) emx_exit(1);
}

static void got_read(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  const uint64_t cycles = emx_cycles() - read_sent;
  printf("remote read PE 0 <- PE %u: value %u after %llu cycles = %.2f us\n",
         emx_pe_count() - 1, (unsigned)value, (unsigned long long)cycles,
         cycles * 1000.0 / emx_clock_khz());
  emx_result_int("remote_read_cycles", (long long)cycles);
  emx_exit(0);
}

int main(int argc, char **argv) {
  const unsigned me = emx_pe_id(), n = emx_pe_count();
  n_terms = argc > 1 ? (unsigned)atoi(argv[1]) : 100000;
  if (me == 0) {
    printf("EM-X demo: %u PEs at %u.%03u MHz\n", n, emx_clock_khz() / 1000, emx_clock_khz() % 1000);
    started = emx_cycles();
  }
  /* This PE's share: i = me+1, me+1+n, ... */
  uint64_t s = 0;
  for (uint32_t i = me + 1; i <= n_terms; i += n) s += (uint64_t)i * i;
  const uint32_t *w = (const uint32_t *)&s;
  emx_send(EMX_PKT_syswr, emx_gaddr(0, &partial[me]), w[0]);
  emx_send(EMX_PKT_syswr, emx_gaddr(0, (uint32_t *)&partial[me] + 1), w[1]);
  emx_send(EMX_PKT_invoke1, emx_gaddr(0, &frame.slot[0]), me);
  if (me != 0) return 0;  /* done: exit; PE 0 exits when it has the answer */
  emx_end();
  return 0;
}
