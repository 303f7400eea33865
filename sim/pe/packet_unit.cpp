#include "packet_unit.h"

#include <fmt/format.h>

#include "isa/isa.h"

namespace emx::pe {

using isa::PacketType;

std::string describe_packet(const net::Packet& p) {
  return fmt::format("{} packet from {} (address 0x{:08x}, data 0x{:08x})",
                     isa::packet_type_name(static_cast<PacketType>(p.type)),
                     p.src == p.dst ? "itself" : fmt::format("endpoint {}", p.src), p.addr, p.data);
}

PacketUnit::PacketUnit(unsigned pe, unsigned pe_count, mem::LocalMemory& memory,
                       const MemoryUnitConfig& cfg, uint32_t memory_penalty)
    : mem_(memory), cfg_(cfg),
      match_clocks_(cfg.match_clocks + 2 * memory_penalty),
      istructure_clocks_(cfg.istructure_clocks + 2 * memory_penalty),
      pe_(pe), pe_count_(pe_count),
      block_latches_(pe, pe_count) {}

void PacketUnit::outside_memory(const net::Packet& p, const char* what, uint32_t a) const {
  throw PacketError(fmt::format("{}: {} address 0x{:x} is outside PE {}'s memory [0x{:x}, 0x{:x})",
                                describe_packet(p), what, a, pe_, mem::kGuardBytes, mem_.size()));
}

// The effect's parts are built in place: a token or packet built apart and copied in
// is stored in pieces and read back whole, which stalls the host's store forwarding.
void PacketUnit::reply_to(PacketEffect& e, uint32_t cont, uint32_t value,
                          const net::Packet& cause, PacketType type) const {
  if (gaddr_pe(cont) >= pe_count_)
    throw PacketError(fmt::format("{}: its {} 0x{:08x} names PE {}, but the machine has {} PEs",
                                  describe_packet(cause),
                                  type == PacketType::invoke1 ? "continuation" : "reply address",
                                  cont, gaddr_pe(cont), pe_count_));
  net::Packet& r = e.reply.emplace();
  r.addr = cont;
  r.data = value;
  r.type = static_cast<uint8_t>(type);
  r.src = static_cast<uint16_t>(pe_);
  r.dst = static_cast<uint16_t>(gaddr_pe(cont));
}

ThreadToken& PacketUnit::start_thread(PacketEffect& e, ThreadToken::Kind k,
                                      const net::Packet& p) const {
  ThreadToken& t = e.thread.emplace();
  token_of(t, k, p);
  return t;
}

// Every path returns `e`, so it is built in the caller's object (no copy out).
PacketEffect PacketUnit::accept(const net::Packet& p) {
  PacketEffect e;
  switch (static_cast<PacketType>(p.type)) {
    case PacketType::invoke1:
    case PacketType::special:
      starts_thread_alone(p, e.thread.emplace());  // (the PE's own path for them too)
      break;
    case PacketType::invoke2l:
    case PacketType::invoke2r:
      match(e, p, p.type == static_cast<uint8_t>(PacketType::invoke2l));
      return e;
    case PacketType::syswr:
      if (!cfg_.direct_remote_access) {
        start_thread(e, ThreadToken::Kind::twrite, p);
        break;
      }
      e.clocks = remote_write(p);
      return e;
    case PacketType::sysrd:
      if (!cfg_.direct_remote_access) {
        start_thread(e, ThreadToken::Kind::tread, p);
        break;
      }
      reply_to(e, p.data, mem_.read32(local_word(p, "SYSRD")), p);
      e.clocks = cfg_.sysrd_clocks;
      ++n_.sysrd;
      return e;
    case PacketType::sysrdw:  // a SYSRD whose reply is a remote write: no thread anywhere
      if (!cfg_.direct_remote_access)
        throw PacketError(describe_packet(p) + ": a SYSRD replying by remote write needs the "
                                               "memory unit's direct remote access "
                                               "(memory_unit.direct_remote_access)");
      reply_to(e, p.data, mem_.read32(local_word(p, "SYSRD")), p, PacketType::syswr);
      e.clocks = cfg_.sysrd_clocks;
      ++n_.sysrd;
      return e;
    case PacketType::blockread:
    case PacketType::blockreadn:
    case PacketType::blockreadf:
      block_read(e, p);
      return e;
    case PacketType::twrite:
      start_thread(e, ThreadToken::Kind::twrite, p);
      break;
    case PacketType::tread:
      start_thread(e, ThreadToken::Kind::tread, p);
      break;
    case PacketType::iwrite:
      istructure_write(e, p);
      return e;
    case PacketType::iread:
      istructure_read(e, p);
      return e;
    case PacketType::host:
      throw PacketError(describe_packet(p) + ": host packets go to the host, not to a PE");
  }
  if (!e.thread)
    throw PacketError(fmt::format("{}: unknown packet type {}", describe_packet(p), p.type));
  return e;
}

void PacketUnit::block_read(PacketEffect& e, const net::Packet& p) {
  if (!cfg_.direct_remote_access)
    throw PacketError(describe_packet(p) + ": block remote reads need the memory unit's direct "
                                           "remote access (memory_unit.direct_remote_access)");
  e.clocks = cfg_.block_read_clocks;
  if (p.type == static_cast<uint8_t>(PacketType::blockread)) {
    block_latches_.latch(p);
    return;
  }
  const BlockRead& b = e.block.emplace() = block_latches_.start(p, mem_);
  e.clocks = block_read_busy(b, cfg_);
  ++n_.block_reads;
  n_.block_words += b.words;
}

void PacketUnit::match(PacketEffect& e, const net::Packet& p, bool left) {
  e.clocks = match_clocks_;
  const uint32_t a = local_word(p, "matching slot");
  const uint8_t mine = left ? tag::kLeftWaiting : tag::kRightWaiting;
  const uint8_t other = left ? tag::kRightWaiting : tag::kLeftWaiting;
  const uint8_t t = mem_.tag(a);
  if (t & mine)
    throw PacketError(fmt::format("{}: the matching slot already holds a {} operand",
                                  describe_packet(p), left ? "left" : "right"));
  if (t & other) {  // the partner is waiting: fire the thread with both operands
    const uint32_t partner = mem_.read32(a);
    ThreadToken& k = start_thread(e, ThreadToken::Kind::invoke, p);
    k.op0 = left ? p.data : partner;
    k.op1 = left ? partner : p.data;
    mem_.set_tag(a, t & ~other);
    --operands_waiting_;
    ++n_.matched;
  } else {  // first arrival: store the operand in the slot, mark it
    mem_.write32(a, p.data);
    mem_.set_tag(a, t | mine);
    ++operands_waiting_;
    ++n_.stored_operands;
  }
}

void PacketUnit::istructure_write(PacketEffect& e, const net::Packet& p) {
  e.clocks = istructure_clocks_;
  ++n_.iwrite;
  const uint32_t a = local_word(p, "I-structure");
  const uint8_t t = mem_.tag(a);
  if (t & tag::kIsPresent)
    throw PacketError(describe_packet(p) + ": I-structure element written twice");
  if (t & tag::kIsReader) {  // a reader waits: hand it the value (read-once: consumed)
    reply_to(e, mem_.read32(a), p.data, p);
    mem_.set_tag(a, t & ~tag::kIsReader);
    --readers_waiting_;
  } else {
    mem_.write32(a, p.data);
    mem_.set_tag(a, t | tag::kIsPresent);
  }
}

void PacketUnit::istructure_read(PacketEffect& e, const net::Packet& p) {
  e.clocks = istructure_clocks_;
  ++n_.iread;
  const uint32_t a = local_word(p, "I-structure");
  const uint8_t t = mem_.tag(a);
  if (t & tag::kIsReader)
    throw PacketError(describe_packet(p) +
                      ": a reader already waits on this read-once I-structure element");
  if (t & tag::kIsPresent) {  // the value is there: reply and consume it
    reply_to(e, p.data, mem_.read32(a), p);
    mem_.set_tag(a, t & ~tag::kIsPresent);
  } else {  // defer: keep the continuation in the element
    mem_.write32(a, p.data);
    mem_.set_tag(a, t | tag::kIsReader);
    ++readers_waiting_;
    ++n_.deferred_reads;
  }
}

}  // namespace emx::pe
