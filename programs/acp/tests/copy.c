/* acp_copy between every kind of source and destination: local, remote, and remote to
 * remote (on a third rank or on one remote rank), at every alignment of both ends, with
 * guard bytes around the destination that must not change; order handles chaining
 * overlapping copies (also remote-to-remote chains of whole words); copies between every
 * pair of other ranks started by every rank at once; more copies in flight than the ring
 * holds. Needs 4 PEs. */
#include <emx/bytes.h>
#include <string.h>

#include "common.h"

enum { AREA = 16384, SRC_AT = 64, DST_AT = 8192 + 64, GUARD = 5 };
static uint8_t area[AREA] __attribute__((aligned(8)));
static acp_ga_t *gas;

static uint8_t pattern(unsigned pe, unsigned i) { return (uint8_t)(pe * 37 + i * 11 + 1); }

static acp_ga_t ga_at(unsigned pe, unsigned off) { return gas[pe] + off; }

/* One copy from rank spe to rank dpe, started by rank 0; checks the destination and its
 * guard bytes, then clears them again. */
static void one(unsigned spe, unsigned dpe, unsigned size, unsigned salign, unsigned dalign) {
  const unsigned s = SRC_AT + salign, d = DST_AT + dalign;
  const acp_handle_t h = acp_copy(ga_at(dpe, d), ga_at(spe, s), size, ACP_HANDLE_NULL);
  CHECK(h != ACP_HANDLE_NULL, "copy refused");
  acp_complete(h);
  CHECK(acp_inquire(h) == 0, "inquire after complete");
  static uint8_t got[4096 + 2 * GUARD];
  emx_get_bytes(got, dpe, &area[d - GUARD], size + 2 * GUARD);
  int bad = 0;
  for (unsigned i = 0; i < size + 2 * GUARD; ++i) {
    const uint8_t want = i < GUARD || i >= size + GUARD ? 0 : pattern(spe, s + i - GUARD);
    if (got[i] != want) ++bad;
  }
  CHECK(!bad, "%u -> %u, %u bytes, alignments %u/%u: %d bytes wrong", spe, dpe, size, salign,
        dalign, bad);
  static uint8_t zero[4096 + 2 * GUARD];
  emx_put_bytes(dpe, &area[d - GUARD], zero, size + 2 * GUARD);
  emx_fence_bytes(dpe);
}

static void every_combination(void) {
  static const unsigned pairs[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 2}, {2, 2}, {3, 1}};
  static const unsigned small[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13};
  static const unsigned large[] = {64, 257, 1000, 4096};
  for (unsigned p = 0; p < sizeof pairs / sizeof *pairs; ++p) {
    const unsigned spe = pairs[p][0], dpe = pairs[p][1];
    for (unsigned k = 0; k < sizeof small / sizeof *small; ++k)
      for (unsigned a = 0; a < 16; ++a) one(spe, dpe, small[k], a & 3, a >> 2);
    for (unsigned k = 0; k < sizeof large / sizeof *large; ++k)
      for (unsigned a = 0; a < 16; a += 5) one(spe, dpe, large[k], a & 3, a >> 2);
  }
  printf("every combination: %s\n", failures ? "FAILED" : "ok");
}

/* A chain of overlapping copies: local -> rank 1 -> rank 2 -> rank 3 -> back here, each
 * ordered after the one before; the last must see the first's data. */
static void ordered_chain(void) {
  static uint8_t buf[2000], back[2000];
  const acp_atkey_t kb = acp_register_memory(buf, sizeof buf, 0);
  const acp_atkey_t kk = acp_register_memory(back, sizeof back, 0);
  int bad = 0;
  for (unsigned round = 0; round < 20; ++round) {
    const unsigned n = 100 * round + 3;
    for (unsigned i = 0; i < n; ++i) buf[i] = (uint8_t)(round * 7 + i);
    acp_handle_t h = acp_copy(ga_at(1, DST_AT), acp_query_ga(kb, buf), n, ACP_HANDLE_NULL);
    h = acp_copy(ga_at(2, DST_AT + 1), ga_at(1, DST_AT), n, h);
    h = acp_copy(ga_at(3, DST_AT + 3), ga_at(2, DST_AT + 1), n, ACP_HANDLE_ALL);
    h = acp_copy(acp_query_ga(kk, back), ga_at(3, DST_AT + 3), n, h);
    acp_complete(h);
    bad += memcmp(buf, back, n) != 0;
  }
  CHECK(!bad, "%d ordered chains saw stale data", bad);
  acp_unregister_memory(kb);
  acp_unregister_memory(kk);
  printf("ordered chains: %s\n", bad ? "FAILED" : "ok");
}

