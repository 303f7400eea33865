// The matching unit and the memory control unit of one PE, as a functional core: what an
// arriving packet does to local memory, which thread it readies and which reply it sends,
// and how many memory-unit clocks that takes. Plain C++ (no SystemC); the PE module
// supplies the timing (a FIFO server) and the network. Semantics: docs/packets.md.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "block_read.h"
#include "effect_slot.h"
#include "isa/isa.h"
#include "network/packet.h"
#include "pe_config.h"
#include "sim/mem/local_memory.h"
#include "thread_token.h"

namespace emx::pe {

// A packet the machine cannot serve (bad address, I-structure written twice, ...).
struct PacketError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PacketEffect {
  uint32_t clocks = 0;                 // memory/matching unit busy time
  EffectSlot<ThreadToken> thread;   // a thread became ready
  EffectSlot<net::Packet> reply;    // a packet to send (SYSRD and I-structure replies)
  EffectSlot<BlockRead> block;      // a block read to send (block_read.h: replies, timing)
};

class PacketUnit {
 public:
  // memory_penalty: the machine's extra clocks per memory reference (EM-4: 1); a match or
  // an I-structure access is a read-modify-write of one word, two memory references.
  PacketUnit(unsigned pe, unsigned pe_count, mem::LocalMemory& memory,
             const MemoryUnitConfig& cfg, uint32_t memory_penalty = 0);

  PacketEffect accept(const net::Packet& p);
  // A SYSWR the memory unit serves itself (direct remote access): the usual packet, which
  // the PE serves without an effect record (accept serves it the same way). remote_write
  // writes the word and returns the memory-unit clocks; a bad address throws PacketError.
  bool writes_directly(const net::Packet& p) const {
    return p.type == static_cast<uint8_t>(isa::PacketType::syswr) && cfg_.direct_remote_access;
  }
  // A 1-input invocation or a special handler's packet: a thread, and nothing else, no
  // memory-unit clocks (accept's start_thread); its token into `t`. False: another type.
  static bool starts_thread_alone(const net::Packet& p, ThreadToken& t) {
    using isa::PacketType;
    if (p.type == static_cast<uint8_t>(PacketType::invoke1))
      token_of(t, ThreadToken::Kind::invoke, p);
    else if (p.type == static_cast<uint8_t>(PacketType::special))
      token_of(t, ThreadToken::Kind::special, p);
    else
      return false;
    return true;
  }
  uint32_t remote_write(const net::Packet& p) {
    if (!remote_write_valid(mem_, p)) outside_memory(p, "SYSWR", gaddr_local(p.addr));
    return cfg_.syswr_clocks;
  }
  // remote_write of a SYSWR whose address is in the memory (false, nothing done: any
  // other, whose error remote_write gives). `memory`: this unit's (the PE passes its own
  // member, which it reaches without loading the reference; Pe::arrive).
  bool remote_write_valid(mem::LocalMemory& memory, const net::Packet& p) {
    const uint32_t a = gaddr_local(p.addr);
    if (__builtin_expect(!memory.valid(a, 4), 0)) return false;
    memory.write32(a, p.data);
    ++syswr_;
    return true;
  }

  // What is waiting in memory (for deadlock reports).
  uint64_t operands_waiting() const { return operands_waiting_; }
  uint64_t readers_waiting() const { return readers_waiting_; }

  // Packets served, by kind (the SYSWR count apart: syswr_count).
  struct Counters {
    uint64_t iwrite = 0, iread = 0, deferred_reads = 0, sysrd = 0, matched = 0,
             stored_operands = 0, block_reads = 0, block_words = 0;
  };
  const Counters& counters() const { return n_; }
  const uint64_t& syswr_count() const { return syswr_; }

 private:
  // (Inline: at every SYSWR, SYSRD and matching; the error is out of line.)
  uint32_t local_word(const net::Packet& p, const char* what) const {
    const uint32_t a = gaddr_local(p.addr);
    if (__builtin_expect(!mem_.valid(a, 4), 0)) outside_memory(p, what, a);
    return a;
  }
  [[noreturn]] void outside_memory(const net::Packet& p, const char* what, uint32_t a) const;
  void reply_to(PacketEffect& e, uint32_t continuation, uint32_t value,
                const net::Packet& cause,
                isa::PacketType type = isa::PacketType::invoke1) const;
  void match(PacketEffect& e, const net::Packet& p, bool left);
  void istructure_write(PacketEffect& e, const net::Packet& p);
  void block_read(PacketEffect& e, const net::Packet& p);
  void istructure_read(PacketEffect& e, const net::Packet& p);
  ThreadToken& start_thread(PacketEffect& e, ThreadToken::Kind k, const net::Packet& p) const;
  // The token a packet starts (its first operand; a 2-input match adds the other).
  static void token_of(ThreadToken& t, ThreadToken::Kind k, const net::Packet& p) {
    t.kind = k;
    t.src = p.src;
    t.cont = p.addr;
    t.op0 = p.data;
  }

  // First: a PE keeps the SYSWR counter in the host cache line of its arrival state
  // (Pe::arrive). Then, in the next 64 bytes, what an I-structure access touches (and
  // with the counters after them, a SYSRD and a match); the rest after.
  uint64_t syswr_ = 0;
  mem::LocalMemory& mem_;
  const MemoryUnitConfig& cfg_;
  uint32_t match_clocks_, istructure_clocks_;  // the config's, with the memory penalty
  unsigned pe_, pe_count_;
  uint64_t readers_waiting_ = 0;
  Counters n_;  // (its I-structure counters first)
  uint64_t operands_waiting_ = 0;
  BlockReadLatches block_latches_;
};

std::string describe_packet(const net::Packet& p);

// Whether accepting p can make the memory unit send a reply (SYSRD, I-structures, block reads).
inline bool may_reply(const net::Packet& p) {
  using isa::PacketType;
  const auto t = static_cast<PacketType>(p.type);
  return t == PacketType::sysrd || t == PacketType::sysrdw || t == PacketType::iwrite ||
         t == PacketType::iread ||
         t == PacketType::blockreadn || t == PacketType::blockreadf;
}

}  // namespace emx::pe
