// A minimal x86-64 assembler for the block translator (translate.cpp): the few instruction
// forms it emits, with rel32 labels. Only compiled on x86-64 hosts.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace emx::iss::x86 {

enum Reg : int { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
// Condition codes (the low nibble of Jcc / SETcc).
enum Cond : int { B = 2, AE = 3, E = 4, NE = 5, BE = 6, A = 7, P = 0xa, L = 0xc, GE = 0xd };

struct Mem {
  int base;
  int32_t disp = 0;
  int index = -1;
  int scale = 1;
};

struct Label {
  int pos = -1;
  // The rel32 fields waiting for pos: the first few in place (most labels have one or
  // two: no allocation per label while a block is translated).
  int first[4];
  int count = 0;
  std::vector<int> more;
  bool used() const { return count > 0; }
  void add(int at) { count < 4 ? void(first[count++] = at) : more.push_back(at); }
  template <class F>
  void each(F f) const {
    for (int k = 0; k < count; ++k) f(first[k]);
    for (int at : more) f(at);
  }
};

class Asm {
 public:
  // `origin`: where byte 0 will be (for rel32 to addresses outside the buffer).
  explicit Asm(const uint8_t* origin) : origin_(origin) { b_.reserve(16384); }
  const std::vector<uint8_t>& bytes() const { return b_; }
  int pos() const { return static_cast<int>(b_.size()); }

  void u8(uint32_t v) { b_.push_back(static_cast<uint8_t>(v)); }
  void u32(uint32_t v) {
    for (int k = 0; k < 4; ++k) u8(v >> (8 * k));
  }

  // ---- encoding ----
  void rex(bool w, int reg, int index, int base, bool force = false) {
    const int r = 0x40 | (w << 3) | ((reg >> 3) & 1) << 2 | ((index >> 3) & 1) << 1 | ((base >> 3) & 1);
    if (r != 0x40 || force) u8(r);
  }
  void modrm_mem(int reg, const Mem& m) {
    reg &= 7;
    const int mod = (m.disp == 0 && (m.base & 7) != 5) ? 0 : (m.disp >= -128 && m.disp <= 127) ? 1 : 2;
    if (m.index < 0 && (m.base & 7) != 4) {
      u8(mod << 6 | reg << 3 | (m.base & 7));
    } else {
      const int ss = m.scale == 1 ? 0 : m.scale == 2 ? 1 : m.scale == 4 ? 2 : 3;
      u8(mod << 6 | reg << 3 | 4);
      u8(ss << 6 | (m.index < 0 ? 4 : (m.index & 7)) << 3 | (m.base & 7));
    }
    if (mod == 1) u8(static_cast<uint32_t>(m.disp));
    else if (mod == 2) u32(static_cast<uint32_t>(m.disp));
  }
  // prefix, REX, opcode, ModRM with a memory operand
  void op_m(std::initializer_list<uint8_t> prefix, bool w, std::initializer_list<uint8_t> opc,
            int reg, const Mem& m, bool force_rex = false) {
    for (uint8_t p : prefix) u8(p);
    rex(w, reg, m.index < 0 ? 0 : m.index, m.base, force_rex);
    for (uint8_t o : opc) u8(o);
    modrm_mem(reg, m);
  }
  // prefix, REX, opcode, ModRM with two registers (reg field, rm field)
  void op_r(std::initializer_list<uint8_t> prefix, bool w, std::initializer_list<uint8_t> opc,
            int reg, int rm, bool force_rex = false) {
    for (uint8_t p : prefix) u8(p);
    rex(w, reg, 0, rm, force_rex);
    for (uint8_t o : opc) u8(o);
    u8(0xc0 | (reg & 7) << 3 | (rm & 7));
  }

