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
#include <algorithm>
#include <functional>
#include <memory>
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

  // push, when the key goes into the wheel's window or before it, to a run with room as
  // it is; false: not pushed. (The usual push, without calls: its caller needs no frame.)
  [[gnu::always_inline]] bool push_in_place(uint64_t key) {
    const uint64_t clock = key >> kPeBits;
    if (first_ == UINT64_MAX) return false;
    if (clock - base_ < kWindow) {
      Run& run = buckets_[clock & kMask];
      if (!run.has_room()) return false;
      run.insert_in_place(key);
      occupied_[(clock & kMask) / 64] |= uint64_t(1) << (clock & 63);
      first_ = std::min(first_, clock);
    } else if (clock < base_ && before_.has_room()) {
      before_.insert_in_place(key);
    } else {
      return false;
    }
    front_ = std::min(front_, key);
    return true;
  }

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
    std::unique_ptr<uint64_t[]> keys;
    uint32_t head = 0, size = 0, capacity = 0;
    bool empty() const { return head == size; }
    uint64_t front() const { return keys[head]; }
    bool has_room() const { return size < capacity; }
    void insert(uint64_t key) {
      if (!has_room()) grow();
      insert_in_place(key);
    }
    // (has_room)
    void insert_in_place(uint64_t key) {
      uint32_t at = size++;
      for (; at > head && keys[at - 1] > key; --at) keys[at] = keys[at - 1];
      keys[at] = key;
    }
    void take() {
      if (++head == size) head = size = 0;
    }
    // (Out of line: rare.)
    [[gnu::noinline]] void grow() {
      capacity = capacity ? 2 * capacity : 8;
      std::unique_ptr<uint64_t[]> k(new uint64_t[capacity]);
      std::copy(keys.get() + head, keys.get() + size, k.get());
      keys = std::move(k);
      size -= head;
      head = 0;
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
