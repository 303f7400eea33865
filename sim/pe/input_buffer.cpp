#include "input_buffer.h"

#include <string>

namespace emx::pe {

void InputBuffer::overflow() const {
  throw std::runtime_error("input buffer overflow: the memory spill area (pe.reserved_bytes) "
                           "holds " + std::to_string(spill_capacity_) + " packets and is full");
}

}  // namespace emx::pe
