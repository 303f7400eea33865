#include "input_buffer.h"

#include <string>

namespace emx::pe {

uint32_t InputBuffer::push(const ThreadToken& t, uint64_t arrival) {
  // Pops before this arrival are before it for the hardware too; the rest are after.
  while (!unsettled_.empty() && unsettled_.front().at < arrival) drop_unsettled();
  const uint64_t occupancy = q_.size() + unsettled_.size(),
                 spilled = spilled_now_ + unsettled_spilled_;
  uint32_t clocks = 0;
  const bool spill = occupancy >= cfg_.onchip_packets;
  if (spill) {
    if (spilled >= spill_capacity_)
      throw std::runtime_error("input buffer overflow: the memory spill area (pe.reserved_bytes) "
                               "holds " + std::to_string(spill_capacity_) +
                               " packets and is full");
    ++spilled_now_;
    ++spills_;
    clocks = spill_clocks_;
  }
  q_.push_back(t);
  if (spill) q_[q_.size() - 1].spilled = true;
  if (occupancy + 1 > max_) max_ = occupancy + 1;
  return clocks;
}

uint32_t InputBuffer::pop(ThreadToken& out, uint64_t at, uint64_t settled) {
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

}  // namespace emx::pe
