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

}  // namespace
}  // namespace emx::pe
