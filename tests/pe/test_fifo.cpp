// The ring-buffer FIFO of the PEs' and output ports' queues: order through growth and
// wrap-around, push_back_in_place only where no growth is needed (none before the first
// buffer), and a moved-from queue left empty and usable.
#include <gtest/gtest.h>

#include <deque>

#include "sim/pe/fifo.h"

namespace emx::pe {
namespace {

TEST(Fifo, KeepsOrderAndPushesInPlaceOnlyWithRoom) {
  Fifo<int> f;
  EXPECT_FALSE(f.push_back_in_place(1));  // no buffer yet: full
  EXPECT_TRUE(f.empty());
  std::deque<int> ref;
  int next = 0;
  for (int round = 0; round < 200; ++round) {
    // Pushes in place until it is full, or grows by push_back, then pops some.
    for (int k = round % 7; k >= 0; --k) {
      const size_t before = f.size();
      if (round % 3 == 0 || !f.push_back_in_place(next)) {
        if (round % 3 != 0) EXPECT_EQ(f.size(), before);  // refused: nothing done
        f.push_back(next);
      }
      ref.push_back(next++);
    }
    ASSERT_EQ(f.size(), ref.size());
    for (size_t k = 0; k < ref.size(); ++k) ASSERT_EQ(f[k], ref[k]);
    for (int k = round % 5; k >= 0 && !ref.empty(); --k) {
      EXPECT_EQ(f.front(), ref.front());
      f.pop_front();
      ref.pop_front();
    }
  }
}

TEST(Fifo, MovedFromIsEmptyAndUsable) {
  Fifo<int> a;
  for (int k = 0; k < 10; ++k) a.push_back(k);
  Fifo<int> b(std::move(a));
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b[9], 9);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the documented state
  EXPECT_FALSE(a.push_back_in_place(1));
  a.push_back(7);
  EXPECT_EQ(a.front(), 7);
  b = std::move(a);
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(b.front(), 7);
}

}  // namespace
}  // namespace emx::pe
