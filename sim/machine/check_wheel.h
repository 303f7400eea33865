// The output ports' checks of floating sends: at most one pending per endpoint, each at a
// clock, run in (clock, order pushed). A timing wheel of 1024 clocks whose buckets are
// lists linked through the endpoints (a push links the endpoint at its bucket's tail),
// a bitmap of the occupied buckets, and the earliest pending clock kept up to date: the
// network driver asks for it at every clock. Checks beyond the window (rare: a PE a
// quantum or more ahead of the network) wait in a heap and enter their bucket when the
// window reaches them, before anything can be pushed there directly, so a bucket's order
// stays the order pushed. (net::EventQueue did this job with what the network's events
// need besides: ~20 host instructions more a check.) The links may live in the caller's
// per-endpoint records (Links: the output ports keep an endpoint's in the cache line its
// check reads anyway), else in an array of their own.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "network/event_queue.h"

namespace emx::machine {

// A CheckWheel's links in an array of their own: link(ep) is ep's.
class CheckLinks {
 public:
  explicit CheckLinks(unsigned endpoints) : next_(endpoints) {}
  uint32_t& link(uint32_t ep) { return next_[ep]; }

 private:
  std::vector<uint32_t> next_;
};

template <class Links = CheckLinks>
class CheckWheel {
 public:
  explicit CheckWheel(Links links)
      : next_(std::move(links)), head_(kSize, kNil), tail_(kSize), occupied_(kSize / 64, 0) {
    for (uint64_t b = 0; b < kSize; ++b) tail_[b] = &head_[b];
  }
  explicit CheckWheel(unsigned endpoints) : CheckWheel(Links(endpoints)) {}
  CheckWheel(const CheckWheel&) = delete;  // (tail_ points into head_ and the links)
  CheckWheel& operator=(const CheckWheel&) = delete;

  // The earliest pending check's clock, UINT64_MAX if none.
  uint64_t next_time() const { return first_; }

  // A check of `ep` (none pending) at `time`, not before the last clock run.
  [[gnu::always_inline]] void push(uint64_t time, uint32_t ep) {
    if (in_window(time)) [[likely]]
      link(time, ep);
    else
      push_far(time, ep);
    first_ = std::min(first_, time);
  }
  // push from within run_clock's handle: run_clock finds the earliest clock at its end.
  [[gnu::always_inline]] void push_while_running(uint64_t time, uint32_t ep) {
    if (in_window(time)) [[likely]]
      link(time, ep);
    else
      push_far(time, ep);
  }
  // push for a clock in the window: no call.
  bool in_window(uint64_t time) const { return time - base_ < kSize; }
  [[gnu::always_inline]] void push_in_window(uint64_t time, uint32_t ep) {
    link(time, ep);
    first_ = std::min(first_, time);
  }

  // Runs the checks at `time` (= next_time()) through handle(ep), in the order pushed;
  // handle may push more, at `time` too.
  template <class Handle>
  [[gnu::always_inline]] void run_clock(uint64_t time, Handle&& handle) {
    base_ = time;
    if (far_first_ - time < kSize) [[unlikely]] take_far();
    const uint64_t b = time & kMask;
    uint32_t ep = head_[b];  // (not kNil: a check is due)
    do {
      // Take the list: a check pushed meanwhile starts a new one.
      head_[b] = kNil;
      tail_[b] = &head_[b];
      do {
        const uint32_t after = next_.link(ep);
        handle(ep);
        ep = after;
      } while (ep != kNil);
      ep = head_[b];
    } while (ep != kNil);
    occupied_[b / 64] &= ~(uint64_t(1) << (b & 63));
    first_ = std::min(net::EventQueue::first_occupied(occupied_, base_, kMask), far_first_);
  }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr uint64_t kSize = 1024, kMask = kSize - 1;
  [[gnu::always_inline]] void link(uint64_t time, uint32_t ep) {
    const uint64_t b = time & kMask;
    // The bucket's last link (its head's if it is empty) is kept as an address: no branch
    // on whether the bucket was empty, which follows no pattern the host's predictor finds
    // (42 % mispredicted on the MPI ring; a select between the two addresses compiled to
    // that branch again).
    next_.link(ep) = kNil;
    *tail_[b] = ep;
    tail_[b] = &next_.link(ep);
    occupied_[b / 64] |= uint64_t(1) << (b & 63);
  }
  struct Far {
    uint64_t time, seq;
    uint32_t ep;
  };
  static bool later(const Far& a, const Far& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
  // (Out of line: rare.)
  [[gnu::noinline]] void push_far(uint64_t time, uint32_t ep) {
    far_.push_back({time, seq_++, ep});
    std::push_heap(far_.begin(), far_.end(), later);
    far_first_ = far_.front().time;
  }
  [[gnu::noinline]] void take_far() {
    while (!far_.empty() && far_.front().time - base_ < kSize) {
      std::pop_heap(far_.begin(), far_.end(), later);
      const Far f = far_.back();
      far_.pop_back();
      link(f.time, f.ep);
    }
    far_first_ = far_.empty() ? UINT64_MAX : far_.front().time;
  }

  Links next_;                         // by endpoint: the next in its bucket's list
  // By bucket (clock & kMask): its list's first endpoint (kNil: none), and the link its
  // next push sets (&head_[b] while the list is empty, else its last endpoint's link).
  std::vector<uint32_t> head_;
  std::vector<uint32_t*> tail_;
  std::vector<uint64_t> occupied_;     // bit per bucket
  uint64_t base_ = 0;                  // the last clock run: the window is [base_, base_ + kSize)
  uint64_t first_ = UINT64_MAX;
  std::vector<Far> far_;
  uint64_t far_first_ = UINT64_MAX;  // far_'s earliest clock, UINT64_MAX: none
  uint64_t seq_ = 0;
};

}  // namespace emx::machine
