// The Fabric's pending events, in (time, scheduling order): a deterministic order, since
// scheduling order is a function of the calls alone.
//
// Nearly every event lies a few clocks ahead (a transfer, a routing delay), so events
// within `horizon` clocks of the current time go to a timing wheel: one FIFO bucket per
// clock, a bitmap of non-empty buckets. Events further ahead (injections in the future,
// crossbar packets queued at a busy port) wait in a binary heap ordered by (time, seq),
// and move to their bucket as soon as it enters the wheel's window, before anything can
// be scheduled there directly, so bucket order stays scheduling order. No allocation
// once the vectors have grown to their working size.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace emx::net {

class EventQueue {
 public:
  struct Event {
    uint32_t kind;    // Fabric::EventKind
    uint32_t target;  // a queue, output or packet slot, by kind
  };

  // horizon: the longest delay that should not need the heap.
  explicit EventQueue(uint64_t horizon) {
    uint64_t size = 64;
    while (size <= horizon) size *= 2;
    buckets_.resize(size);
    mask_ = size - 1;
    occupied_.assign(size / 64, 0);
  }

  void reserve(size_t n) { far_.reserve(n); }
  // The wheel's size: delays below it need no heap.
  uint64_t window() const { return mask_ + 1; }
  bool empty() const { return next_time() == UINT64_MAX; }

  // time must be >= the time of the last run_clock().
  void push(uint64_t time, uint32_t kind, uint32_t target) {
    if (time - base_ <= mask_)
      push_near(time, kind, target);
    else
      push_far(time, event(kind, target));
  }
  // push for a time known to be within the window (at most window() - 1 after the last
  // run_clock()'s): the Fabric's own events, a transfer or a routing delay ahead.
  void push_near(uint64_t time, uint32_t kind, uint32_t target) {
    // (The bucket in a local: the push's store might alias mask_, which was reloaded.)
    const uint64_t b = time & mask_;
    buckets_[b].push_back(event(kind, target));
    occupied_[b / 64] |= uint64_t(1) << (b & 63);
  }
  // A batch of events at one time (within the window), looked up once: appended to
  // bucket(time) as event(kind, target), then touch(time) (which push_near does per event).
  std::vector<uint64_t>& bucket(uint64_t time) { return buckets_[time & mask_]; }
  // (One 64-bit word: two 32-bit stores read back as one would stall store forwarding.)
  static uint64_t event(uint32_t kind, uint32_t target) { return uint64_t(kind) << 32 | target; }

  // Keeps `time` (within the wheel's window: at most `horizon` ahead) a pending time
  // without an event: for an event the Fabric found it can skip, so that next_time(),
  // which callers see, stays what it would have been with the event.
  void touch(uint64_t time) { occupied_[(time & mask_) / 64] |= uint64_t(1) << (time & 63); }

  // The earliest pending event's time, UINT64_MAX if none. (A bucket's bit is set while
  // it holds events or was touched: no count of them is kept.)
  uint64_t next_time() const {
    const uint64_t near = first_occupied(occupied_, base_, mask_);
    if (near != UINT64_MAX || far_.empty()) [[likely]]
      return near;
    return far_.front().time;
  }

  // The first clock from `base` on whose bit is set in `occupied` (a bit per clock & mask,
  // mask + 1 a multiple of 64), UINT64_MAX if none. A scan of the bitmap cyclically
  // from base's bucket: its word first (bits from base on), then the others, then that
  // word again (bits below base, the wrapped end). Called at least once per clock run
  // (and by the caller after each advance): the common case, an event within the rest of
  // base's word, is one shift and one ctz.
  static uint64_t first_occupied(const std::vector<uint64_t>& occupied, uint64_t base,
                                 uint64_t mask) {
    const uint64_t start = base & mask;
    const size_t first = start / 64;
    if (const uint64_t bits = occupied[first] >> (start % 64))
      return base + uint64_t(__builtin_ctzll(bits));
    const size_t wrap = occupied.size() - 1;  // the word count is a power of two: no division
    for (size_t step = 1; step <= wrap + 1; ++step) {
      const size_t w = (first + step) & wrap;
      uint64_t bits = occupied[w];
      if (w == first) bits &= ~(~uint64_t(0) << (start % 64));
      if (bits) {
        const uint64_t bucket = w * 64 + uint64_t(__builtin_ctzll(bits));
        return base + ((bucket - start) & mask);
      }
    }
    return UINT64_MAX;
  }

  // Runs every event at `time` (which must be next_time()) in order through
  // handle(const Event&); handle may push more, at `time` too.
  template <class Handle>
  [[gnu::always_inline]] void run_clock(uint64_t time, Handle&& handle) {
    move_base(time);
    auto& bucket = buckets_[time & mask_];
    // By position from the start: handle may grow the bucket (and move it). (Compared as
    // pointers: the count, end - begin, cost a subtraction and a shift per event.)
    for (size_t i = 0; bucket.data() + i != bucket.data() + bucket.size(); ++i) {
      const uint64_t e = bucket.data()[i];
      handle(Event{uint32_t(e >> 32), uint32_t(e)});
    }
    bucket.clear();
    occupied_[(time & mask_) / 64] &= ~(uint64_t(1) << (time & 63));
  }

 private:
  struct FarEvent {
    uint64_t time, seq;
    uint64_t event;  // kind << 32 | target
  };
  static bool later(const FarEvent& a, const FarEvent& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
  // (Out of line: rare, and its heap work would cost every inline push registers.)
  [[gnu::noinline]] void push_far(uint64_t time, uint64_t event) {
    far_.push_back({time, seq_++, event});
    std::push_heap(far_.begin(), far_.end(), later);
  }
  // Slides the window to start at `time`, taking in the far events it now covers (at
  // every clock run: the usual case, no far event, without a call).
  [[gnu::always_inline]] void move_base(uint64_t time) {
    base_ = time;
    if (!far_.empty()) [[unlikely]] take_far();
  }
  [[gnu::noinline]] void take_far() {
    while (!far_.empty() && far_.front().time - base_ <= mask_) {
      std::pop_heap(far_.begin(), far_.end(), later);
      const FarEvent f = far_.back();
      far_.pop_back();
      push(f.time, uint32_t(f.event >> 32), uint32_t(f.event));
    }
  }

  std::vector<std::vector<uint64_t>> buckets_;  // kind << 32 | target
  std::vector<uint64_t> occupied_;  // bit per bucket
  uint64_t mask_ = 0;
  uint64_t base_ = 0;  // window: [base_, base_ + mask_]
  std::vector<FarEvent> far_;
  uint64_t seq_ = 0;
};

}  // namespace emx::net
