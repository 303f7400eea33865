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
      : cfg_(cfg), pe_(pe), stack_top_(stack_top),
        dispatch_clocks_(cfg.dispatch_clocks + 2 * memory_penalty) {}
  void set_entries(const ThreadEntries& e) { entries_ = e; }

  // Sets up `h` to run the thread; returns the dispatch clocks. Throws PacketError when the
  // token names no runnable code. (Inline: once per thread.)
  [[gnu::always_inline]] uint32_t start(iss::Hart& h, const ThreadToken& t) const {
    uint32_t frame = 0;
    h.pc = t.kind == ThreadToken::Kind::invoke    ? invoke_entry(h, t, frame)
           : t.kind == ThreadToken::Kind::special ? special_entry(h, t)
                                                  : entry_of(h, t, &frame);
    h.x[10] = t.op0;
    h.x[11] = t.kind == ThreadToken::Kind::special ? (t.cont & 0xffff) : t.op1;
    h.x[12] = t.cont;
    h.x[4] = frame;  // tp
    h.x[2] = h.thread_stack ? h.thread_stack : stack_top_;
    h.x[1] = entries_.thread_end;
    return dispatch_clocks_;
  }

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
  // entry_of of an invocation when all is well (the usual dispatch: its two reads, no
  // call); otherwise entry_of, which throws its error.
  [[gnu::always_inline]] uint32_t invoke_entry(iss::Hart& h, const ThreadToken& t,
                                               uint32_t& frame) const {
    const mem::LocalMemory& m = h.memory();
    const uint32_t slot = gaddr_local(t.cont);
    frame = frame_of(t);
    const uint32_t k4 = slot - frame;  // 4 x the slot's word in the frame
    if (__builtin_expect(k4 != 0 && m.valid(frame, 4), 1)) {
      const uint32_t templ = m.read32(frame);
      if (__builtin_expect(!(templ & 3) && m.valid(templ + k4, 4), 1)) {
        const uint32_t entry = m.read32(templ + k4);
        if (__builtin_expect(entry - h.code_base() < h.code_bytes() && !(entry & 3), 1))
          return entry;
      }
    }
    return entry_of(h, t, &frame);
  }
  // The same for a special handler (its entry from the handler table).
  [[gnu::always_inline]] uint32_t special_entry(iss::Hart& h, const ThreadToken& t) const {
    const mem::LocalMemory& m = h.memory();
    const uint32_t at = h.handler_table + 4 * ((t.cont >> 16) & 0x3f);
    if (__builtin_expect(h.handler_table && m.valid(at, 4), 1)) {
      const uint32_t entry = m.read32(at);
      if (__builtin_expect(entry - h.code_base() < h.code_bytes() && !(entry & 3), 1))
        return entry;
    }
    uint32_t frame = 0;
    return entry_of(h, t, &frame);
  }
  uint32_t checked_entry(const iss::Hart& h, const ThreadToken& t, uint32_t entry,
                         const char* from) const;
  // (32 bytes, no hole: the PE keeps them in one line with its thread counters)
  const ThreadConfig& cfg_;
  unsigned pe_;
  ThreadEntries entries_;
  uint32_t stack_top_;
  uint32_t dispatch_clocks_;  // the config's, with the memory penalty
};

}  // namespace emx::pe
