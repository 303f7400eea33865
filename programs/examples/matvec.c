/* Matrix-vector product y = A x with global pointers.
 *
 *   ex_matvec [N [read|broadcast]]       (default 64, read)
 *
 * Rows are distributed in blocks: PE p owns rows [p*N/P, (p+1)*N/P) of A and computes
 * those elements of y. x lives on PE 0 only. With "read", every PE fetches x from PE 0
 * with split-phase remote reads (one SYSRD per element, all in flight at once); with
 * "broadcast", PE 0 writes x into every PE's copy with block writes (SYSWR) and then an
 * I-structure flag that the PE waits on. Each PE writes its part of y into PE 0's y with
 * a block write; a barrier after a fence says all parts are there.
 * docs/examples/matvec.md. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_N = 256 };
static float x[MAX_N];      /* the vector: PE 0's is the original */
static float y[MAX_N];      /* the result, gathered on PE 0 */
static uint32_t x_ready;    /* I-structure flag: x has arrived (broadcast) */

static float a(unsigned i, unsigned j) { return (float)((int)((i + 2 * j) % 7) - 3); }

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 64;
  if (n > MAX_N) n = MAX_N;
  const int broadcast = argc > 2 && strcmp(argv[2], "broadcast") == 0;
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  const unsigned first = me * n / pes, last = (me + 1) * n / pes;

  /* My rows of A, as if they had been loaded here. */
  float *rows = malloc(((last - first) * n + 1) * sizeof *rows);
  for (unsigned i = first; i < last; ++i)
    for (unsigned j = 0; j < n; ++j) rows[(i - first) * n + j] = a(i, j);
  if (me == 0)
    for (unsigned j = 0; j < n; ++j) x[j] = (float)(j % 5 + 1);
  emx_barrier(); /* x is ready on PE 0 */

  const uint32_t t0 = (uint32_t)emx_cycles();
  if (!broadcast) {
    emx_get(x, emx_gaddr(0, x), n); /* blocks until all n words are here */
  } else if (me == 0) {
    for (unsigned pe = 1; pe < pes; ++pe) {
      emx_put(emx_gaddr(pe, x), x, n);
      emx_iwrite_flag(emx_gaddr(pe, &x_ready), 1); /* after the data, there */
    }
  } else {
    (void)emx_iread(emx_gaddr_mine(&x_ready));
  }
  for (unsigned i = first; i < last; ++i) {
    float s = 0;
    for (unsigned j = 0; j < n; ++j) s += rows[(i - first) * n + j] * x[j];
    y[i] = s;
  }
  emx_put(emx_gaddr(0, &y[first]), &y[first], last - first);
  emx_fence(0);  /* my part of y has landed on PE 0... */
  emx_barrier(); /* ...and everybody's */
  const uint32_t cycles = (uint32_t)emx_cycles() - t0;

  if (me == 0) {
    unsigned wrong = 0;
    double checksum = 0;
    for (unsigned i = 0; i < n; ++i) {
      float s = 0;
      for (unsigned j = 0; j < n; ++j) s += a(i, j) * x[j];
      wrong += s != y[i];
      checksum += y[i] * (double)(i + 1);
    }
    printf("y = A x, N = %u on %u PEs, x by %s: checksum %.0f, %s; %u clocks\n", n, pes,
           broadcast ? "broadcast" : "remote reads", checksum, wrong ? "WRONG" : "correct",
           (unsigned)cycles);
    emx_result("matvec_checksum", checksum);
    emx_result_int("matvec_cycles", cycles);
  }
  free(rows);
  return 0;
}
