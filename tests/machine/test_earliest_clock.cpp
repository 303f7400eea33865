// The output ports' earliest clock: its first endpoint is always the one a (clock,
// endpoint) minimum over all endpoints names, whatever the order of updates and wherever
// the clocks lie (its wheel's window, beyond it, before it).
#include <gtest/gtest.h>

#include <algorithm>
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
      e.set(ep, t);
      ref[ep] = t;
      unsigned best = 0;
      for (unsigned k = 1; k < n; ++k)
        if (ref[k] < ref[best]) best = k;
      ASSERT_EQ(e.first_clock(), ref[best]);
      if (ref[best] != UINT64_MAX) {
        ASSERT_EQ(e.first(), best);
      }
      ASSERT_EQ(e.at(ep), t);
    }
  }
}

// As the output ports use it: clocks mostly a few after the present one, some a quantum
// or more ahead (beyond the window), some before the clocks visited last; the present
// moves on, and the endpoints due by it are visited in (clock, endpoint) order.
TEST(EarliestClock, VisitsInClockThenEndpointOrderAsTimeMovesOn) {
  for (unsigned n : {2u, 65u, 1025u}) {
    EarliestClock e(n);
    std::vector<uint64_t> ref(n, UINT64_MAX);
    std::mt19937 rng(n);
    uint64_t now = 5;
    for (int step = 0; step < 30000; ++step) {
      const unsigned ep = rng() % n;
      const unsigned kind = rng() % 16;
      const uint64_t t = kind == 0   ? now + 1000 + rng() % 3000  // beyond the window
                         : kind == 1 ? now - rng() % 5              // before the last visited
                                     : now + rng() % 8;
      if (t < ref[ep]) {
        e.set(ep, t);
        ref[ep] = t;
      }
      if (rng() % 4) continue;
      now += rng() % 6;
      // Visit every endpoint due by now, each then set later or to none.
      uint64_t last = 0;
      unsigned last_ep = 0;
      bool any = false;
      while (e.first_clock() <= now) {
        const unsigned k = e.first();
        const uint64_t c = e.first_clock();
        ASSERT_EQ(ref[k], c);
        for (unsigned j = 0; j < n; ++j) ASSERT_TRUE(ref[j] > c || (ref[j] == c && j >= k));
        ASSERT_TRUE(!any || c > last || (c == last && k > last_ep));
        any = true;
        last = c;
        last_ep = k;
        const uint64_t next = rng() % 3 ? UINT64_MAX : now + 1 + rng() % 2000;
        e.set(k, next);
        ref[k] = next;
      }
      const uint64_t best = *std::min_element(ref.begin(), ref.end());
      ASSERT_EQ(e.first_clock(), best);
    }
  }
}

}  // namespace
}  // namespace emx::machine
