// Starting a thread: the execution unit takes a ready token and sets up its registers.
// Register convention at a thread's first instruction (docs/threads.md):
//   a0 = first data word (left operand)     a1 = right operand (2-input) or the 16-bit
//   a2 = the packet's address word               argument of a special packet
//   tp = frame base (local byte address; 0 for handlers)
//   sp = the stack top (threads run to completion, so they all share one stack), or the
//        runtime's choice in CSR emx.thread_stack
//   ra = __emx_thread_end, so a thread written as a C function ends when it returns
// Plain C++ (no SystemC).
#pragma once
#include <cstdint>

#include "packet_unit.h"
#include "pe_config.h"
#include "sim/iss/hart.h"
#include "sim/mem/local_memory.h"
#include "thread_token.h"

namespace emx::pe {

// Addresses the hardware needs from the program (ELF symbols; 0 when absent).
struct ThreadEntries {
  uint32_t thread_end = 0;      // __emx_thread_end: an `end` instruction
  uint32_t twrite_handler = 0;  // __emx_handler_twrite
  uint32_t tread_handler = 0;   // __emx_handler_tread
};

class Dispatcher {
 public:
  // memory_penalty: the machine's extra clocks per memory reference (EM-4: 1); a dispatch
  // reads two words (the frame's template pointer and the entry), each a memory reference.
  Dispatcher(unsigned pe, const ThreadConfig& cfg, uint32_t stack_top, uint32_t memory_penalty = 0)
      : pe_(pe), cfg_(cfg), stack_top_(stack_top),
        dispatch_clocks_(cfg.dispatch_clocks + 2 * memory_penalty) {}
  void set_entries(const ThreadEntries& e) { entries_ = e; }

  // Sets up `h` to run the thread; returns the dispatch clocks. Throws PacketError when the
  // token names no runnable code.
  uint32_t start(iss::Hart& h, const ThreadToken& t) const;

  // What start() will read for `t` first, as host addresses to prefetch (nullptr: none):
  // an invoked thread's frame base (its template pointer), then the template's entry —
  // dependent misses on the host, often from memory when a PE's frames went cold. The
  // caller prefetches (GCC drops a call to a function that only prefetches: it counts as
  // pure).
  const void* frame_word(const mem::LocalMemory& m, const ThreadToken& t) const {
    return t.kind == ThreadToken::Kind::invoke ? m.bytes() + frame_of(t) : nullptr;
  }
  const void* entry_word(const mem::LocalMemory& m, const ThreadToken& t) const {
    if (t.kind != ThreadToken::Kind::invoke || !m.valid(frame_of(t), 4)) return nullptr;
    const uint32_t at = m.read32(frame_of(t)) + (gaddr_local(t.cont) - frame_of(t));
    return at < m.size() ? m.bytes() + at : nullptr;
  }

  // The code address a token starts at (for traces), or throws PacketError.
  uint32_t entry_of(const iss::Hart& h, const ThreadToken& t, uint32_t* frame = nullptr) const;

 private:
  uint32_t frame_of(const ThreadToken& t) const {
    return gaddr_local(t.cont) & ~(cfg_.frame_words * 4 - 1);
  }
  uint32_t checked_entry(const iss::Hart& h, const ThreadToken& t, uint32_t entry,
                         const char* from) const;
  unsigned pe_;
  const ThreadConfig& cfg_;
  ThreadEntries entries_;
  uint32_t stack_top_;
  uint32_t dispatch_clocks_;  // the config's, with the memory penalty
};

}  // namespace emx::pe
