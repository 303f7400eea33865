/* Block remote reads (emx_read_block, the memory unit's rdb/rdbn packets), checked:
 *   sizes    PE 1 reads every size of 1..70 words and some large ones from PE 0, at every
 *            word offset 0..3 of source and destination; the words beside the
 *            destination stay untouched, and when the completion (an I-structure write)
 *            wakes the reader, every word is in place already;
 *   many     every other PE reads the same block of PE 0 at once;
 *   overlap  PE 1 reads while PE 0 runs one long thread: the read completes before that
 *            thread ends (the memory unit serves it, not a thread);
 *   third    PE 1 has PE 0's block sent to PE 2, which waits for the completion there;
 *   moved    every PE but 0 at once has blocks of PE 0 and of another PE moved into a
 *            third PE (emx_move_block: the completion goes through the destination and
 *            answers the requester); when it does, the words are there.
 * Prints one line per check, "ok" or "FAILED"; results block_read_cycles_per_word (4096
 * words, PE 1 from PE 0, request to completion) and overlap_thread_cycles (PE 0's long
 * thread, which memory-port conflicts lengthen). EM-X only (direct remote access). */
#include <emx/emc.h>
#include <stdio.h>

enum { BIG = 4096, PAD = 8 };
static uint32_t src[BIG + PAD];
static uint32_t dst[BIG + 2 * PAD];
static uint32_t flag; /* the completion element */
static unsigned errors;
static volatile uint32_t served_at; /* overlap: PE 1's completion clock, written to PE 0 */
static volatile uint32_t spin_sink;

static uint32_t value(unsigned pe, unsigned k) { return (pe + 1) * 2654435761u + k * 40503u; }

static void expect(const char *what, unsigned n, uint32_t got, uint32_t want) {
  if (got == want) return;
  if (errors++ < 10)
    printf("PE %u: %s (%u words): got 0x%08x, expected 0x%08x\n", emx_pe_id(), what, n,
           (unsigned)got, (unsigned)want);
}

/* Reads n words at source offset so into dst at offset PAD + dof and waits; checks.
 * Returns the clocks from the request to the completion. */
static uint32_t read_and_check(unsigned n, unsigned so, unsigned dof) {
  for (unsigned k = 0; k < n + 2 * PAD; ++k) dst[k] = 0xdeadbeefu;
  uint32_t *to = &dst[PAD + dof];
  const uint32_t t0 = (uint32_t)emx_cycles();
  emx_read_block(emx_gaddr_mine(to), emx_gaddr(0, &src[so]), n, emx_gaddr_mine(&flag));
  expect("completion value", n, emx_iread(emx_gaddr_mine(&flag)), n);
  const uint32_t t = (uint32_t)emx_cycles() - t0;
  /* Right after the completion: the data must be complete already. */
  for (unsigned k = 0; k < n; ++k) expect("word", n, to[k], value(0, so + k));
  for (unsigned k = 0; k < PAD + dof; ++k) expect("before the block", n, dst[k], 0xdeadbeefu);
  expect("after the block", n, to[n], 0xdeadbeefu);
  return t;
}

static void report(const char *check) {
  const unsigned all = (unsigned)emx_sum_i32((int32_t)errors);
  if (emx_pe_id() == 0) printf("%s: %s\n", check, all ? "FAILED" : "ok");
  errors = 0;
}

