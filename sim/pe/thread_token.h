// What the input buffer holds: a thread ready to start, made from one packet (or two,
// matched). The dispatcher turns it into the execution unit's registers.
#pragma once
#include <cstdint>

namespace emx::pe {

struct ThreadToken {
  enum class Kind : uint8_t {
    invoke,   // frame-based thread: entry from the frame's template (1 or 2 operands)
    special,  // special handler, no frame: entry from the handler table
    twrite,   // thread-invoked remote write handler (EM-X' / EM-4, or packet type twr)
    tread,    // thread-invoked remote read handler
  };
  Kind kind = Kind::invoke;
  bool spilled = false;   // went through the memory buffer (refill cost at dispatch)
  uint16_t src = 0;       // sending endpoint (for reports)
  uint32_t cont = 0;      // the packet's address word (continuation / global address)
  uint32_t op0 = 0, op1 = 0;  // data words (left, right)
  uint64_t ready_at = 0;  // clock from which it may be dispatched
};

// Memory-word tag bits (6 per word) as the hardware units use them.
namespace tag {
constexpr uint8_t kEmpty = 0;
constexpr uint8_t kIsPresent = 0x01;  // I-structure element holds its value
constexpr uint8_t kIsReader = 0x02;   // I-structure element holds a waiting reader's continuation
constexpr uint8_t kLeftWaiting = 0x04;   // matching slot holds a left operand
constexpr uint8_t kRightWaiting = 0x08;  // matching slot holds a right operand
}  // namespace tag

// Global address <-> (PE, local byte address). A global address is PE (10 bits) | local
// word address (22 bits) [paper].
constexpr unsigned gaddr_pe(uint32_t g) { return g >> 22; }
constexpr uint32_t gaddr_local(uint32_t g) { return (g & 0x3fffffu) << 2; }
constexpr uint32_t make_gaddr(unsigned pe, uint32_t local_byte) {
  return (static_cast<uint32_t>(pe) << 22) | (local_byte >> 2);
}

}  // namespace emx::pe