  // ---- integer ----
  // ALU opcodes (r/m, reg form) and their /ext for immediates
  enum Alu : int { ADD = 0, OR = 1, AND = 4, SUB = 5, XOR = 6, CMP = 7 };
  void alu_rr(Alu op, int dst, int src, bool w = false) { op_r({}, w, {static_cast<uint8_t>(op * 8 + 1)}, src, dst); }
  // The immediate forms: 0x83 with a sign-extended byte when it fits, else 0x81.
  static bool byte_imm(int32_t imm) { return imm >= -128 && imm <= 127; }
  void imm_tail(int32_t imm) { byte_imm(imm) ? u8(static_cast<uint32_t>(imm)) : u32(static_cast<uint32_t>(imm)); }
  void alu_ri(Alu op, int dst, int32_t imm, bool w = false) {
    op_r({}, w, {static_cast<uint8_t>(byte_imm(imm) ? 0x83 : 0x81)}, op, dst);
    imm_tail(imm);
  }
  void alu_mi(Alu op, const Mem& m, int32_t imm, bool w) {
    op_m({}, w, {static_cast<uint8_t>(byte_imm(imm) ? 0x83 : 0x81)}, op, m);
    imm_tail(imm);
  }
  void cmp_rm(int reg, const Mem& m, bool w = false) { op_m({}, w, {0x3b}, reg, m); }  // cmp r, [m]
  void add_rm64(int reg, const Mem& m) { op_m({}, true, {0x03}, reg, m); }      // add r64, [m]
  void mov_rr(int dst, int src, bool w = false) {
    if (dst != src || w) op_r({}, w, {0x89}, src, dst);
  }
  void mov_ri(int dst, uint32_t imm) {
    rex(false, 0, 0, dst);
    u8(0xb8 + (dst & 7));
    u32(imm);
  }
  void load(int dst, const Mem& m, bool w = false) { op_m({}, w, {0x8b}, dst, m); }
  void store(const Mem& m, int src, bool w = false) { op_m({}, w, {0x89}, src, m); }
  void store8(const Mem& m, int src) { op_m({}, false, {0x88}, src, m, src >= 4); }
  void store16(const Mem& m, int src) { op_m({0x66}, false, {0x89}, src, m); }
  void store8_i(const Mem& m, uint8_t v) { op_m({}, false, {0xc6}, 0, m); u8(v); }
  void store16_i(const Mem& m, uint16_t v) { op_m({0x66}, false, {0xc7}, 0, m); u8(v); u8(v >> 8); }
  void store32_i(const Mem& m, uint32_t v) { op_m({}, false, {0xc7}, 0, m); u32(v); }
  void movzx8(int dst, const Mem& m) { op_m({}, false, {0x0f, 0xb6}, dst, m); }
  void movsx8(int dst, const Mem& m) { op_m({}, false, {0x0f, 0xbe}, dst, m); }
  void movzx16(int dst, const Mem& m) { op_m({}, false, {0x0f, 0xb7}, dst, m); }
  void movsx16(int dst, const Mem& m) { op_m({}, false, {0x0f, 0xbf}, dst, m); }
  void movzx_r8(int dst, int src8) { op_r({}, false, {0x0f, 0xb6}, dst, src8, src8 >= 4); }
  void movsxd(int dst, int src) { op_r({}, true, {0x63}, dst, src); }
  void imul(int dst, int src, bool w = false) { op_r({}, w, {0x0f, 0xaf}, dst, src); }
  enum Shift : int { ROR = 1, SHL = 4, SHR = 5, SAR = 7 };
  void shift_i(Shift op, int dst, uint8_t n, bool w = false) { op_r({}, w, {0xc1}, op, dst); u8(n); }
  void shift_cl(Shift op, int dst) { op_r({}, false, {0xd3}, op, dst); }
  void cdq() { u8(0x99); }
  void div_r(bool is_signed, int src) { op_r({}, false, {0xf7}, is_signed ? 7 : 6, src); }  // edx:eax / src
  void not_r(int dst) { op_r({}, false, {0xf7}, 2, dst); }
  void test_ri8(int reg8, uint8_t imm) { op_r({}, false, {0xf6}, 0, reg8, reg8 >= 4); u8(imm); }
  void test_mi8(const Mem& m, uint8_t imm) { op_m({}, false, {0xf6}, 0, m); u8(imm); }
  void test_mi16(const Mem& m, uint16_t imm) {
    op_m({0x66}, false, {0xf7}, 0, m);
    u8(imm);
    u8(imm >> 8);
  }
  void test_mi32(const Mem& m, uint32_t imm) { op_m({}, false, {0xf7}, 0, m); u32(imm); }
  void test_rr(int a, int b, bool w = false) { op_r({}, w, {0x85}, b, a); }
  void setcc(Cond c, int dst8) { op_r({}, false, {0x0f, static_cast<uint8_t>(0x90 + c)}, 0, dst8, dst8 >= 4); }
  void push(int r) { rex(false, 0, 0, r); u8(0x50 + (r & 7)); }
  void pop(int r) { rex(false, 0, 0, r); u8(0x58 + (r & 7)); }
  void ret() { u8(0xc3); }
  void jmp_r(int r) { op_r({}, false, {0xff}, 4, r); }
  void call_r(int r) { op_r({}, false, {0xff}, 2, r); }
  void lea(int dst, const Mem& m, bool w = true) { op_m({}, w, {0x8d}, dst, m); }
  void mov_ri64(int dst, uint64_t imm) {  // movabs
    rex(true, 0, 0, dst);
    u8(0xb8 + (dst & 7));
    u32(static_cast<uint32_t>(imm));
    u32(static_cast<uint32_t>(imm >> 32));
  }
  void jmp_m(const Mem& m) { op_m({}, false, {0xff}, 4, m); }

