// A hart on a small memory, with an encoder for instruction words, for instruction-level
// tests: put instructions at the code base, end with `end`, run, inspect state.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <vector>

#include "sim/iss/hart.h"

namespace emx::test {

namespace enc {
inline uint32_t r(uint32_t opcode, unsigned f3, unsigned f7, unsigned rd, unsigned rs1,
                  unsigned rs2) {
  return opcode | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25;
}
inline uint32_t r4(uint32_t opcode, unsigned rm, unsigned fmt, unsigned rd, unsigned rs1,
                   unsigned rs2, unsigned rs3) {
  return opcode | rd << 7 | rm << 12 | rs1 << 15 | rs2 << 20 | fmt << 25 | rs3 << 27;
}
inline uint32_t i(uint32_t opcode, unsigned f3, unsigned rd, unsigned rs1, int32_t imm) {
  return opcode | rd << 7 | f3 << 12 | rs1 << 15 | (static_cast<uint32_t>(imm) & 0xfff) << 20;
}
inline uint32_t s(uint32_t opcode, unsigned f3, unsigned rs1, unsigned rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return opcode | (u & 0x1f) << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | ((u >> 5) & 0x7f) << 25;
}
inline uint32_t b(unsigned f3, unsigned rs1, unsigned rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return 0x63 | ((u >> 11) & 1) << 7 | ((u >> 1) & 0xf) << 8 | f3 << 12 | rs1 << 15 |
         rs2 << 20 | ((u >> 5) & 0x3f) << 25 | ((u >> 12) & 1) << 31;
}
inline uint32_t u(uint32_t opcode, unsigned rd, uint32_t imm20) {
  return opcode | rd << 7 | imm20 << 12;
}
inline uint32_t j(unsigned rd, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return 0x6f | rd << 7 | ((u >> 12) & 0xff) << 12 | ((u >> 11) & 1) << 20 |
         ((u >> 1) & 0x3ff) << 21 | ((u >> 20) & 1) << 31;
}
constexpr uint32_t kEnd = 0x0000100b;  // EMC-Y `end`
// Common instructions.
inline uint32_t addi(unsigned rd, unsigned rs1, int32_t imm) { return i(0x13, 0, rd, rs1, imm); }
inline uint32_t lui(unsigned rd, uint32_t imm20) { return u(0x37, rd, imm20); }
inline uint32_t add(unsigned rd, unsigned rs1, unsigned rs2) { return r(0x33, 0, 0, rd, rs1, rs2); }
inline uint32_t lw(unsigned rd, unsigned rs1, int32_t imm) { return i(0x03, 2, rd, rs1, imm); }
inline uint32_t sw(unsigned rs2, unsigned rs1, int32_t imm) { return s(0x23, 2, rs1, rs2, imm); }
inline uint32_t csrrs(unsigned rd, unsigned csr, unsigned rs1) {
  return i(0x73, 2, rd, rs1, static_cast<int32_t>(csr));
}
inline uint32_t csrrw(unsigned rd, unsigned csr, unsigned rs1) {
  return i(0x73, 1, rd, rs1, static_cast<int32_t>(csr));
}
}  // namespace enc

class HartTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kCode = 0x1000;
  static constexpr uint32_t kData = 0x8000;  // scratch data area for tests
  static constexpr uint32_t kMem = 64 * 1024;

  HartTest() : memory(kMem), hart(memory, timing) {}

  // Load code at kCode (an `end` is appended) and run it to the end or a fault.
  iss::Hart::Stop exec(std::initializer_list<uint32_t> insns, uint64_t limit = 1u << 20) {
    std::vector<uint32_t> v(insns);
    v.push_back(enc::kEnd);
    for (std::size_t k = 0; k < v.size(); ++k) memory.write32(kCode + 4 * k, v[k]);
    hart.set_code(kCode, static_cast<uint32_t>(4 * v.size()));
    hart.pc = kCode;
    return hart.run(limit);
  }
  uint32_t& x(unsigned r) { return hart.x[r]; }

  iss::TimingConfig timing;
  mem::LocalMemory memory;
  iss::Hart hart;
};

}  // namespace emx::test
