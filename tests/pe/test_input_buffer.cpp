// The input buffer: FIFO order, spilling beyond the on-chip part, refill costs, overflow.
#include <gtest/gtest.h>

#include "sim/pe/input_buffer.h"

namespace emx::pe {
namespace {

TEST(InputBuffer, SpillsBeyondOnChipAndKeepsOrder) {
  InputBufferConfig cfg;
  cfg.onchip_packets = 2;
  InputBuffer b(cfg, 100);
  for (uint32_t k = 0; k < 5; ++k) {
    ThreadToken t;
    t.op0 = k;
    EXPECT_EQ(b.push(t), k < 2 ? 0u : cfg.spill_clocks);
  }
  EXPECT_EQ(b.spills(), 3u);
  EXPECT_EQ(b.max_occupancy(), 5u);
  for (uint32_t k = 0; k < 5; ++k) {
    ThreadToken t;
    EXPECT_EQ(b.pop(t), k < 2 ? 0u : cfg.refill_clocks);
    EXPECT_EQ(t.op0, k);  // FIFO
  }
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.refills(), 3u);
}

// EM-4 pays one extra clock per memory reference; a packet is two words in memory.
TEST(InputBuffer, SpillAndRefillPayTheMemoryPenaltyPerWord) {
  InputBufferConfig cfg;
  cfg.onchip_packets = 1;
  InputBuffer b(cfg, 100, 1);
  ThreadToken t;
  EXPECT_EQ(b.push(t), 0u);
  EXPECT_EQ(b.push(t), cfg.spill_clocks + 2);
  EXPECT_EQ(b.pop(t), 0u);
  EXPECT_EQ(b.pop(t), cfg.refill_clocks + 2);
}

// EM-4: the spill's two words took the execution unit's memory port; the clocks are
// charged to the execution unit when the spilled packet comes back (a packet that did
// not spill costs nothing).
TEST(InputBuffer, TheSpillsPortClocksAreChargedWithTheRefill) {
  InputBufferConfig cfg;
  cfg.onchip_packets = 1;
  cfg.spill_exu_clocks = 2;
  InputBuffer b(cfg, 100, 1);
  ThreadToken t;
  EXPECT_EQ(b.push(t), 0u);
  EXPECT_EQ(b.push(t), cfg.spill_clocks + 2);  // the memory unit's clocks are unchanged
  EXPECT_EQ(b.pop(t), 0u);
  EXPECT_EQ(b.pop(t), cfg.refill_clocks + 2 + 2);
}

TEST(InputBuffer, AFullSpillAreaIsAnError) {
  InputBufferConfig cfg;
  cfg.onchip_packets = 1;
  InputBuffer b(cfg, 2);
  ThreadToken t;
  b.push(t);
  b.push(t);
  b.push(t);
  EXPECT_THROW(b.push(t), std::runtime_error);
}

// The execution unit may take the head at a clock the network has not reached yet (the
// next thread was certain); a packet that arrives before that clock but is delivered
// later must meet the occupancy the hardware had at its arrival.
TEST(InputBuffer, OccupancyIsTheOneAtTheArrivalClock) {
  InputBufferConfig cfg;
  cfg.onchip_packets = 2;
  for (const bool early_pop : {true, false}) {
    InputBuffer b(cfg, 100);
    ThreadToken t;
    EXPECT_EQ(b.push(t, 10), 0u);
    EXPECT_EQ(b.push(t, 11), 0u);
    // Taken at clock 20; arrivals up to `settled` are in already.
    b.pop(t, 20, early_pop ? 12 : 20);
    if (early_pop) {
      EXPECT_EQ(b.push(t, 15), cfg.spill_clocks);  // at 15 the head was still there
      EXPECT_EQ(b.max_occupancy(), 3u);
      EXPECT_EQ(b.push(t, 21), cfg.spill_clocks);  // after the pop: two are in (11, 15)
    } else {
      EXPECT_EQ(b.push(t, 21), 0u);
      EXPECT_EQ(b.max_occupancy(), 2u);
    }
  }
}

}  // namespace
}  // namespace emx::pe
