// The instruction table as data: opcodes, packet types, lookup and disassembly.
// Everything here is generated from insns.def, so there is one description per
// instruction (encoding, operands, timing class, semantics).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats.h"
#include "timing_class.h"

namespace emx::isa {

enum class PacketType : uint8_t {
#define PACKET_TYPE(id, val, sfx, disp, doc) id = val,
#include "packet_types.def"
#undef PACKET_TYPE
};
constexpr unsigned kPacketTypeLimit = 64;  // 6-bit address tag
const char* packet_type_name(PacketType t);  // assembler suffix, "?" for unknown values
const char* packet_type_doc(PacketType t);
bool packet_type_valid(unsigned tag);

enum class Op : uint8_t {
#define INSN(id, ...) id,
#include "insns.def"
#undef INSN
  illegal,
};
constexpr unsigned kOpCount = static_cast<unsigned>(Op::illegal) + 1;
static_assert(kOpCount <= 256, "an Op is one byte (sim/iss/hart.h: Decoded)");

// The packet type a send row sends (emcy.def makes send_T for every type and sendd_T,
// the base+displacement form, for the types that have it); only for send rows.
constexpr PacketType send_type(Op op) {
#define EMX_DISP_1(id) case Op::sendd_##id:
#define EMX_DISP_0(id)
  switch (op) {
#define PACKET_TYPE(id, val, sfx, disp, doc) \
  case Op::send_##id:                        \
    EMX_DISP_##disp(id) return PacketType::id;
#include "packet_types.def"
#undef PACKET_TYPE
    default: return PacketType::host;
  }
#undef EMX_DISP_1
#undef EMX_DISP_0
}

struct InsnInfo {
  Op op;
  const char* mnemonic;
  uint32_t match;
  uint32_t mask;
  Format format;
  const char* operands;  // disassembly syntax, e.g. "rd,off(rs1)"
  TimingClass tclass;
  bool writes_xrd;  // destination is an integer register (x0 writes are discarded)
  bool has_rm;      // bits 14:12 are a rounding mode
};

// All rows of the table, in table order.
const InsnInfo* insn_table();
std::size_t insn_count();
const InsnInfo& insn_info(Op op);

// The row that matches an instruction word, or nullptr for an illegal instruction.
const InsnInfo* lookup(uint32_t word);

// "addi a0, sp, 16"; pc resolves pc-relative targets. Illegal words give ".word 0x...".
std::string disassemble(uint32_t word, uint32_t pc);

const char* xreg_name(unsigned r);  // ABI names: zero, ra, sp, ...
const char* freg_name(unsigned r);  // ft0, ..., fa0, ...
const char* csr_name(unsigned csr);  // nullptr when unnamed
const char* rounding_mode_name(unsigned rm);

// The documentation page of the instruction set (docs/isa.md), generated from the table.
std::string isa_markdown();

}  // namespace emx::isa
