/* Remote reads and writes between PE 0 and every other PE, checked, and timed against
 * PE 1 (run it on every machine variant: the same calls work on all). Prints
 * "remote access: ok"; results:
 *   read_cycles          emx_read of a word on PE 1 (call to value in hand)
 *   put_cycles_per_word  emx_put of 4096 words to PE 1, until emx_fence(1) returns
 *   get_cycles_per_word  emx_get of 512 words from PE 1 (split phase, all in flight)
 *   write_cycles         emx_write of one word, in a loop of 100 (the sending side) */
#include <emx/emc.h>
#include <stdio.h>
#include <string.h>

enum { WORDS = 1024, BULK = 4096, GET = 512, READS = 100 };
static uint32_t data[WORDS];
static uint32_t bulk[BULK];
static uint32_t inbox[4];
static float fdata = 0.0f;
static uint32_t local_copy[BULK];
static unsigned errors;

static void expect(const char *what, unsigned pe, uint32_t got, uint32_t want) {
  if (got == want) return;
  if (errors++ < 10)
    printf("PE %u: %s (PE %u): got %u, expected %u\n", emx_pe_id(), what, pe, (unsigned)got,
           (unsigned)want);
}

static void check_everyone(void) {
  const unsigned pes = emx_pe_count();
  /* Single words, blocking. */
  for (unsigned pe = 1; pe < pes; ++pe) {
    expect("emx_read", pe, emx_read(emx_gaddr(pe, &data[pe % WORDS])), pe * 100000 + pe % WORDS);
    const float f = emx_read_f32(emx_gaddr(pe, &fdata));
    expect("emx_read_f32", pe, f == 0.5f * pe, 1);
    emx_write(emx_gaddr(pe, &inbox[0]), 7 * pe);
    emx_write_f32(emx_gaddr(pe, &inbox[1]), 0.25f * pe);
  }
  /* Split phase: one word from every PE at once. */
  static uint32_t got[1024];
  emx_sync_t s;
  emx_sync_init(&s, 0);
  for (unsigned pe = 1; pe < pes; ++pe) emx_get_async(&got[pe], emx_gaddr(pe, &data[3]), 1, &s);
  emx_sync_wait(&s);
  for (unsigned pe = 1; pe < pes; ++pe) expect("emx_get_async", pe, got[pe], pe * 100000 + 3);
  /* A block out and back. */
  for (unsigned k = 0; k < BULK; ++k) local_copy[k] = k * 2654435761u;
  const unsigned far = pes - 1;
  emx_put(emx_gaddr(far, bulk), local_copy, BULK);
  emx_fence(far);
  memset(bulk, 0, sizeof bulk);
  emx_get(bulk, emx_gaddr(far, bulk), BULK);
  for (unsigned k = 0; k < BULK; ++k) expect("emx_put/emx_get", far, bulk[k], k * 2654435761u);
  emx_fence_all(); /* the single-word writes are done everywhere */
}

static void time_pe1(void) {
  const emx_gaddr_t g = emx_gaddr(1, &data[0]);
  uint32_t t0 = (uint32_t)emx_cycles(), sum = 0;
  for (int k = 0; k < READS; ++k) sum += emx_read(g);
  const double read = (double)((uint32_t)emx_cycles() - t0) / READS;
  expect("timed reads", 1, sum, READS * 100000);

  t0 = (uint32_t)emx_cycles();
  emx_put(emx_gaddr(1, bulk), local_copy, BULK);
  emx_fence(1);
  const double put = (double)((uint32_t)emx_cycles() - t0) / BULK;

  t0 = (uint32_t)emx_cycles();
  emx_get(local_copy, emx_gaddr(1, data), GET);
  const double get = (double)((uint32_t)emx_cycles() - t0) / GET;

  t0 = (uint32_t)emx_cycles();
  for (int k = 0; k < READS; ++k) emx_write(emx_gaddr(1, &data[k]), 100000 + k);
  const double write = (double)((uint32_t)emx_cycles() - t0) / READS;
  emx_fence(1);

  emx_result("read_cycles", read);
  emx_result("put_cycles_per_word", put);
  emx_result("get_cycles_per_word", get);
  emx_result("write_cycles", write);
  printf("PE 0 <-> PE 1: read %.1f clocks, put %.2f clocks/word, get %.2f clocks/word, "
         "write %.2f clocks\n", read, put, get, write);
}

int main(void) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  for (unsigned k = 0; k < WORDS; ++k) data[k] = me * 100000 + k;
  fdata = 0.5f * me;
  emx_barrier();
  if (me == 0 && pes > 1) {
    check_everyone();
    time_pe1();
  }
  emx_barrier();
  if (me != 0) { /* what PE 0 wrote here */
    expect("emx_write", 0, inbox[0], 7 * me);
    expect("emx_write_f32", 0, emx_f32_bits(0.25f * me), inbox[1]);
  }
  errors = (unsigned)emx_sum_i32((int32_t)errors);
  if (me == 0) printf("remote access on %u PEs: %s\n", pes, errors ? "FAILED" : "ok");
  return errors != 0;
}
