// The network driver's agenda: whatever the keys (before its wheel's window, in it, far
// beyond, equal ones) and however pushed (push, push_in_place), front() is always the
// smallest key held and pop() takes exactly it.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "sim/machine/agenda.h"

namespace emx::machine {
namespace {

uint64_t key(uint64_t clock, unsigned pe) { return clock << Agenda::kPeBits | pe; }

TEST(Agenda, FrontIsTheSmallestKeyWhereverItWent) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    Agenda a;
    std::multiset<uint64_t> ref;
    std::mt19937_64 rng(seed);
    uint64_t last = 0;  // the clock of the last key taken
    for (int step = 0; step < 200000; ++step) {
      if (ref.empty() || rng() % 5 < 3) {
        // Mostly a few clocks after the last one taken (the usual park), some at it or
        // before it (a PE resumed at the present clock), some far beyond the window;
        // few PEs, so that equal keys come too.
        uint64_t clock;
        switch (rng() % 8) {
          case 0: clock = last - std::min<uint64_t>(last, rng() % 3000); break;
          case 1: clock = last + 1000 + rng() % 5000; break;
          default: clock = last + rng() % 200; break;
        }
        const uint64_t k = key(clock, unsigned(rng() % 6));
        // (push_in_place: the same when it takes the key; else push does.)
        if (rng() % 2 == 0 || !a.push_in_place(k)) a.push(k);
        ref.insert(k);
      } else {
        ASSERT_EQ(a.front(), *ref.begin()) << "step " << step;
        last = a.front() >> Agenda::kPeBits;
        a.pop();
        ref.erase(ref.begin());
      }
      ASSERT_EQ(a.front(), ref.empty() ? UINT64_MAX : *ref.begin()) << "step " << step;
    }
    while (!ref.empty()) {  // drained in order, then empty
      ASSERT_EQ(a.front(), *ref.begin());
      a.pop();
      ref.erase(ref.begin());
    }
    EXPECT_EQ(a.front(), UINT64_MAX);
  }
}

TEST(Agenda, OneClockInPeOrderWhateverThePushOrder) {
  Agenda a;
  for (unsigned pe : {5u, 1u, 7u, 3u, 0u}) a.push(key(100, pe));
  a.push(key(99, 9));
  std::vector<uint64_t> got;
  for (int i = 0; i < 6; ++i) {
    got.push_back(a.front());
    a.pop();
  }
  EXPECT_EQ(got, (std::vector<uint64_t>{key(99, 9), key(100, 0), key(100, 1), key(100, 3),
                                        key(100, 5), key(100, 7)}));
  EXPECT_EQ(a.front(), UINT64_MAX);
}

}  // namespace
}  // namespace emx::machine
