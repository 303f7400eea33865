// The output ports' tournament tree: its first endpoint is always the one a (clock,
// endpoint) minimum over all endpoints names, whatever the order of updates.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sim/machine/earliest_clock.h"

namespace emx::machine {
namespace {

TEST(EarliestClock, FirstIsTheEarliestThenLowestEndpoint) {
  for (unsigned n : {1u, 2u, 3u, 81u, 257u}) {
    EarliestClock e(n);
    std::vector<uint64_t> ref(n, UINT64_MAX);
    std::mt19937 rng(n);
    for (int step = 0; step < 20000; ++step) {
      const unsigned ep = rng() % n;
      // Few distinct clocks, so that ties are common; now and then none.
      const uint64_t t = rng() % 8 == 0 ? UINT64_MAX : rng() % 16;
      if (t < ref[ep] && rng() % 2)
        e.lower(ep, t);  // (what set does, for an earlier clock)
      else
        e.set(ep, t);
      ref[ep] = t;
      unsigned best = 0;
      for (unsigned k = 1; k < n; ++k)
        if (ref[k] < ref[best]) best = k;
      ASSERT_EQ(e.first_clock(), ref[best]);
      if (ref[best] != UINT64_MAX) ASSERT_EQ(e.first(), best);
      ASSERT_EQ(e.at(ep), t);
    }
  }
}

}  // namespace
}  // namespace emx::machine
