#include "block_read.h"

#include <fmt/format.h>

#include "isa/isa.h"
#include "packet_unit.h"
#include "thread_token.h"

namespace emx::pe {

void BlockReadLatches::latch(const net::Packet& p) {
  Latch& l = latch_.at(p.src);
  if (l.full)
    throw PacketError(fmt::format("{}: a block read from this requester is already waiting for "
                                  "its rdbn packet (one block read request at a time per "
                                  "requester and target)",
                                  describe_packet(p)));
  l = {gaddr_local(p.addr), p.data, true};
}

BlockRead BlockReadLatches::start(const net::Packet& p, const mem::LocalMemory& m) {
  Latch& l = latch_.at(p.src);
  if (!l.full)
    throw PacketError(fmt::format("{}: a block read's {} packet without its rdb packet",
                                  describe_packet(p),
                                  isa::packet_type_name(static_cast<isa::PacketType>(p.type))));
  l.full = false;
  BlockRead b{l.from, l.to, p.addr & 0x3fffffu, p.data,
              p.type == static_cast<uint8_t>(isa::PacketType::blockreadf)};
  if (b.forwarded && b.completion == 0)
    throw PacketError(describe_packet(p) + ": a block read with a forwarded completion (rdbf) "
                                           "needs a continuation to answer, and data is 0");
  if (b.words == 0) throw PacketError(describe_packet(p) + ": a block read of 0 words");
  if (!m.valid(b.from, 4 * b.words))
    throw PacketError(fmt::format("{}: block read of {} words from 0x{:x} reaches outside PE {}'s "
                                  "memory [0x{:x}, 0x{:x})",
                                  describe_packet(p), b.words, b.from, pe_, mem::kGuardBytes,
                                  m.size()));
  if (gaddr_pe(b.to) >= pe_count_ || gaddr_pe(b.to + b.words - 1) != gaddr_pe(b.to))
    throw PacketError(fmt::format("{}: block read destination 0x{:08x} + {} words names a PE "
                                  "the machine lacks or crosses a PE boundary",
                                  describe_packet(p), b.to, b.words));
  if (b.completion && gaddr_pe(b.completion) >= pe_count_)
    throw PacketError(fmt::format("{}: block read completion 0x{:08x} names PE {}, but the "
                                  "machine has {} PEs",
                                  describe_packet(p), b.completion, gaddr_pe(b.completion),
                                  pe_count_));
  return b;
}

net::Packet block_read_reply(const BlockRead& b, uint32_t k, const mem::LocalMemory& m,
                             unsigned pe) {
  net::Packet r;
  r.src = static_cast<uint16_t>(pe);
  if (k < b.words) {
    r.type = static_cast<uint8_t>(isa::PacketType::syswr);
    r.addr = b.to + k;
    r.data = m.read32(b.from + 4 * k);
  } else if (b.forwarded) {  // to the destination's PE, behind the words
    r.type = static_cast<uint8_t>(isa::PacketType::sysrd);
    r.addr = b.to + b.words - 1;
    r.data = b.completion;
  } else {
    r.type = static_cast<uint8_t>(isa::PacketType::iwrite);
    r.addr = b.completion;
    r.data = b.words;
  }
  r.dst = static_cast<uint16_t>(gaddr_pe(r.addr));
  return r;
}

}  // namespace emx::pe
