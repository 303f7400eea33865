#include "fault_report.h"

#include <fmt/format.h>

#include "isa/isa.h"

namespace emx::pe {

std::string register_dump(const iss::Hart& h) {
  std::string s;
  for (unsigned r = 0; r < 32; ++r)
    s += fmt::format("{:>5}={:08x}{}", isa::xreg_name(r), h.x[r], r % 4 == 3 ? "\n" : "  ");
  return s;
}

std::string fault_report(unsigned pe, const iss::Hart& h, const iss::Fault& f,
                         const loader::SymbolTable& symbols, double clock_mhz, bool regs) {
  const uint32_t word = h.insn_word(f.pc);
  const std::string where = symbols.describe(f.pc);
  std::string s = fmt::format("emx: fault on PE {} at {:.4f} us (cycle {}): {}\n", pe,
                              static_cast<double>(h.cycles) / clock_mhz, h.cycles,
                              iss::fault_kind_text(f.kind));
  if (!f.detail.empty()) s += "  " + f.detail + "\n";
  s += fmt::format("  pc 0x{:08x}{}{}\n", f.pc, where.empty() ? "" : " in " + where,
                   word ? "   " + isa::disassemble(word, f.pc) : "");
  switch (f.kind) {
    case iss::FaultKind::misaligned_load: case iss::FaultKind::load_outside_memory:
    case iss::FaultKind::misaligned_store: case iss::FaultKind::store_outside_memory:
    case iss::FaultKind::store_to_code: case iss::FaultKind::misaligned_fetch:
    case iss::FaultKind::stack_overflow: case iss::FaultKind::tag_read_outside_memory:
    case iss::FaultKind::tag_write_outside_memory:
      s += fmt::format("  address 0x{:08x}{}\n", f.addr,
                       f.addr < 0x1000 ? " (the null-pointer guard: local addresses below 0x1000)"
                                       : "");
      break;
    default: break;
  }
  if (regs) s += register_dump(h);
  return s;
}

}  // namespace emx::pe
