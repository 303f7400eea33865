/* Q-structures: one queue on PE 0, every PE puts and gets many values, readers often
 * wait on the empty queue; then every other PE waits on the empty queue first and PE 0
 * fills it. Checks that every value is read exactly once, that values of one writer
 * reach a reader in the order they were put, and the non-blocking get. PE 0 prints the
 * outcome. */
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned errors;
static void expect(const char *what, int ok) {
  if (!ok && errors++ < 10) printf("PE %u: %s failed\n", emx_pe_id(), what);
}

int main(int argc, char **argv) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  const unsigned per_pe = argc > 1 ? (unsigned)atoi(argv[1]) : 50;

  /* The queue lives on PE 0; everybody learns its handle through a reduction. */
  emx_queue_t q = me == 0 ? emx_queue_new() : 0;
  q = (emx_queue_t)emx_max_i32((int32_t)q);

  uint32_t v;
  if (me == 0) {
    expect("try on an empty queue", emx_queue_try_get(q, &v) == 0);
    emx_queue_put(q, 99);
    expect("try on a full queue", emx_queue_try_get(q, &v) == 1 && v == 99);
  }
  emx_barrier();
  if (me == 1 % pes) {
    expect("remote try, empty", emx_queue_try_get(q, &v) == 0);
    emx_queue_put(q, 77);
    expect("remote try, full", emx_queue_try_get(q, &v) == 1 && v == 77);
  }
  emx_barrier();

  /* Phase 1: put and get interleaved; a writer's values carry (writer, sequence). */
  uint32_t *last = calloc(pes, sizeof *last); /* last sequence seen per writer, +1 */
  uint32_t checksum = 0;
  for (unsigned k = 0; k < per_pe; ++k) {
    emx_queue_put(q, (me << 16) | (k + 1));
    if (k % 3 == 2) emx_yield(); /* let values pile up now and then */
    v = emx_queue_get(q);
    const unsigned writer = v >> 16, seq = v & 0xffff;
    expect("writer in range", writer < pes);
    if (writer < pes) {
      expect("a writer's values in order", seq > last[writer]);
      last[writer] = seq;
    }
    checksum += v;
  }
  const uint32_t total = (uint32_t)emx_sum_i32((int32_t)checksum);
  uint32_t want = 0;
  for (unsigned pe = 0; pe < pes; ++pe)
    for (unsigned k = 0; k < per_pe; ++k) want += (pe << 16) | (k + 1);
  expect("every value read once", total == want);

  /* Phase 2: the readers come first and wait; PE 0 sees them queued, then feeds them. */
  if (me != 0) {
    v = emx_queue_get(q);
    expect("fed value", v >= 1000 && v < 1000 + pes);
  } else {
    while (emx_queue_length(q) != -(int)(pes - 1)) emx_yield();
    for (unsigned k = 1; k < pes; ++k) emx_queue_put(q, 1000 + k);
  }
  const int32_t all = emx_sum_i32((int32_t)errors);
  if (me == 0) {
    expect("queue empty at the end", emx_queue_length(q) == 0);
    printf("Q-structure, %u PEs x %u values: %s\n", pes, per_pe, all || errors ? "FAILED" : "ok");
  }
  return all != 0;
}