/* More copies than the ring's records: acp_copy waits for room; every one lands. */
static void many_in_flight(void) {
  static uint32_t src[200], dst[200];
  const acp_atkey_t ks = acp_register_memory(src, sizeof src, 0);
  const acp_atkey_t kd = acp_register_memory(dst, sizeof dst, 0);
  const acp_ga_t gs = acp_query_ga(ks, src), gd = acp_query_ga(kd, dst);
  for (unsigned i = 0; i < 200; ++i) src[i] = 1000 + i;
  acp_handle_t first = 0, last = 0;
  for (unsigned i = 0; i < 200; ++i) {
    last = acp_copy(ga_at(1 + i % 3, DST_AT + 4 * i), gs + 4 * i, 4, ACP_HANDLE_NULL);
    if (!first) first = last;
  }
  acp_complete(ACP_HANDLE_ALL);
  CHECK(acp_inquire(first) == 0 && acp_inquire(last) == 0, "inquire");
  for (unsigned i = 0; i < 200; ++i)
    acp_copy(gd + 4 * i, ga_at(1 + i % 3, DST_AT + 4 * i), 4, ACP_HANDLE_NULL);
  acp_complete(ACP_HANDLE_ALL);
  int bad = 0;
  for (unsigned i = 0; i < 200; ++i) bad += dst[i] != 1000 + i;
  CHECK(!bad, "%d of 200 copies lost", bad);
  printf("200 copies in flight: %s\n", bad ? "FAILED" : "ok");
  static uint8_t zero[800];
  for (unsigned pe = 1; pe < 4; ++pe) emx_put_bytes(pe, &area[DST_AT], zero, sizeof zero);
  emx_fence_all();
  acp_unregister_memory(ks);
  acp_unregister_memory(kd);
}

/* Chains of whole-word remote-to-remote copies (EM-X: block reads by the source's memory
 * unit): rank 1 -> 2 -> 3 -> 1, each ordered after the one before, overwriting what the
 * chain wrote before; rank 0 starts them all and checks where the last one wrote. */
static void whole_word_chains(void) {
  enum { AT = DST_AT + 2048 };
  int bad = 0;
  for (unsigned round = 0; round < 12; ++round) {
    const unsigned n = 4 * (37 * round + 1), from = SRC_AT + 4 * round;
    acp_handle_t h = acp_copy(ga_at(2, AT), ga_at(1, from), n, ACP_HANDLE_NULL);
    h = acp_copy(ga_at(3, AT), ga_at(2, AT), n, h);
    h = acp_copy(ga_at(1, AT), ga_at(3, AT), n, h);
    acp_complete(h);
    static uint8_t got[4 * 37 * 12];
    emx_get_bytes(got, 1, &area[AT], n);
    for (unsigned i = 0; i < n; ++i) bad += got[i] != pattern(1, from + i);
  }
  CHECK(!bad, "%d bytes of whole-word chains wrong", bad);
  static uint8_t zero[4 * 37 * 12];
  for (unsigned pe = 1; pe < 4; ++pe) emx_put_bytes(pe, &area[DST_AT + 2048], zero, sizeof zero);
  emx_fence_all();
  printf("whole-word chains: %s\n", bad ? "FAILED" : "ok");
}

/* Every rank at once starts remote-to-remote copies between every ordered pair of the
 * other ranks (whole words, and one byte off), all in flight together: several origins
 * read one source and write one destination, several sources write one destination.
 * Each destination checks what it received. */