int main(void) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  if (!(emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS)) {
    if (me == 0) printf("block reads need the memory unit's direct remote access\n");
    return 0;
  }
  if (pes < 3) {
    if (me == 0) printf("rt_block_read needs 3 PEs or more\n");
    return 1;
  }
  for (unsigned k = 0; k < BIG + PAD; ++k) src[k] = value(me, k);
  emx_barrier();

  if (me == 1) {
    for (unsigned n = 1; n <= 70; ++n)
      for (unsigned so = 0; so < 4; ++so)
        for (unsigned dof = 0; dof < 4; ++dof) read_and_check(n, so, dof);
    const unsigned large[] = {127, 128, 129, 1000, 4095};
    for (unsigned i = 0; i < sizeof large / sizeof *large; ++i) read_and_check(large[i], 3, 1);
    const uint32_t t = read_and_check(BIG, 0, 0);
    emx_result("block_read_cycles_per_word", (double)t / BIG);
    printf("PE 1 reads %u words of PE 0: %.3f clocks a word\n", BIG, (double)t / BIG);
  }
  report("sizes 1..70 and large, every word offset");

  if (me != 0) read_and_check(2048, 1, 2);
  report("every PE reads PE 0 at once");

  /* PE 0 runs one long thread (no yield, no end) while PE 1 reads from it. */
  emx_barrier();
  uint32_t t_start = 0, t_end = 0;
  if (me == 0) {
    t_start = (uint32_t)emx_cycles();
    for (unsigned k = 0; k < 20000; ++k) spin_sink = spin_sink + k;
    t_end = (uint32_t)emx_cycles();
  } else if (me == 1) {
    read_and_check(BIG, 0, 0);
    emx_write(emx_gaddr(0, (const void *)&served_at), (uint32_t)emx_cycles());
  }
  emx_barrier();
  if (me == 0 && !(t_start < served_at && served_at < t_end)) {
    ++errors;
    printf("PE 0's thread ran from %u to %u, PE 1's read completed at %u\n", (unsigned)t_start,
           (unsigned)t_end, (unsigned)served_at);
  }
  if (me == 0) emx_result_int("overlap_thread_cycles", t_end - t_start);
  report("served while a thread runs on the target");

  /* PE 1 has PE 0 send a block to PE 2; PE 2 waits for the completion on its own PE. */
  emx_barrier();
  if (me == 2) {
    for (unsigned k = 0; k < 300 + 2 * PAD; ++k) dst[k] = 0xdeadbeefu;
    emx_barrier();
    expect("completion value", 300, emx_iread(emx_gaddr_mine(&flag)), 300);
    for (unsigned k = 0; k < 300; ++k) expect("word", 300, dst[PAD + k], value(0, 5 + k));
    expect("after the block", 300, dst[PAD + 300], 0xdeadbeefu);
  } else {
    emx_barrier();
    if (me == 1)
      emx_read_block(emx_gaddr(2, &dst[PAD]), emx_gaddr(0, &src[5]), 300, emx_gaddr(2, &flag));
  }
  report("a block sent from PE 0 to PE 2 at PE 1's request");

  /* Every PE but 0 has PE 0's block and PE me-1's block moved into PE d (1, or 2 for PE
   * 1), all at once: several requesters at one source, several sources into one
   * destination. The completion answers the requester: the words must be there. */
  emx_barrier();
  if (me != 0) {
    const unsigned d = me == 1 ? 2 : 1, from[2] = {0, me - 1};
    emx_ctx_t *c[2];
    uint32_t *to[2], n[2];
    for (unsigned j = 0; j < 2; ++j) {
      c[j] = emx_ctx_new();
      to[j] = &dst[PAD + 256 * (me - 1) + 128 * j];
      n[j] = 40 + 5 * me + j;
      emx_move_block(emx_gaddr(d, to[j]), emx_gaddr(from[j], &src[me + j]), n[j],
                     emx_ctx_cont(c[j]));
    }
    for (unsigned j = 0; j < 2; ++j) {
      expect("moved: completion value", n[j], emx_ctx_wait(c[j]).a0,
             value(from[j], me + j + n[j] - 1));
      static uint32_t got[128];
      emx_get(got, emx_gaddr(d, to[j]), n[j]);
      for (unsigned k = 0; k < n[j]; ++k) expect("moved: word", n[j], got[k], value(from[j], me + j + k));
    }
  }
  report("blocks moved between other PEs, completion at the requester");
  return 0;
}
