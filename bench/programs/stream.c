/* Aggregate speed benchmark for the whole machine: every PE alternates a compute phase
 * (radix-sort counting over a local array) and a block of remote writes (SYSWR) to
 * another PE, ROUNDS times; each block is followed by an invocation that the receiver
 * acknowledges, and a PE exits once all its blocks are acknowledged. Round r's block goes
 * to PE (me + OFFSET + r * STEP) mod N (PE me + 1 if that is itself): by default a new
 * partner each round; STEP 0 keeps one partner, OFFSET away, whose distance through the
 * network sets the hops per packet (bench/machine.py --flat uses that to price a hop).
 *   bench_stream [ROUNDS [WORDS [STEP [OFFSET]]]]   (default 20 rounds of 256 words,
 *   STEP 7, OFFSET 1) */
#include <emx/emx.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_WORDS 4096
#define KEYS 1024
static uint32_t block[MAX_WORDS], inbox[MAX_WORDS], keys[KEYS], cnt[256];
static void done(uint32_t reply_to, uint32_t unused, uint32_t cont);
static void ack(uint32_t unused0, uint32_t unused1, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, done, ack};
static emx_static_frame_t frame EMX_FRAME_ALIGN = {tmpl, {0}};
static unsigned rounds, acks;
static uint32_t checksum;

static void done(uint32_t reply_to, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  emx_send(EMX_PKT_invoke1, reply_to, 0);
}
static void ack(uint32_t unused0, uint32_t unused1, uint32_t cont) {
  (void)unused0, (void)unused1, (void)cont;
  if (++acks == rounds) {
    emx_result_int("checksum", checksum);
    emx_exit(0);
  }
}

#define PUT(k) emx_send_disp(EMX_PKT_syswr, k, g, s[k])
static void put_block(emx_gaddr_t g, const uint32_t *s, unsigned n) {
  for (; n >= 16; n -= 16, s += 16, g += 16) {
    PUT(0); PUT(1); PUT(2); PUT(3); PUT(4); PUT(5); PUT(6); PUT(7);
    PUT(8); PUT(9); PUT(10); PUT(11); PUT(12); PUT(13); PUT(14); PUT(15);
  }
}

int main(int argc, char **argv) {
  rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
  unsigned words = argc > 2 ? (unsigned)atoi(argv[2]) : 256;
  if (words > MAX_WORDS) words = MAX_WORDS;
  words &= ~15u;
  const unsigned step = argc > 3 ? (unsigned)atoi(argv[3]) : 7;
  const unsigned offset = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
  const unsigned me = emx_pe_id(), n = emx_pe_count();
  uint32_t x = 12345 + me;
  for (unsigned k = 0; k < KEYS; ++k) keys[k] = x = x * 1103515245u + 12345u;
  for (unsigned k = 0; k < words; ++k) block[k] = k ^ me;
  if (n == 1 || rounds == 0) return 0;
  for (unsigned r = 0; r < rounds; ++r) {
    for (unsigned sh = 0; sh < 32; sh += 8) {  /* compute */
      for (unsigned k = 0; k < 256; ++k) cnt[k] = 0;
      for (unsigned k = 0; k < KEYS; ++k) cnt[(keys[k] >> sh) & 255]++;
      checksum += cnt[r & 255];
    }
    const unsigned t = (me + offset + r * step) % n, d = t == me ? (me + 1) % n : t;
    put_block(emx_gaddr(d, inbox), block, words);  /* stream */
    emx_send(EMX_PKT_invoke1, emx_gaddr(d, &frame.slot[0]), emx_gaddr(me, &frame.slot[1]));
  }
  emx_end();  /* the acknowledgements come as threads */
  return 0;
}
