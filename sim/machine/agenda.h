// The network driver's agenda: keys (clock << kPeBits | PE) of parked PEs to continue,
// taken smallest first. A timing wheel over clocks: nearly every key lies within a
// quantum after the last one taken (a PE parked at its quantum's end, at a thread's
// settled sends, at an rtag's clock), so a push is an insertion into its clock's short
// run of keys and taking the smallest needs no heap sift (a binary heap of ~40 keys cost
// ~150 host instructions a key, push and pop: 2.7 % of the MPI ring's). Keys before the
// wheel's window (a PE resumed at the present SystemC clock while the driver runs ahead
// of it) and beyond it go to a sorted run and a heap beside; the smallest key is the
// least of the three fronts, kept in front_.
#pragma once
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "network/event_queue.h"

namespace emx::machine {

class Agenda {
 public:
  static constexpr unsigned kPeBits = 16;  // endpoints are 16-bit (net::Packet)

  Agenda() : buckets_(kWindow), occupied_(kWindow / 64, 0) {}

  // The smallest key, UINT64_MAX if none.
  uint64_t front() const { return front_; }

  [[gnu::always_inline]] void push(uint64_t key) {
    const uint64_t clock = key >> kPeBits;
    if (first_ == UINT64_MAX) base_ = clock;  // an empty wheel starts anywhere
    if (clock - base_ < kWindow) {  // (a clock before base_ wraps: not in the window)
      buckets_[clock & kMask].insert(key);
      occupied_[(clock & kMask) / 64] |= uint64_t(1) << (clock & 63);
      if (clock < first_) first_ = clock;
    } else if (clock < base_) {
      before_.insert(key);
    } else {
      after_.push(key);
    }
    if (key < front_) front_ = key;
  }

  // Takes front() (not empty).
  [[gnu::always_inline]] void pop() {
    const uint64_t key = front_;
    if (first_ != UINT64_MAX && buckets_[first_ & kMask].front() == key) {
      Run& run = buckets_[first_ & kMask];
      run.take();
      if (run.empty()) {
        occupied_[(first_ & kMask) / 64] &= ~(uint64_t(1) << (first_ & 63));
        base_ = first_;
        first_ = next_clock();
      }
    } else if (!before_.empty() && before_.front() == key) {
      before_.take();
    } else {
      after_.pop();
    }
    uint64_t f = first_ == UINT64_MAX ? UINT64_MAX : buckets_[first_ & kMask].front();
    if (!before_.empty() && before_.front() < f) f = before_.front();
    if (!after_.empty() && after_.top() < f) f = after_.top();
    front_ = f;
  }

 private:
  static constexpr uint64_t kWindow = 1024, kMask = kWindow - 1;
  // Keys in ascending order from head: a push goes in from the back (keys of one clock
  // mostly come in PE order), the smallest leaves from the head.
  struct Run {
    std::vector<uint64_t> keys;
    uint32_t head = 0;
    bool empty() const { return head == keys.size(); }
    uint64_t front() const { return keys[head]; }
    void insert(uint64_t key) {
      size_t at = keys.size();
      keys.push_back(key);
      for (; at > head && keys[at - 1] > key; --at) keys[at] = keys[at - 1];
      keys[at] = key;
    }
    void take() {
      if (++head == keys.size()) {
        keys.clear();
        head = 0;
      }
    }
  };
  // The first occupied bucket's clock after base_ (whose bucket is empty now), or
  // UINT64_MAX.
  uint64_t next_clock() const { return net::EventQueue::first_occupied(occupied_, base_, kMask); }

  std::vector<Run> buckets_;        // by clock & kMask, for clocks in [base_, base_ + kWindow)
  std::vector<uint64_t> occupied_;  // bit per bucket
  uint64_t base_ = 0;
  uint64_t first_ = UINT64_MAX;     // the first occupied bucket's clock, UINT64_MAX: none
  Run before_;                      // keys before base_
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> after_;  // beyond
  uint64_t front_ = UINT64_MAX;
};

}  // namespace emx::machine
