/* Helpers of the ACP and OMPL test programs: exchanging global addresses, checks. */
#ifndef ACP_TESTS_COMMON_H
#define ACP_TESTS_COMMON_H

#include <acp.h>
#include <emx/emc.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(cond, ...)                                      \
  do {                                                        \
    if (!(cond)) {                                            \
      ++failures;                                             \
      if (failures < 20) {                                    \
        printf("FAIL rank %u line %d: ", emx_pe_id(), __LINE__); \
        printf(__VA_ARGS__);                                  \
        printf("\n");                                         \
      }                                                       \
    }                                                         \
  } while (0)

/* Every rank's value of `mine` (the application's job in ACP: nothing is told by the
 * layer), gathered on every rank by remote writes into a table at the same address. */
static inline acp_ga_t *exchange_gas(acp_ga_t mine) {
  static uint32_t words[2 * 1024]; /* at the same address on every PE */
  const unsigned pes = emx_pe_count(), me = emx_pe_id();
  acp_ga_t *t = malloc(pes * sizeof *t);
  for (unsigned pe = 0; pe < pes; ++pe) {
    emx_write(emx_gaddr(pe, &words[2 * me]), (uint32_t)mine);
    emx_write(emx_gaddr(pe, &words[2 * me + 1]), (uint32_t)(mine >> 32));
  }
  emx_fence_all();
  emx_barrier();
  for (unsigned pe = 0; pe < pes; ++pe) t[pe] = words[2 * pe] | (uint64_t)words[2 * pe + 1] << 32;
  emx_barrier();
  return t;
}

static inline int report(const char *name) {
  const int all = emx_sum_i32(failures);
  if (emx_pe_id() == 0) printf("%s: %s\n", name, all ? "FAILED" : "ok");
  return all != 0;
}

#endif
