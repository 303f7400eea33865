// Input buffer unit: the FIFO of threads ready to run. A small on-chip part is backed
// by a spill area in memory, filled and drained by hardware, so it never refuses a packet
// and never interrupts the running thread [paper]. Plain C++ (no SystemC).
#pragma once
#include <cstdint>
#include <stdexcept>

#include "fifo.h"
#include "pe_config.h"
#include "thread_token.h"

namespace emx::pe {

class InputBuffer {
 public:
  // memory_penalty: the machine's extra clocks per memory reference (EM-4: 1); a packet
  // is two words in the memory buffer, so a spill and a refill each pay it twice. The
  // refill also charges the execution unit what the spill took from it
  // (cfg.spill_exu_clocks).
  InputBuffer(const InputBufferConfig& cfg, uint64_t spill_capacity_packets,
              uint32_t memory_penalty = 0)
      : onchip_(cfg.onchip_packets), spill_capacity_(spill_capacity_packets),
        spill_clocks_(cfg.spill_clocks + 2 * memory_penalty),
        refill_clocks_(cfg.refill_clocks + 2 * memory_penalty + cfg.spill_exu_clocks) {}

  // Adds a ready thread for a packet that arrived at clock `arrival`; returns the
  // memory-unit clocks its arrival costs (a spill). Throws std::runtime_error when the
  // spill area is full. Occupancy is the hardware's at `arrival`: a head the execution
  // unit took at a clock >= arrival (popped earlier on the host, ahead in simulated time)
  // still counts.
  // By reference: the token was just built field by field, and a copy into an argument
  // reads it back whole before those stores are in the cache (a store-forwarding stall).
  // (Inline, as pop: once per thread; the overflow's error is out of line.)
  uint32_t push(const ThreadToken& t, uint64_t arrival = 0) {
    // Pops before this arrival are before it for the hardware too; the rest are after.
    while (!unsettled_.empty() && unsettled_.front().at < arrival) drop_unsettled();
    const uint64_t occupancy = q_.size() + unsettled_.size();
    uint32_t clocks = 0;
    const bool spill = occupancy >= onchip_;
    if (spill) {
      if (spilled_now_ + unsettled_spilled_ >= spill_capacity_) overflow();
      ++spilled_now_;
      ++spills_;
      clocks = spill_clocks_;
    }
    q_.push_back(t);
    if (spill) q_[q_.size() - 1].spilled = true;
    if (occupancy + 1 > max_) max_ = occupancy + 1;
    return clocks;
  }

  bool empty() const { return q_.empty(); }
  std::size_t size() const { return q_.size(); }
  const ThreadToken& front() const { return q_.front(); }
  // Removes the head, taken by the execution unit at clock `at`; returns the refill clocks
  // its dispatch costs. `settled`: every arrival up to this clock has been pushed (later
  // ones come at clocks > settled), so pops at or before it need no remembering.
  uint32_t pop(ThreadToken& out, uint64_t at = 0, uint64_t settled = UINT64_MAX) {
    out = q_.front();
    q_.pop_front();
    while (!unsettled_.empty() && unsettled_.front().at <= settled) drop_unsettled();
    if (at > settled) {
      unsettled_.push_back({at, out.spilled});
      unsettled_spilled_ += out.spilled;
    }
    if (!out.spilled) return 0;
    --spilled_now_;
    ++refills_;
    return refill_clocks_;
  }

  uint64_t spills() const { return spills_; }
  uint64_t refills() const { return refills_; }
  uint64_t max_occupancy() const { return max_; }
  const uint64_t* spills_counter() const { return &spills_; }
  const uint64_t* refills_counter() const { return &refills_; }
  const uint64_t* max_counter() const { return &max_; }

 private:
  // What a push and a pop touch without a spill, in the first 64 bytes (one host cache
  // line where the PE aligns the buffer), the rest after.
  Fifo<ThreadToken> q_;
  // Pops not yet settled: (clock, whether the packet had spilled), oldest first.
  struct Pop {
    uint64_t at;
    bool spilled;
  };
  Fifo<Pop> unsettled_;
  uint64_t max_ = 0;
  uint32_t onchip_;                 // InputBufferConfig::onchip_packets
  uint32_t unsettled_spilled_ = 0;  // how many unsettled pops had spilled (<= the spill area)
  uint64_t spilled_now_ = 0;
  uint64_t spill_capacity_;
  uint32_t spill_clocks_, refill_clocks_;  // the config's, with the memory penalty
  uint64_t spills_ = 0, refills_ = 0;
  [[noreturn]] void overflow() const;  // the spill area is full
  void drop_unsettled() {
    unsettled_spilled_ -= unsettled_.front().spilled;
    unsettled_.pop_front();
  }
};

}  // namespace emx::pe
