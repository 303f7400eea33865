/* The ACP layer's errors: every erroneous call prints what and where; with
 * acp_errors_return(1) it returns its null value. Arguments "fatal [SIZE] [return]": a
 * remote-to-remote copy of SIZE bytes (default 15) from a registration its owner (rank
 * 1) has withdrawn to rank 2, which only the owner can see. When the owner's handler
 * moves it (a partial word; any size on EM-X' and EM-4) it stops every rank with exit
 * status ACP_ERROR_EXIT ("return": the owner only reports it, and the copy completes
 * without moving anything). Whole words on EM-X are moved by the owner's memory unit,
 * which checks nothing: the copy moves the data (docs/acp.md). Rank 2 says which
 * happened. Needs 3 PEs. */
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
    unsigned size = 15;
    int only_report = 0;
    for (int k = 2; k < argc; ++k)
      if (strcmp(argv[k], "return") == 0) only_report = 1;
      else size = (unsigned)atoi(argv[k]);
    memset(area, 0x10 + me, sizeof area);
    if (me == 1) acp_unregister_memory(key); /* tells nobody */
    if (me == 1 && only_report) acp_errors_return(1); /* rank 1 reports only */
    acp_sync();
    if (me == 0) acp_complete(acp_copy(gas[2], gas[1], size, ACP_HANDLE_NULL));
    acp_sync();
    if (me == 2)
      printf(area[0] == 0x11 ? "the copy from the withdrawn registration moved the data\n"
                             : "the refused copy completed without data\n");
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
