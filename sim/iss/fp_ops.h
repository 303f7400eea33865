// Single-precision helpers used by the RV32F rows of the table (isa/rv32f.def).
#pragma once
#include <cstdint>
#include <cstring>

#include "fault.h"
#include "fp_env.h"

namespace emx::iss {

inline float fp_value(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
inline uint32_t fp_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
constexpr uint32_t kCanonicalNaN = 0x7fc00000u;
// RISC-V returns the canonical NaN from every operation that produces a NaN.
inline uint32_t fp_bits_canonical(float v) { return v != v ? kCanonicalNaN : fp_bits(v); }

// The rounding mode an instruction uses: its own, or frm when it says dyn (7).
inline uint32_t resolve_rm(uint32_t insn_rm, uint32_t frm) {
  const uint32_t rm = insn_rm == fp::kDyn ? frm : insn_rm;
  if (rm > fp::kRmm) throw Trap{FaultKind::illegal_instruction, 0, "invalid rounding mode"};
  return rm;
}

}  // namespace emx::iss