  // ---- SSE (single precision) ----
  void movss_load(int x, const Mem& m) { op_m({0xf3}, false, {0x0f, 0x10}, x, m); }
  void movss_store(const Mem& m, int x) { op_m({0xf3}, false, {0x0f, 0x11}, x, m); }
  void movaps(int xd, int xs) {
    if (xd != xs) op_r({}, false, {0x0f, 0x28}, xd, xs);
  }
  enum SseOp : uint8_t { ADDSS = 0x58, MULSS = 0x59, SUBSS = 0x5c };
  void sse(SseOp op, int xd, int xs) { op_r({0xf3}, false, {0x0f, op}, xd, xs); }
  void ucomiss(int xa, int xb) { op_r({}, false, {0x0f, 0x2e}, xa, xb); }
  void movd_xr(int x, int r) { op_r({0x66}, false, {0x0f, 0x6e}, x, r); }
  void movd_rx(int r, int x) { op_r({0x66}, false, {0x0f, 0x7e}, x, r); }
  // xd = x1 * x2 + xd, one rounding (VEX.LIG.66.0F38.W0 B9 /r)
  void vfmadd231ss(int xd, int x1, int x2) {
    u8(0xc4);
    u8((((~xd) >> 3) & 1) << 7 | 1 << 6 | (((~x2) >> 3) & 1) << 5 | 0x02);
    u8(((~x1) & 15) << 3 | 0x01);
    u8(0xb9);
    u8(0xc0 | (xd & 7) << 3 | (x2 & 7));
  }

  // ---- control ----
  void jcc(Cond c, Label& l) {
    u8(0x0f);
    u8(0x80 + c);
    rel32(l);
  }
  void jmp(Label& l) {
    u8(0xe9);
    rel32(l);
  }
  void jmp_abs(const uint8_t* target) {  // rel32 to code outside this buffer
    u8(0xe9);
    const int64_t rel = target - (origin_ + pos() + 4);
    u32(static_cast<uint32_t>(static_cast<int32_t>(rel)));
  }
  void bind(Label& l) {
    l.pos = pos();
    l.each([&](int at) { patch(at, l.pos); });
    l.count = 0;
    l.more.clear();
  }

 private:
  void rel32(Label& l) {
    if (l.pos >= 0) {
      u32(static_cast<uint32_t>(l.pos - (pos() + 4)));
    } else {
      l.add(pos());
      u32(0);
    }
  }
  void patch(int at, int target) {
    const uint32_t rel = static_cast<uint32_t>(target - (at + 4));
    std::memcpy(&b_[static_cast<size_t>(at)], &rel, 4);
  }
  const uint8_t* origin_;
  std::vector<uint8_t> b_;
};

}  // namespace emx::iss::x86
