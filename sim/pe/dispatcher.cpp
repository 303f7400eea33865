#include "dispatcher.h"

#include <fmt/format.h>

namespace emx::pe {

namespace {
std::string token_text(const ThreadToken& t) {
  return fmt::format("thread for continuation 0x{:08x} (sent by endpoint {})", t.cont, t.src);
}
}  // namespace

uint32_t Dispatcher::checked_entry(const iss::Hart& h, const ThreadToken& t, uint32_t entry,
                                   const char* from) const {
  if (entry - h.code_base() >= h.code_bytes() || (entry & 3))
    throw PacketError(fmt::format("PE {}: cannot start a {}: {} gives entry 0x{:08x}, which is "
                                  "not code", pe_, token_text(t), from, entry));
  return entry;
}

uint32_t Dispatcher::entry_of(const iss::Hart& h, const ThreadToken& t, uint32_t* frame_out) const {
  auto& mem = const_cast<iss::Hart&>(h).memory();
  uint32_t frame = 0, entry = 0;
  switch (t.kind) {
    case ThreadToken::Kind::invoke: {
      const uint32_t slot = gaddr_local(t.cont);
      const uint32_t frame_bytes = cfg_.frame_words * 4;
      frame = slot & ~(frame_bytes - 1);
      const uint32_t k = (slot - frame) / 4;
      if (k == 0 || !mem.valid(frame, 4))
        throw PacketError(fmt::format(
            "PE {}: cannot start a {}: {}", pe_, token_text(t),
            k == 0 ? "it names word 0 of its frame, which holds the template pointer"
                   : "its frame lies outside local memory"));
      const uint32_t templ = mem.read32(frame);
      if (!mem.valid(templ + 4 * k, 4) || (templ & 3))
        throw PacketError(fmt::format("PE {}: cannot start a {}: frame 0x{:x} has template "
                                      "pointer 0x{:x}, which is not a table in memory",
                                      pe_, token_text(t), frame, templ));
      entry = checked_entry(h, t, mem.read32(templ + 4 * k), "its frame's template");
      break;
    }
    case ThreadToken::Kind::special: {
      const uint32_t index = (t.cont >> 16) & 0x3f;
      const uint32_t at = h.handler_table + 4 * index;
      if (!h.handler_table)
        throw PacketError(fmt::format("PE {}: cannot start a special handler ({}): no handler "
                                      "table (CSR emx.handlers = 0)", pe_, token_text(t)));
      if (!mem.valid(at, 4))
        throw PacketError(fmt::format("PE {}: cannot start a special handler ({}): handler table "
                                      "entry {} at 0x{:x} lies outside local memory (CSR "
                                      "emx.handlers = 0x{:x})", pe_, token_text(t), index, at,
                                      h.handler_table));
      entry = checked_entry(h, t, mem.read32(at), "the special-handler table");
      break;
    }
    case ThreadToken::Kind::twrite:
    case ThreadToken::Kind::tread: {
      const bool w = t.kind == ThreadToken::Kind::twrite;
      entry = w ? entries_.twrite_handler : entries_.tread_handler;
      if (!entry)
        throw PacketError(fmt::format("PE {}: a thread-invoked remote {} arrived, but the program "
                                      "has no {} (link the emx runtime)", pe_,
                                      w ? "write" : "read",
                                      w ? "__emx_handler_twrite" : "__emx_handler_tread"));
      entry = checked_entry(h, t, entry, "the handler symbol");
      break;
    }
  }
  if (frame_out) *frame_out = frame;
  return entry;
}

}  // namespace emx::pe