enum { MANY = 6, PIECE = 240 };
static uint8_t many[4 * MANY * PIECE] __attribute__((aligned(8)));

static void many_origins(const acp_ga_t *many_gas) {
  const unsigned me = emx_pe_id();
  unsigned k = 0;
  for (unsigned s = 0; s < 4; ++s)
    for (unsigned d = 0; d < 4; ++d)
      if (s != me && d != me && s != d) {
        const unsigned off = (k & 1) ? 1 : 0, size = PIECE - 4 * (k & 1);
        acp_copy(many_gas[d] + (me * MANY + k) * PIECE + off, ga_at(s, SRC_AT + 4 * k + off),
                 size, ACP_HANDLE_NULL);
        ++k;
      }
  acp_complete(ACP_HANDLE_ALL);
  acp_sync();
  int bad = 0;
  for (unsigned o = 0; o < 4; ++o) { /* what origin o sent here, in its order */
    unsigned j = 0;
    for (unsigned s = 0; s < 4; ++s)
      for (unsigned d = 0; d < 4; ++d)
        if (s != o && d != o && s != d) {
          const unsigned off = (j & 1) ? 1 : 0, size = PIECE - 4 * (j & 1);
          if (d == me)
            for (unsigned i = 0; i < size; ++i)
              bad += many[(o * MANY + j) * PIECE + off + i] != pattern(s, SRC_AT + 4 * j + off + i);
          ++j;
        }
  }
  CHECK(!bad, "%d bytes received from several origins at once wrong", bad);
  const int all = emx_sum_i32(bad);
  if (me == 0) printf("many origins at once: %s\n", all ? "FAILED" : "ok");
}

/* Long copies (on EM-X' and EM-4 they are paced in chunks): put to rank 1, rank 1 to
 * rank 2, get back from rank 2; misaligned by one byte so partial words come along. */
enum { LONG = 20000 };
static uint8_t long_area[LONG + 8] __attribute__((aligned(8)));

static void long_copies(const acp_ga_t *long_gas) {
  static uint8_t back[LONG + 8];
  const acp_atkey_t kb = acp_register_memory(back, sizeof back, 0);
  for (unsigned i = 0; i < LONG; ++i) long_area[1 + i] = (uint8_t)(i * 7 + 3);
  acp_handle_t h = acp_copy(long_gas[1] + 2, long_gas[0] + 1, LONG, ACP_HANDLE_NULL);
  h = acp_copy(long_gas[2] + 3, long_gas[1] + 2, LONG, h);
  h = acp_copy(acp_query_ga(kb, back), long_gas[2] + 3, LONG, h);
  acp_complete(h);
  const int bad = memcmp(back, long_area + 1, LONG) != 0;
  CHECK(!bad, "a %d-byte put, remote copy and get chain lost data", LONG);
  printf("long copies: %s\n", bad ? "FAILED" : "ok");
  acp_unregister_memory(kb);
}

int main(int argc, char **argv) {
  acp_init(&argc, &argv);
  const unsigned me = (unsigned)acp_rank();
  if (acp_procs() < 4) {
    printf("needs 4 ranks\n");
    return 1;
  }
  for (unsigned i = 0; i < AREA; ++i) area[i] = i >= DST_AT - 64 ? 0 : pattern(me, i);
  const acp_atkey_t key = acp_register_memory(area, sizeof area, 0);
  gas = exchange_gas(acp_query_ga(key, area));
  const acp_atkey_t long_key = acp_register_memory(long_area, sizeof long_area, 0);
  acp_ga_t *long_gas = exchange_gas(acp_query_ga(long_key, long_area));
  const acp_atkey_t many_key = acp_register_memory(many, sizeof many, 0);
  acp_ga_t *many_gas = exchange_gas(acp_query_ga(many_key, many));
  many_origins(many_gas);
  if (me == 0) {
    every_combination();
    ordered_chain();
    whole_word_chains();
    many_in_flight();
    long_copies(long_gas);
    printf("acp memory per rank: %u bytes\n", (unsigned)acp_memory_bytes());
  }
  acp_sync();
  const int r = report("acp copy");
  acp_finalize();
  return r;
}
