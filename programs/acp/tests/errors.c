/* The ACP layer's errors: every erroneous call prints what and where; with
 * acp_errors_return(1) it returns its null value. Argument "fatal": a remote-to-remote
 * copy from a registration its owner has withdrawn, which only the owner can see: it
 * stops every rank with exit status ACP_ERROR_EXIT ("fatal return": the owner only
 * reports it, and the copy completes without moving anything). Needs 3 PEs. */
#include <string.h>

#include "common.h"

static uint8_t area[256] __attribute__((aligned(8)));
static uint8_t other[64];

int main(int argc, char **argv) {
  acp_init(&argc, &argv);
  const unsigned me = (unsigned)acp_rank();
  const acp_atkey_t key = acp_register_memory(area, sizeof area, 0);
  acp_ga_t *gas = exchange_gas(acp_query_ga(key, area));
  const int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  if (fatal) {
    if (me == 1) acp_unregister_memory(key); /* tells nobody */
    if (me == 1 && argc > 2) acp_errors_return(1); /* "fatal return": rank 1 reports only */
    acp_sync();
    if (me == 0) acp_complete(acp_copy(gas[2], gas[1], 16, ACP_HANDLE_NULL));
    acp_sync();
    if (me == 0) printf("the refused copy completed without data\n");
    acp_finalize();
    return 0;
  }
  if (me == 0) {
    acp_errors_return(1);
    const acp_ga_t ga = gas[0];
    CHECK(acp_query_ga(key, other) == ACP_GA_NULL, "outside");
    CHECK(acp_query_ga(key + 40, area) == ACP_GA_NULL, "bad key");
    CHECK(acp_copy(gas[1] + 200, ga, 57, ACP_HANDLE_NULL) == ACP_HANDLE_NULL, "past dst");
    CHECK(acp_copy(ga, gas[1] + 255, 2, ACP_HANDLE_NULL) == ACP_HANDLE_NULL, "past src");
    CHECK(acp_copy(ga, ACP_GA_NULL, 4, ACP_HANDLE_NULL) == ACP_HANDLE_NULL, "null");
    CHECK(acp_copy(ga + ((acp_ga_t)9 << 54), ga, 4, ACP_HANDLE_NULL) == ACP_HANDLE_NULL, "rank");
    CHECK(acp_add4(ga, gas[1] + 2, 1, ACP_HANDLE_NULL) == ACP_HANDLE_NULL, "misaligned");
    CHECK(acp_copy(gas[1] + 200, ga, 56, ACP_HANDLE_NULL) != ACP_HANDLE_NULL, "exact end");
    acp_unregister_memory(key);
    CHECK(acp_copy(gas[1], ga, 4, ACP_HANDLE_NULL) == ACP_HANDLE_NULL, "unregistered");
    CHECK(acp_unregister_memory(key) == -1, "twice");
    CHECK(acp_register_memory(area, 0, 0) == ACP_ATKEY_NULL, "empty");
    CHECK(acp_register_memory((void *)0x10, 8, 0) == ACP_ATKEY_NULL, "null page");
    acp_atkey_t keys[ACP_MAX_REGISTRATIONS + 1];
    unsigned got = 0;
    for (unsigned k = 0; k <= ACP_MAX_REGISTRATIONS; ++k)
      if ((keys[k] = acp_register_memory(area, 4, 0)) != ACP_ATKEY_NULL) ++got;
    CHECK(got == ACP_MAX_REGISTRATIONS, "%u registrations", got);
    acp_complete(ACP_HANDLE_ALL);
  }
  acp_sync();
  const int r = report("acp errors");
  acp_finalize();
  return r;
}
