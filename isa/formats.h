// Instruction formats: how operand fields and immediates are extracted from a 32-bit
// instruction word. The table (insns.def) names a format per instruction; the decoder
// and the disassembler both use these extractors, so field layout is written once.
#pragma once
#include <cstdint>

namespace emx::isa {

enum class Format : uint8_t {
  R,    // rd, rs1, rs2 (funct7/funct3 in match); also rm in bits 14:12 for FP
  R4,   // rd, rs1, rs2, rs3 (bits 31:27), rm: fused multiply-add
  I,    // rd, rs1, imm[11:0]
  IS,   // rd, rs1, shamt[4:0] (shift immediates)
  S,    // rs1, rs2, imm[11:5|4:0]
  B,    // rs1, rs2, imm[12|10:5|4:1|11] << 1
  U,    // rd, imm[31:12] << 12
  J,    // rd, imm[20|10:1|11|19:12] << 1
  CSR,  // rd, rs1 (or uimm5), csr number in imm (bits 31:20, unsigned)
  NONE  // no operands
};

inline constexpr uint32_t bits(uint32_t w, unsigned hi, unsigned lo) {
  return (w >> lo) & ((1u << (hi - lo + 1)) - 1u);
}
inline constexpr int32_t sext(uint32_t v, unsigned width) {
  const uint32_t m = 1u << (width - 1);
  return static_cast<int32_t>((v ^ m) - m);
}

inline constexpr unsigned f_rd(uint32_t w) { return bits(w, 11, 7); }
inline constexpr unsigned f_rs1(uint32_t w) { return bits(w, 19, 15); }
inline constexpr unsigned f_rs2(uint32_t w) { return bits(w, 24, 20); }
inline constexpr unsigned f_rs3(uint32_t w) { return bits(w, 31, 27); }
inline constexpr unsigned f_rm(uint32_t w) { return bits(w, 14, 12); }

inline constexpr int32_t imm_i(uint32_t w) { return sext(bits(w, 31, 20), 12); }
inline constexpr int32_t imm_s(uint32_t w) {
  return sext((bits(w, 31, 25) << 5) | bits(w, 11, 7), 12);
}
inline constexpr int32_t imm_b(uint32_t w) {
  return sext((bits(w, 31, 31) << 12) | (bits(w, 7, 7) << 11) | (bits(w, 30, 25) << 5) |
                  (bits(w, 11, 8) << 1),
              13);
}
inline constexpr int32_t imm_u(uint32_t w) { return static_cast<int32_t>(w & 0xfffff000u); }
inline constexpr int32_t imm_j(uint32_t w) {
  return sext((bits(w, 31, 31) << 20) | (bits(w, 19, 12) << 12) | (bits(w, 20, 20) << 11) |
                  (bits(w, 30, 21) << 1),
              21);
}

// Immediate of an instruction word in the given format (0 where the format has none).
inline constexpr int32_t format_imm(Format f, uint32_t w) {
  switch (f) {
    case Format::I: return imm_i(w);
    case Format::IS: return static_cast<int32_t>(bits(w, 24, 20));
    case Format::S: return imm_s(w);
    case Format::B: return imm_b(w);
    case Format::U: return imm_u(w);
    case Format::J: return imm_j(w);
    case Format::CSR: return static_cast<int32_t>(bits(w, 31, 20));
    default: return 0;
  }
}

}  // namespace emx::isa
