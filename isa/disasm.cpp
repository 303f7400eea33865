// Disassembler driven by the operand syntax of each table row.
#include <fmt/format.h>

#include <string>

#include "csr_numbers.h"
#include "isa.h"

namespace emx::isa {

const char* xreg_name(unsigned r) {
  static const char* const n[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2",
                                    "s0",   "s1", "a0", "a1", "a2",  "a3",  "a4", "a5",
                                    "a6",   "a7", "s2", "s3", "s4",  "s5",  "s6", "s7",
                                    "s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  return n[r & 31];
}

const char* freg_name(unsigned r) {
  static const char* const n[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                                    "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                                    "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                                    "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  return n[r & 31];
}

const char* csr_name(unsigned c) {
  switch (c) {
    case csr::fflags: return "fflags";
    case csr::frm: return "frm";
    case csr::fcsr: return "fcsr";
    case csr::cycle: return "cycle";
    case csr::time: return "time";
    case csr::instret: return "instret";
    case csr::cycleh: return "cycleh";
    case csr::timeh: return "timeh";
    case csr::instreth: return "instreth";
    case csr::pe_id: return "emx.peid";
    case csr::pe_count: return "emx.npes";
    case csr::mem_bytes: return "emx.memsize";
    case csr::clock_khz: return "emx.clock_khz";
    case csr::features: return "emx.features";
    case csr::handlers: return "emx.handlers";
    case csr::frame_words: return "emx.frame_words";
    case csr::thread_stack: return "emx.thread_stack";
    case csr::timer_cont: return "emx.timer_cont";
    case csr::timer_arm: return "emx.timer_arm";
  }
  return nullptr;
}

const char* rounding_mode_name(unsigned rm) {
  static const char* const n[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};
  return n[rm & 7];
}

namespace {

std::string operand(const std::string& tok, uint32_t w, uint32_t pc, Format f) {
  const int32_t imm = format_imm(f, w);
  if (tok == "rd") return xreg_name(f_rd(w));
  if (tok == "rs1") return xreg_name(f_rs1(w));
  if (tok == "rs2") return xreg_name(f_rs2(w));
  if (tok == "fd") return freg_name(f_rd(w));
  if (tok == "fs1") return freg_name(f_rs1(w));
  if (tok == "fs2") return freg_name(f_rs2(w));
  if (tok == "fs3") return freg_name(f_rs3(w));
  if (tok == "imm" || tok == "shamt") return std::to_string(imm);
  if (tok == "off(rs1)") return fmt::format("{}({})", imm, xreg_name(f_rs1(w)));
  if (tok == "target") return fmt::format("0x{:x}", pc + static_cast<uint32_t>(imm));
  if (tok == "uimm20") return fmt::format("0x{:x}", static_cast<uint32_t>(imm) >> 12);
  if (tok == "zimm") return std::to_string(f_rs1(w));
  if (tok == "rm") return rounding_mode_name(f_rm(w));
  if (tok == "csr") {
    const char* n = csr_name(static_cast<unsigned>(imm));
    return n ? n : fmt::format("0x{:03x}", imm);
  }
  return "?" + tok;
}

}  // namespace

std::string disassemble(uint32_t w, uint32_t pc) {
  const InsnInfo* i = lookup(w);
  if (!i) return fmt::format(".word 0x{:08x}", w);
  std::string out = i->mnemonic;
  const std::string ops = i->operands;
  std::size_t pos = 0;
  bool first = true;
  while (pos < ops.size()) {
    std::size_t comma = ops.find(',', pos);
    if (comma == std::string::npos) comma = ops.size();
    const std::string tok = ops.substr(pos, comma - pos);
    pos = comma + 1;
    // A dynamic rounding mode is the default and is not printed, as GNU objdump does.
    if (tok == "rm" && f_rm(w) == 7) continue;
    out += first ? " " : ", ";
    out += operand(tok, w, pc, i->format);
    first = false;
  }
  return out;
}

}  // namespace emx::isa
