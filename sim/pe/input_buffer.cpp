#include "input_buffer.h"

#include <string>

namespace emx::pe {

uint32_t InputBuffer::push(ThreadToken t) {
  uint32_t clocks = 0;
  if (q_.size() >= cfg_.onchip_packets) {
    if (spilled_now_ >= spill_capacity_)
      throw std::runtime_error("input buffer overflow: the memory spill area (pe.reserved_bytes) "
                               "holds " + std::to_string(spill_capacity_) +
                               " packets and is full");
    t.spilled = true;
    ++spilled_now_;
    ++spills_;
    clocks = cfg_.spill_clocks;
  }
  q_.push_back(t);
  if (q_.size() > max_) max_ = q_.size();
  return clocks;
}

uint32_t InputBuffer::pop(ThreadToken& out) {
  out = q_.front();
  q_.pop_front();
  if (!out.spilled) return 0;
  --spilled_now_;
  ++refills_;
  return cfg_.refill_clocks;
}

}  // namespace emx::pe
