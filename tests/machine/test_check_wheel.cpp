// The output ports' check wheel: whatever the clocks (in its window, beyond it, pushed while
// a clock runs, that clock included), checks run in (clock, order pushed), next_time() is
// always the earliest pending clock, and each endpoint's check runs once.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

#include "sim/machine/check_wheel.h"

namespace emx::machine {
namespace {

TEST(CheckWheel, RunsInClockThenPushOrderWhereverTheCheckWent) {
  constexpr unsigned kEndpoints = 40;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    CheckWheel w(kEndpoints);
    std::mt19937_64 rng(seed);
    std::map<std::pair<uint64_t, uint64_t>, unsigned> ref;  // (clock, push order) -> endpoint
    std::vector<bool> pending(kEndpoints, false);
    uint64_t order = 0, last = 0;  // last: the clock run last
    auto push = [&](uint64_t clock, unsigned ep, bool running = false) {
      if (running)
        w.push_while_running(clock, ep);
      else
        w.push(clock, ep);
      ref[{clock, order++}] = ep;
      pending[ep] = true;
    };
    // Mostly a few clocks after the last one run, some at it, some beyond the window.
    auto some_clock = [&] {
      switch (rng() % 10) {
        case 0: return last + 1024 + rng() % 4000;
        case 1: return last;
        default: return last + rng() % 40;
      }
    };
    for (int step = 0; step < 100000; ++step) {
      const unsigned ep = unsigned(rng() % kEndpoints);
      if (!pending[ep] && rng() % 3) {
        push(some_clock(), ep);
      } else if (!ref.empty()) {
        const uint64_t t = ref.begin()->first.first;
        ASSERT_EQ(w.next_time(), t) << "step " << step;
        last = t;
        std::vector<unsigned> got, want;
        w.run_clock(t, [&](unsigned e) {
          got.push_back(e);
          pending[e] = false;
          // A check runs again at this clock or later: pushed while the clock runs (as
          // the output ports push it, or as any push).
          if (rng() % 4 == 0) push(rng() % 8 == 0 ? t : some_clock(), e, rng() % 2);
        });
        // Every check of clock t, those pushed meanwhile included, in push order.
        while (!ref.empty() && ref.begin()->first.first == t) {
          want.push_back(ref.begin()->second);
          ref.erase(ref.begin());
        }
        ASSERT_EQ(got, want) << "step " << step;
      }
      ASSERT_EQ(w.next_time(), ref.empty() ? UINT64_MAX : ref.begin()->first.first)
          << "step " << step;
    }
  }
}

// A bucket whose list a clock took starts a new one at its next push, a window later too
// (the bucket's last link goes back to its head: a push must not set the link of an
// endpoint that has already run).
TEST(CheckWheel, ABucketRunEmptyTakesANewList) {
  CheckWheel<> w(8);
  w.push(5, 3);
  w.push(5, 4);
  std::vector<unsigned> got;
  w.run_clock(5, [&](unsigned e) { got.push_back(e); });
  EXPECT_EQ(got, (std::vector<unsigned>{3, 4}));
  w.push(5 + 1024, 7);  // the same bucket, one window later
  w.push(6, 4);
  ASSERT_EQ(w.next_time(), 6u);
  got.clear();
  w.run_clock(6, [&](unsigned e) { got.push_back(e); });
  EXPECT_EQ(got, (std::vector<unsigned>{4}));
  ASSERT_EQ(w.next_time(), 5u + 1024);
  got.clear();
  w.run_clock(5 + 1024, [&](unsigned e) {
    got.push_back(e);
    if (e == 7) w.push_while_running(5 + 1024, 3);  // the bucket again, while it runs
  });
  EXPECT_EQ(got, (std::vector<unsigned>{7, 3}));
  EXPECT_EQ(w.next_time(), UINT64_MAX);
}

}  // namespace
}  // namespace emx::machine
