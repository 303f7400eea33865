// Input buffer unit: the FIFO of threads ready to run. A small on-chip part is backed
// by a spill area in memory, filled and drained by hardware, so it never refuses a packet
// and never interrupts the running thread [paper]. Plain C++ (no SystemC).
#pragma once
#include <cstdint>
#include <deque>
#include <stdexcept>

#include "pe_config.h"
#include "thread_token.h"

namespace emx::pe {

class InputBuffer {
 public:
  InputBuffer(const InputBufferConfig& cfg, uint64_t spill_capacity_packets)
      : cfg_(cfg), spill_capacity_(spill_capacity_packets) {}

  // Adds a ready thread; returns the memory-unit clocks its arrival costs (a spill).
  // Throws std::runtime_error when the spill area is full.
  uint32_t push(ThreadToken t);

  bool empty() const { return q_.empty(); }
  std::size_t size() const { return q_.size(); }
  const ThreadToken& front() const { return q_.front(); }
  // Removes the head; returns the refill clocks its dispatch costs.
  uint32_t pop(ThreadToken& out);

  uint64_t spills() const { return spills_; }
  uint64_t refills() const { return refills_; }
  uint64_t max_occupancy() const { return max_; }
  const uint64_t* spills_counter() const { return &spills_; }
  const uint64_t* refills_counter() const { return &refills_; }
  const uint64_t* max_counter() const { return &max_; }

 private:
  const InputBufferConfig& cfg_;
  uint64_t spill_capacity_;
  std::deque<ThreadToken> q_;
  uint64_t spilled_now_ = 0;
  uint64_t spills_ = 0, refills_ = 0, max_ = 0;
};

}  // namespace emx::pe
