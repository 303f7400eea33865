/* ACP atomics under contention: every rank hammers words of rank 0 with add, swap,
 * and/or/xor and compare-and-swap loops, 4 and 8 bytes; the final values and the old
 * values returned must be what atomic execution gives. Run on 80 PEs. */
#include "common.h"

enum { ADDS = 20, CAS_INCS = 5 };
enum { W_ADD4, W_ADD8 = 2, W_CAS4 = 4, W_CAS8 = 6, W_OR = 8, W_AND, W_XOR, W_SWAP, WORDS = 12 };
static uint32_t target[WORDS] __attribute__((aligned(8))); /* rank 0's are the ones used */
static uint64_t result;

int main(int argc, char **argv) {
  acp_init(&argc, &argv);
  const unsigned me = (unsigned)acp_rank(), pes = (unsigned)acp_procs();
  target[W_AND] = 0xffffffffu;
  const acp_atkey_t kt = acp_register_memory(target, sizeof target, 0);
  const acp_atkey_t kr = acp_register_memory(&result, sizeof result, 0);
  acp_ga_t *gas = exchange_gas(acp_query_ga(kt, target));
  const acp_ga_t t = gas[0], res = acp_query_ga(kr, &result);
  acp_sync();

  /* add: 4 and 8 bytes (the 8-byte one carries into its high word). */
  uint32_t add4_olds = 0;
  for (unsigned k = 0; k < ADDS; ++k) {
    acp_complete(acp_add4(res, t + 4 * W_ADD4, 1, ACP_HANDLE_NULL));
    add4_olds += (uint32_t)result;
    acp_complete(acp_add8(res, t + 4 * W_ADD8, 0xffffffffull, ACP_HANDLE_NULL));
  }
  /* compare-and-swap increments: retry until our expected value was there. */
  for (unsigned k = 0; k < CAS_INCS; ++k) {
    uint32_t seen = 0;
    for (;;) {
      acp_complete(acp_cas4(res, t + 4 * W_CAS4, seen, seen + 1, ACP_HANDLE_NULL));
      if ((uint32_t)result == seen) break;
      seen = (uint32_t)result;
    }
    uint64_t seen8 = 0;
    for (;;) {
      acp_complete(acp_cas8(res, t + 4 * W_CAS8, seen8, seen8 + 0x100000001ull, ACP_HANDLE_NULL));
      if (result == seen8) break;
      seen8 = result;
    }
  }
  acp_complete(acp_or4(res, t + 4 * W_OR, 1u << (me % 32), ACP_HANDLE_NULL));
  acp_complete(acp_and4(res, t + 4 * W_AND, ~(1u << (me % 32)), ACP_HANDLE_NULL));
  acp_complete(acp_xor4(res, t + 4 * W_XOR, 1u << (me % 32), ACP_HANDLE_NULL));
  acp_complete(acp_swap4(res, t + 4 * W_SWAP, me + 1, ACP_HANDLE_NULL));
  const uint32_t swapped_out = (uint32_t)result;
  acp_sync();

  /* Every old value an add returned is distinct, so they sum to 0 + 1 + ... + n-1. */
  const uint32_t n = pes * ADDS;
  const uint32_t olds = (uint32_t)emx_sum_i32((int32_t)add4_olds);
  const uint32_t swaps = (uint32_t)emx_sum_i32((int32_t)swapped_out);
  if (me == 0) {
    uint32_t xor_want = 0, or_want = 0;
    for (unsigned pe = 0; pe < pes; ++pe) xor_want ^= 1u << (pe % 32), or_want |= 1u << (pe % 32);
    const uint64_t add8 = target[W_ADD8] | (uint64_t)target[W_ADD8 + 1] << 32;
    const uint64_t cas8 = target[W_CAS8] | (uint64_t)target[W_CAS8 + 1] << 32;
    CHECK(target[W_ADD4] == n, "add4: %u, want %u", (unsigned)target[W_ADD4], (unsigned)n);
    CHECK(olds == n * (n - 1) / 2, "add4 old values sum to %u", (unsigned)olds);
    CHECK(add8 == (uint64_t)n * 0xffffffffull, "add8 wrong");
    CHECK(target[W_CAS4] == pes * CAS_INCS, "cas4: %u", (unsigned)target[W_CAS4]);
    CHECK(cas8 == (uint64_t)pes * CAS_INCS * 0x100000001ull, "cas8 wrong");
    CHECK(target[W_OR] == or_want, "or: %#x", (unsigned)target[W_OR]);
    CHECK(target[W_AND] == ~or_want, "and: %#x", (unsigned)target[W_AND]);
    CHECK(target[W_XOR] == xor_want, "xor: %#x", (unsigned)target[W_XOR]);
    /* The swaps form one chain: the values given out plus the one left are 0..pes. */
    CHECK(swaps + target[W_SWAP] == pes * (pes + 1) / 2, "swap chain broken");
    printf("atomics from %u ranks: add4 %u, add8 %llu, cas4 %u, cas8 %llu, or %#x, and %#x, "
           "xor %#x\n", pes, (unsigned)target[W_ADD4], (unsigned long long)add8,
           (unsigned)target[W_CAS4], (unsigned long long)cas8, (unsigned)target[W_OR],
           (unsigned)target[W_AND], (unsigned)target[W_XOR]);
  }
  const int r = report("acp atomics");
  acp_finalize();
  return r;
}
