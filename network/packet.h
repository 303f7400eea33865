// One EM-X network packet: two 38-bit words (32 data bits + a 6-bit tag each).
// Word 0 is the address part (global address or continuation) with its address tag,
// which is the packet type (isa/packet_types.def); word 1 is the data part with its
// data tag. The rest is simulator bookkeeping, not on the wire.
#pragma once
#include <cstdint>

namespace emx::net {

struct Packet {
  uint32_t addr = 0;      // address word (32 bits)
  uint32_t data = 0;      // data word (32 bits)
  uint8_t type = 0;       // address tag: the packet type, 6 bits (isa/packet_types.def)
  uint8_t data_tag = 0;   // tag of the data word, 6 bits
  uint16_t src = 0;       // sending endpoint: PE 0..N-1, or N for the host interface
  uint16_t dst = 0;       // receiving endpoint, same numbering
  uint64_t seq = 0;       // caller's sequence number, carried unchanged (for tracing)
  uint64_t injected_at = 0;  // clock of injection; Fabric::inject sets it
  uint32_t src_pc = 0;       // pc of the send instruction (0: sent by a memory unit), for reports
};

// A packet is always two words on the wire [paper].
inline constexpr uint32_t kWordsPerPacket = 2;

}  // namespace emx::net
