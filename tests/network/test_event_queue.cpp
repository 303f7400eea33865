// The event queue against a reference ordering: (time, scheduling order), across the
// timing wheel's window, its wrap-around and the far-event heap.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "network/event_queue.h"

namespace emx::net {
namespace {

TEST(NetEventQueue, RunsEventsInTimeThenSchedulingOrder) {
  for (uint64_t horizon : {3u, 100u}) {
    EventQueue q(horizon);  // a 64- or 128-clock wheel
    std::map<std::pair<uint64_t, uint32_t>, uint32_t> reference;  // (time, id) -> id
    std::mt19937_64 rng(horizon);
    uint32_t next_id = 0;
    auto push = [&](uint64_t time) {
      q.push(time, 0, next_id);
      reference[{time, next_id}] = next_id;  // ids grow with scheduling order
      ++next_id;
    };
    uint64_t now = 0;
    for (int i = 0; i < 200; ++i) push(rng() % 1000);
    std::vector<std::pair<uint64_t, uint32_t>> ran;
    while (!q.empty()) {
      const uint64_t t = q.next_time();
      ASSERT_GE(t, now);
      now = t;
      q.run_clock(t, [&](const EventQueue::Event& e) {
        ran.push_back({t, e.target});
        // Events schedule more: at the same clock, near, and far (past the window).
        if (next_id < 5000) {
          const uint64_t r = rng() % 10;
          if (r == 0) push(t);
          if (r < 6) push(t + 1 + rng() % 8);
          if (r == 7) push(t + 50 + rng() % 400);
        }
      });
    }
    ASSERT_EQ(ran.size(), reference.size());
    size_t i = 0;
    for (const auto& [key, id] : reference) {
      EXPECT_EQ(ran[i].first, key.first) << i;
      EXPECT_EQ(ran[i].second, id) << i;
      ++i;
    }
    EXPECT_EQ(q.next_time(), UINT64_MAX);
  }
}

}  // namespace
}  // namespace emx::net
