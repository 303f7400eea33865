#include "text_trace.h"

#include <fmt/format.h>

#include <algorithm>

#include "isa/isa.h"

namespace emx::trace {
namespace {
const char* type_name(uint8_t t) { return isa::packet_type_name(static_cast<isa::PacketType>(t)); }
std::string endpoint(unsigned e, unsigned pes) {
  return e >= pes ? std::string("host") : fmt::format("PE {}", e);
}
}  // namespace

void TextTrace::line(unsigned pe, uint64_t cycle, std::string text) {
  if (pe < pes_ && !filter_.pe(pe)) return;
  if (!filter_.time(cycle)) return;
  lines_.push_back({cycle, lines_.size(), std::move(text)});
}

void TextTrace::thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                             const pe::ThreadToken& t) {
  line(pe, cycle, fmt::format("PE {:<4} thread start {} (0x{:x})  a0={} a1={} continuation=0x{:08x}",
                              pe, name.empty() ? "?" : name, entry, t.op0, t.op1, t.cont));
}

void TextTrace::thread_end(unsigned pe, uint64_t cycle) {
  line(pe, cycle, fmt::format("PE {:<4} thread end", pe));
}

void TextTrace::packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) {
  line(p.src, cycle, fmt::format("PE {:<4} send   {:<5} -> {:<8} address 0x{:08x} data 0x{:08x}  ({})",
                                 p.src, type_name(p.type), endpoint(p.dst, pes_), p.addr, p.data,
                                 where.empty() ? "memory unit reply" : where));
}

void TextTrace::packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                               const char* effect) {
  const std::string to = endpoint(p.dst, pes_);
  if (p.dst < pes_ && !filter_.pe(p.dst)) return;
  if (!filter_.time(cycle)) return;
  lines_.push_back({cycle, lines_.size(),
                    fmt::format("{:<7} arrive {:<5} <- {:<8} {}{}", to, type_name(p.type),
                                endpoint(p.src, pes_), effect,
                                done > start ? fmt::format(" (memory unit {}..{})", start, done)
                                             : "")});
}

void TextTrace::finish(uint64_t end_cycle) {
  std::stable_sort(lines_.begin(), lines_.end(), [](const Line& a, const Line& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.order < b.order;
  });
  out_ << fmt::format("--- emx event log ({} events, clocks at {} MHz)\n", lines_.size(), mhz_);
  for (const Line& l : lines_)
    out_ << fmt::format("{:>9} {:>10.3f} us  {}\n", l.cycle, static_cast<double>(l.cycle) / mhz_, l.text);
  out_ << fmt::format("{:>9} {:>10.3f} us  end of run\n", end_cycle,
                      static_cast<double>(end_cycle) / mhz_);
  out_.flush();
}

}  // namespace emx::trace
