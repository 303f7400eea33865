// A clock per endpoint (UINT64_MAX: none) and, at any time, the endpoint whose clock is
// earliest (the lowest endpoint among equal clocks): for the output ports, which visit
// the endpoints holding packets in (clock, endpoint) order. Few endpoints have a clock at
// once (a port holds packets only while a memory-unit reply or a send waits for its
// clock), mostly within a few clocks of each other: a timing wheel of 1024 clocks whose
// buckets are lists of endpoints in endpoint order, a bitmap of the occupied buckets, and
// the first (clock, endpoint) kept, one load away. A clock outside the wheel's window
// (beyond it, or before the first bucket's clock) goes to a heap beside, whose entries of
// an endpoint set since are skipped. (A tournament tree over the endpoints did this with
// a walk over log2(endpoints) nodes at every update: ~100 host instructions at 64 PEs,
// twice per memory-unit reply.)
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "network/event_queue.h"

namespace emx::machine {

class EarliestClock {
 public:
  explicit EarliestClock(unsigned endpoints)
      : at_(endpoints, kNone),
        next_(endpoints, kNil),
        prev_(endpoints, kNil),
        where_(endpoints, Where::none),
        generation_(endpoints, 0),
        head_(kSize, kNil),
        occupied_(kSize / 64, 0) {}

  uint64_t at(unsigned ep) const { return at_[ep]; }
  // The earliest clock's endpoint (any, when no endpoint has a clock).
  unsigned first() const { return first_ep_; }
  uint64_t first_clock() const { return first_clock_; }

  [[gnu::always_inline]] void set(unsigned ep, uint64_t t) {
    take(ep);
    at_[ep] = t;
    if (t != kNone) put(ep, t);
    refresh();
  }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr uint64_t kSize = 1024, kMask = kSize - 1;
  enum class Where : uint8_t { none, wheel, far };

  // Takes ep out of the wheel, if it is there (an entry in the heap becomes stale).
  [[gnu::always_inline]] void take(unsigned ep) {
    if (where_[ep] == Where::far) ++generation_[ep];
    if (where_[ep] != Where::wheel) {
      where_[ep] = Where::none;
      return;
    }
    where_[ep] = Where::none;
    const uint64_t b = at_[ep] & kMask;
    const uint32_t prev = prev_[ep], next = next_[ep];
    (prev == kNil ? head_[b] : next_[prev]) = next;
    if (next != kNil) prev_[next] = prev;
    --count_;
    if (head_[b] != kNil) return;
    occupied_[b / 64] &= ~(uint64_t(1) << (b & 63));
    if (at_[ep] != first_) return;
    // Every clock in the wheel is at or after the first: the window may start there.
    // (Mostly the wheel is empty now: no scan.)
    base_ = first_;
    first_ = count_ ? net::EventQueue::first_occupied(occupied_, base_, kMask) : kNone;
  }

  [[gnu::always_inline]] void put(unsigned ep, uint64_t t) {
    if (first_ == kNone) base_ = t;  // an empty wheel starts anywhere
    if (t - base_ >= kSize) [[unlikely]] {  // (before base_ wraps: not in the window either)
      put_far(ep, t);
      return;
    }
    where_[ep] = Where::wheel;
    const uint64_t b = t & kMask;
    // In endpoint order: walk the bucket's list (mostly empty) to ep's place.
    uint32_t prev = kNil, next = head_[b];
    while (next != kNil && next < ep) {
      prev = next;
      next = next_[next];
    }
    (prev == kNil ? head_[b] : next_[prev]) = ep;
    prev_[ep] = prev;
    next_[ep] = next;
    if (next != kNil) prev_[next] = ep;
    occupied_[b / 64] |= uint64_t(1) << (b & 63);
    first_ = std::min(first_, t);
    ++count_;
  }

  struct Far {
    uint64_t t;
    uint32_t ep, generation;
  };
  static bool later(const Far& a, const Far& b) { return a.t != b.t ? a.t > b.t : a.ep > b.ep; }
  // (Out of line: rare.)
  [[gnu::noinline]] void put_far(unsigned ep, uint64_t t) {
    where_[ep] = Where::far;
    far_.push_back({t, ep, generation_[ep]});
    std::push_heap(far_.begin(), far_.end(), later);
  }
  bool stale(const Far& f) const { return f.generation != generation_[f.ep] || where_[f.ep] != Where::far; }

  void refresh() {
    first_clock_ = first_;
    first_ep_ = first_ == kNone ? 0 : head_[first_ & kMask];
    if (!far_.empty()) [[unlikely]] refresh_far();
  }
  [[gnu::noinline]] void refresh_far() {
    while (!far_.empty() && stale(far_.front())) {
      std::pop_heap(far_.begin(), far_.end(), later);
      far_.pop_back();
    }
    if (far_.empty()) return;
    const Far& f = far_.front();
    if (f.t < first_clock_ || (f.t == first_clock_ && f.ep < first_ep_)) {
      first_clock_ = f.t;
      first_ep_ = f.ep;
    }
  }

  std::vector<uint64_t> at_;             // by endpoint
  std::vector<uint32_t> next_, prev_;     // by endpoint: its neighbours in its bucket's list
  std::vector<Where> where_;              // by endpoint
  std::vector<uint32_t> generation_;      // by endpoint: of its entry in far_
  std::vector<uint32_t> head_;            // by bucket (clock & kMask)
  std::vector<uint64_t> occupied_;        // bit per bucket
  uint64_t base_ = 0;                     // the window is [base_, base_ + kSize)
  uint64_t first_ = kNone;                // the first occupied bucket's clock
  uint32_t count_ = 0;                    // endpoints in the wheel
  std::vector<Far> far_;                  // clocks outside the window when set
  uint64_t first_clock_ = kNone;
  unsigned first_ep_ = 0;
};

}  // namespace emx::machine
