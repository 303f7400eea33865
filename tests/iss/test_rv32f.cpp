// RV32F, instruction by instruction: values and fflags, rounding modes, NaN and
// infinity rules, saturation, and fcsr/frm/fflags through Zicsr.
#include <cfloat>
#include <cstdint>
#include <ostream>

#include "hart_fixture.h"
#include "isa/csr_numbers.h"
#include "isa/isa.h"
#include "sim/iss/fp_ops.h"

namespace emx::test {
namespace {

using Stop = iss::Hart::Stop;
using iss::FaultKind;

constexpr uint32_t NV = iss::fp::NV, DZ = iss::fp::DZ, OF = iss::fp::OF, UF = iss::fp::UF,
                   NX = iss::fp::NX;
constexpr unsigned kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7;

uint32_t B(float v) { return iss::fp_bits(v); }
constexpr uint32_t kQNaN = 0x7fc00000, kSNaN = 0x7f800001, kQNaNPayload = 0xffc12345,
                   kSNaNPayload = 0x7fa00042, kPosInf = 0x7f800000, kNegInf = 0xff800000,
                   kPosZero = 0, kNegZero = 0x80000000, kMinSub = 0x00000001,
                   kMaxFinite = 0x7f7fffff;

// Encodings. The instruction under test reads f1, f2, f3 (x1 for integer sources) and
// writes f10 (x10 for integer results).
constexpr unsigned kD = 10, kA = 1, kB = 2, kC = 3;
uint32_t opfp(unsigned funct7, unsigned rm, unsigned rs2 = kB) {
  return enc::r(0x53, rm, funct7, kD, kA, rs2);
}
uint32_t fadd(unsigned rm = kDyn) { return opfp(0x00, rm); }
uint32_t fsub(unsigned rm = kDyn) { return opfp(0x04, rm); }
uint32_t fmul(unsigned rm = kDyn) { return opfp(0x08, rm); }
uint32_t fdiv(unsigned rm = kDyn) { return opfp(0x0c, rm); }
uint32_t fsqrt(unsigned rm = kDyn) { return opfp(0x2c, rm, 0); }
uint32_t fsgnj() { return opfp(0x10, 0); }
uint32_t fsgnjn() { return opfp(0x10, 1); }
uint32_t fsgnjx() { return opfp(0x10, 2); }
uint32_t fmin() { return opfp(0x14, 0); }
uint32_t fmax() { return opfp(0x14, 1); }
uint32_t fcvt_w_s(unsigned rm = kDyn) { return opfp(0x60, rm, 0); }
uint32_t fcvt_wu_s(unsigned rm = kDyn) { return opfp(0x60, rm, 1); }
uint32_t fmv_x_w() { return opfp(0x70, 0, 0); }
uint32_t fclass() { return opfp(0x70, 1, 0); }
uint32_t feq() { return opfp(0x50, 2); }
uint32_t flt() { return opfp(0x50, 1); }
uint32_t fle() { return opfp(0x50, 0); }
uint32_t fcvt_s_w(unsigned rm = kDyn) { return opfp(0x68, rm, 0); }
uint32_t fcvt_s_wu(unsigned rm = kDyn) { return opfp(0x68, rm, 1); }
uint32_t fmv_w_x() { return opfp(0x78, 0, 0); }
uint32_t fmadd(unsigned rm = kDyn) { return enc::r4(0x43, rm, 0, kD, kA, kB, kC); }
uint32_t fmsub(unsigned rm = kDyn) { return enc::r4(0x47, rm, 0, kD, kA, kB, kC); }
uint32_t fnmsub(unsigned rm = kDyn) { return enc::r4(0x4b, rm, 0, kD, kA, kB, kC); }
uint32_t fnmadd(unsigned rm = kDyn) { return enc::r4(0x4f, rm, 0, kD, kA, kB, kC); }
uint32_t flw(unsigned fd, unsigned rs1, int32_t imm) { return enc::i(0x07, 2, fd, rs1, imm); }
uint32_t fsw(unsigned fs2, unsigned rs1, int32_t imm) { return enc::s(0x27, 2, rs1, fs2, imm); }
uint32_t csrrwi(unsigned rd, unsigned csr, unsigned zimm) {
  return enc::i(0x73, 5, rd, zimm, static_cast<int32_t>(csr));
}

// A result and the fflags after it (the flags start at 0 for every run).
struct Out {
  uint32_t value, flags;
  bool operator==(const Out& o) const { return value == o.value && flags == o.flags; }
};
void PrintTo(const Out& o, std::ostream* os) {
  *os << std::hex << "{0x" << o.value << ", flags 0x" << o.flags << "}";
}

class FpTest : public HartTest {
 protected:
  // One instruction with f1..f3 = a, b, c and x1 = a; the result from f10.
  Out f(uint32_t insn, uint32_t a, uint32_t b = 0, uint32_t c = 0) {
    run(insn, a, b, c);
    return {hart.f[kD], hart.fflags};
  }
  // The same, the result from x10.
  Out xr(uint32_t insn, uint32_t a, uint32_t b = 0) {
    run(insn, a, b, 0);
    return {x(kD), hart.fflags};
  }
  void run(uint32_t insn, uint32_t a, uint32_t b, uint32_t c) {
    hart.f[kA] = a;
    hart.f[kB] = b;
    hart.f[kC] = c;
    x(kA) = a;
    hart.f[kD] = 0xdeadbeef;
    x(kD) = 0xdeadbeef;
    hart.fflags = 0;
    ASSERT_EQ(exec({insn}), Stop::stopped) << isa::disassemble(insn, kCode);
  }
};

TEST_F(FpTest, EncodingsDecodeAndDisassemble) {
  // Words as GNU as/objdump print them.
  EXPECT_EQ(isa::disassemble(0x00c5f553, 0), "fadd.s fa0, fa1, fa2");
  EXPECT_EQ(isa::disassemble(0x00c58553, 0), "fadd.s fa0, fa1, fa2, rne");
  EXPECT_EQ(isa::disassemble(0xc0051553, 0), "fcvt.w.s a0, fa0, rtz");
  EXPECT_EQ(isa::disassemble(0x68c5f543, 0), "fmadd.s fa0, fa1, fa2, fa3");
  EXPECT_EQ(isa::disassemble(0x00452507, 0), "flw fa0, 4(a0)");
  EXPECT_EQ(isa::disassemble(0x00a52427, 0), "fsw fa0, 8(a0)");
  EXPECT_EQ(isa::disassemble(0xe0050553, 0), "fmv.x.w a0, fa0");
  EXPECT_EQ(isa::disassemble(0xf0050553, 0), "fmv.w.x fa0, a0");
  EXPECT_EQ(isa::disassemble(0xa0b52553, 0), "feq.s a0, fa0, fa1");
  EXPECT_EQ(isa::disassemble(0xe0051553, 0), "fclass.s a0, fa0");
  // fmt != S (00) is not RV32F: fadd.d and fmadd.d are illegal here.
  EXPECT_EQ(isa::lookup(0x02c5f553), nullptr);
  EXPECT_EQ(isa::lookup(0x6ac5f543), nullptr);
  // A fixed rm field is part of the encoding: fsgnj with funct3 = 3 does not exist.
  EXPECT_EQ(isa::lookup(0x20003053), nullptr);
  // Integer destinations x0 go to the sink, not to x0.
  hart.f[kA] = B(1.5f);
  exec({enc::r(0x53, 0, 0x70, 0, kA, 0)});  // fmv.x.w zero, f1
  EXPECT_EQ(x(0), 0u);
}

TEST_F(FpTest, LoadAndStoreKeepRawBits) {
  memory.write32(kData, kSNaNPayload);
  x(1) = kData;
  hart.f[4] = kQNaNPayload;
  EXPECT_EQ(exec({flw(5, 1, 0), fsw(4, 1, 8), fsw(5, 1, 12)}), Stop::stopped);
  EXPECT_EQ(hart.f[5], kSNaNPayload);
  EXPECT_EQ(memory.read32(kData + 8), kQNaNPayload);
  EXPECT_EQ(memory.read32(kData + 12), kSNaNPayload);
  EXPECT_EQ(hart.fflags, 0u);
  x(1) = kData + 2;
  EXPECT_EQ(exec({flw(5, 1, 0)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::misaligned_load);
}

TEST_F(FpTest, BasicArithmetic) {
  EXPECT_EQ(f(fadd(), B(1.5f), B(2.25f)), (Out{B(3.75f), 0}));
  EXPECT_EQ(f(fsub(), B(1.5f), B(2.25f)), (Out{B(-0.75f), 0}));
  EXPECT_EQ(f(fmul(), B(1.5f), B(-4.0f)), (Out{B(-6.0f), 0}));
  EXPECT_EQ(f(fdiv(), B(1.0f), B(4.0f)), (Out{B(0.25f), 0}));
  EXPECT_EQ(f(fdiv(), B(1.0f), B(3.0f)), (Out{0x3eaaaaab, NX}));
  EXPECT_EQ(f(fsqrt(), B(2.0f)), (Out{0x3fb504f3, NX}));
  EXPECT_EQ(f(fsqrt(), B(6.25f)), (Out{B(2.5f), 0}));
  EXPECT_EQ(f(fadd(), B(0.1f), B(0.2f)), (Out{0x3e99999a, NX}));
  // x - x is +0, and -0 only when rounding down.
  EXPECT_EQ(f(fsub(), B(3.0f), B(3.0f)), (Out{kPosZero, 0}));
  EXPECT_EQ(f(fsub(kRdn), B(3.0f), B(3.0f)), (Out{kNegZero, 0}));
  EXPECT_EQ(f(fadd(), kNegZero, kNegZero), (Out{kNegZero, 0}));
}

TEST_F(FpTest, NaNAndInfinityArithmetic) {
  EXPECT_EQ(f(fadd(), kPosInf, B(1.0f)), (Out{kPosInf, 0}));
  EXPECT_EQ(f(fsub(), kPosInf, kPosInf), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fadd(), kPosInf, kNegInf), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fmul(), kPosZero, kNegInf), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fmul(), kNegInf, B(-2.0f)), (Out{kPosInf, 0}));
  EXPECT_EQ(f(fdiv(), kPosInf, kPosInf), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fdiv(), B(1.0f), kNegInf), (Out{kNegZero, 0}));
  EXPECT_EQ(f(fsqrt(), B(-1.0f)), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fsqrt(), kNegZero), (Out{kNegZero, 0}));
  EXPECT_EQ(f(fsqrt(), kPosInf), (Out{kPosInf, 0}));
  EXPECT_EQ(f(fsqrt(), kNegInf), (Out{kQNaN, NV}));
  // A NaN result is always the canonical NaN; only a signaling input raises NV.
  EXPECT_EQ(f(fadd(), kQNaNPayload, B(1.0f)), (Out{kQNaN, 0}));
  EXPECT_EQ(f(fmul(), B(1.0f), kQNaNPayload), (Out{kQNaN, 0}));
  EXPECT_EQ(f(fadd(), kSNaN, B(1.0f)), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fdiv(), B(1.0f), kSNaNPayload), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fsqrt(), kQNaNPayload), (Out{kQNaN, 0}));
  EXPECT_EQ(f(fsqrt(), kSNaN), (Out{kQNaN, NV}));
}

TEST_F(FpTest, DivisionByZero) {
  EXPECT_EQ(f(fdiv(), B(1.0f), kPosZero), (Out{kPosInf, DZ}));
  EXPECT_EQ(f(fdiv(), B(-1.0f), kPosZero), (Out{kNegInf, DZ}));
  EXPECT_EQ(f(fdiv(), B(1.0f), kNegZero), (Out{kNegInf, DZ}));
  EXPECT_EQ(f(fdiv(), kPosZero, kPosZero), (Out{kQNaN, NV}));  // invalid, not DZ
  EXPECT_EQ(f(fdiv(), kPosInf, kPosZero), (Out{kPosInf, 0}));  // exact infinity
}

TEST_F(FpTest, OverflowPerRoundingMode) {
  const uint32_t big = kMaxFinite, neg_big = kMaxFinite | 0x80000000u;
  EXPECT_EQ(f(fmul(kRne), big, B(2.0f)), (Out{kPosInf, OF | NX}));
  EXPECT_EQ(f(fmul(kRtz), big, B(2.0f)), (Out{kMaxFinite, OF | NX}));
  EXPECT_EQ(f(fmul(kRdn), big, B(2.0f)), (Out{kMaxFinite, OF | NX}));
  EXPECT_EQ(f(fmul(kRup), big, B(2.0f)), (Out{kPosInf, OF | NX}));
  EXPECT_EQ(f(fmul(kRmm), big, B(2.0f)), (Out{kPosInf, OF | NX}));
  EXPECT_EQ(f(fadd(kRdn), neg_big, neg_big), (Out{kNegInf, OF | NX}));
  EXPECT_EQ(f(fadd(kRup), neg_big, neg_big), (Out{neg_big, OF | NX}));
  EXPECT_EQ(f(fdiv(), big, B(0.5f)), (Out{kPosInf, OF | NX}));
  // A tie between FLT_MAX and 2^128 overflows in the nearest modes (FLT_MAX is odd).
  EXPECT_EQ(f(fadd(kRne), big, 0x73000000), (Out{kPosInf, OF | NX}));  // + ulp/2 = 2^103
  EXPECT_EQ(f(fadd(kRmm), big, 0x73000000), (Out{kPosInf, OF | NX}));
  EXPECT_EQ(f(fadd(kRmm), big, 0x72800000), (Out{big, NX}));  // + ulp/4
}

TEST_F(FpTest, UnderflowAndSubnormals) {
  // Exact subnormal results raise nothing (underflow needs inexactness).
  EXPECT_EQ(f(fmul(), B(0x1p-126f), B(0x1p-3f)), (Out{0x00100000, 0}));
  EXPECT_EQ(f(fsub(), 0x00800001, 0x00800000), (Out{kMinSub, 0}));
  EXPECT_EQ(f(fadd(), kMinSub, kMinSub), (Out{0x00000002, 0}));
  // Tiny and inexact.
  EXPECT_EQ(f(fmul(), B(0x1p-100f), B(0x1p-100f)), (Out{kPosZero, UF | NX}));
  EXPECT_EQ(f(fmul(kRup), B(0x1p-100f), B(0x1p-100f)), (Out{kMinSub, UF | NX}));
  EXPECT_EQ(f(fmul(kRdn), B(-0x1p-100f), B(0x1p-100f)), (Out{0x80000001, UF | NX}));
  EXPECT_EQ(f(fdiv(), 0x00000003, B(4.0f)), (Out{kMinSub, UF | NX}));  // 0.75 ulp
  EXPECT_EQ(f(fmul(), kMinSub, B(0.5f)), (Out{kPosZero, UF | NX}));    // a tie to even 0
  // Tininess is detected after rounding (RISC-V, like the x86 SSE host): the exact
  // 2^-126 * (1 - 2^-25) rounds to the normal 2^-126, so only NX.
  EXPECT_EQ(f(fmadd(), B(0x1p-75f), B(-0x1p-76f), B(0x1p-126f)), (Out{0x00800000, NX}));
  // ... while one bit less rounds to the largest subnormal: tiny.
  EXPECT_EQ(f(fmadd(kRtz), B(0x1p-75f), B(-0x1p-76f), B(0x1p-126f)), (Out{0x007fffff, UF | NX}));
}

TEST_F(FpTest, RoundingModesOnAddition) {
  // 1 + 2^-24 is halfway between 1 and 1 + 2^-23.
  const uint32_t one = B(1.0f), half_ulp = B(0x1p-24f), one_up = 0x3f800001;
  EXPECT_EQ(f(fadd(kRne), one, half_ulp), (Out{one, NX}));
  EXPECT_EQ(f(fadd(kRtz), one, half_ulp), (Out{one, NX}));
  EXPECT_EQ(f(fadd(kRdn), one, half_ulp), (Out{one, NX}));
  EXPECT_EQ(f(fadd(kRup), one, half_ulp), (Out{one_up, NX}));
  EXPECT_EQ(f(fadd(kRmm), one, half_ulp), (Out{one_up, NX}));
  // Negative: down and up swap, ties-away goes to the larger magnitude.
  const uint32_t mone = B(-1.0f), mhalf = B(-0x1p-24f), mone_up = 0xbf800001;
  EXPECT_EQ(f(fadd(kRne), mone, mhalf), (Out{mone, NX}));
  EXPECT_EQ(f(fadd(kRdn), mone, mhalf), (Out{mone_up, NX}));
  EXPECT_EQ(f(fadd(kRup), mone, mhalf), (Out{mone, NX}));
  EXPECT_EQ(f(fadd(kRmm), mone, mhalf), (Out{mone_up, NX}));
  // A tie that RNE already breaks away from zero (1 + 2^-23 is odd).
  EXPECT_EQ(f(fadd(kRne), one_up, half_ulp), (Out{0x3f800002, NX}));
  EXPECT_EQ(f(fadd(kRmm), one_up, half_ulp), (Out{0x3f800002, NX}));
  // Not a tie: RMM rounds to nearest.
  EXPECT_EQ(f(fadd(kRmm), one, B(0x1p-25f)), (Out{one, NX}));
  EXPECT_EQ(f(fsub(kRmm), one, B(-0x1.8p-24f)), (Out{one_up, NX}));
  // A tie through subtraction.
  EXPECT_EQ(f(fsub(kRmm), one, B(-0x1p-24f)), (Out{one_up, NX}));
  EXPECT_EQ(f(fsub(kRne), one, B(-0x1p-24f)), (Out{one, NX}));
}

TEST_F(FpTest, RoundTiesToMaxMagnitudeOnEveryOperation) {
  // fmul: (1 + 3*2^-23) * 1.5 = 1.5 + 4.5 ulp.
  EXPECT_EQ(f(fmul(kRne), 0x3f800003, B(1.5f)), (Out{0x3fc00004, NX}));
  EXPECT_EQ(f(fmul(kRmm), 0x3f800003, B(1.5f)), (Out{0x3fc00005, NX}));
  EXPECT_EQ(f(fmul(kRmm), 0xbf800003, B(1.5f)), (Out{0xbfc00005, NX}));
  // Ties among subnormals: 2^-150 and 2.5 * 2^-149.
  EXPECT_EQ(f(fmul(kRmm), kMinSub, B(0.5f)), (Out{kMinSub, UF | NX}));
  EXPECT_EQ(f(fdiv(kRne), 0x00000005, B(2.0f)), (Out{0x00000002, UF | NX}));
  EXPECT_EQ(f(fdiv(kRmm), 0x00000005, B(2.0f)), (Out{0x00000003, UF | NX}));
  EXPECT_EQ(f(fdiv(kRmm), B(0x1p-30f), B(-0x1p120f)), (Out{0x80000001, UF | NX}));
  EXPECT_EQ(f(fdiv(kRmm), B(1.0f), B(3.0f)), (Out{0x3eaaaaab, NX}));  // no tie
  // fsqrt never ties: RMM is RNE.
  EXPECT_EQ(f(fsqrt(kRmm), B(2.0f)), (Out{0x3fb504f3, NX}));
  // fma: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, a tie between 1 + 2^-11 (even) and the next.
  const uint32_t a = 0x3f800800, lo = 0x3f801000, hi = 0x3f801001;
  EXPECT_EQ(f(fmadd(kRne), a, a, kPosZero), (Out{lo, NX}));
  EXPECT_EQ(f(fmadd(kRmm), a, a, kPosZero), (Out{hi, NX}));
  EXPECT_EQ(f(fnmadd(kRmm), a, a, kPosZero), (Out{hi | 0x80000000u, NX}));
  // Just below and above the tie by 2^-149: the double sum alone would hide it.
  EXPECT_EQ(f(fmadd(kRmm), a, a, 0x80000001), (Out{lo, NX}));
  EXPECT_EQ(f(fmadd(kRne), a, a, 0x00000001), (Out{hi, NX}));
  EXPECT_EQ(f(fmadd(kRmm), a, a, 0x00000001), (Out{hi, NX}));
  // Conversions: 2^24 + 1 lies halfway between 2^24 and 2^24 + 2.
  EXPECT_EQ(f(fcvt_s_w(kRne), 16777217), (Out{B(16777216.0f), NX}));
  EXPECT_EQ(f(fcvt_s_w(kRmm), 16777217), (Out{B(16777218.0f), NX}));
  EXPECT_EQ(f(fcvt_s_w(kRmm), static_cast<uint32_t>(-16777217)), (Out{B(-16777218.0f), NX}));
  EXPECT_EQ(f(fcvt_s_wu(kRne), 0x80000080), (Out{B(0x1p31f), NX}));
  EXPECT_EQ(f(fcvt_s_wu(kRmm), 0x80000080), (Out{0x4f000001, NX}));
  // RMM as the dynamic mode.
  hart.frm = kRmm;
  EXPECT_EQ(f(fadd(), B(1.0f), B(0x1p-24f)), (Out{0x3f800001, NX}));
  EXPECT_EQ(xr(fcvt_w_s(), B(2.5f)), (Out{3, NX}));
}

TEST_F(FpTest, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; fmul then fsub would give 0.
  EXPECT_EQ(f(fmadd(), 0x3f800001, 0x3f7ffffe, B(-1.0f)), (Out{B(-0x1p-46f), 0}));
  EXPECT_EQ(f(fmadd(), B(2.0f), B(3.0f), B(1.0f)), (Out{B(7.0f), 0}));
  EXPECT_EQ(f(fmsub(), B(2.0f), B(3.0f), B(1.0f)), (Out{B(5.0f), 0}));
  EXPECT_EQ(f(fnmsub(), B(2.0f), B(3.0f), B(1.0f)), (Out{B(-5.0f), 0}));
  EXPECT_EQ(f(fnmadd(), B(2.0f), B(3.0f), B(1.0f)), (Out{B(-7.0f), 0}));
  // The sign of zero: fnmadd = -(a*b) - c, so -(+0) - (+0) = -0; fnmsub -(+0) + (+0) = +0.
  EXPECT_EQ(f(fnmadd(), kPosZero, B(1.0f), kPosZero), (Out{kNegZero, 0}));
  EXPECT_EQ(f(fnmsub(), kPosZero, B(1.0f), kPosZero), (Out{kPosZero, 0}));
  EXPECT_EQ(f(fmsub(), kPosZero, B(1.0f), kPosZero), (Out{kPosZero, 0}));
  EXPECT_EQ(f(fmsub(kRdn), kPosZero, B(1.0f), kPosZero), (Out{kNegZero, 0}));
  // fnmadd rounds -(a*b) - c once, in its mode (not the negation of a rounded fmadd).
  const uint32_t a = 0x3f800800;  // (1 + 2^-12)^2 is a tie, see above
  EXPECT_EQ(f(fnmadd(kRdn), a, a, kPosZero), (Out{0xbf801001, NX}));
  EXPECT_EQ(f(fnmadd(kRup), a, a, kPosZero), (Out{0xbf801000, NX}));
  // Invalid: inf * 0, also with a quiet NaN addend (RISC-V requires NV there), and
  // inf - inf.
  EXPECT_EQ(f(fmadd(), kPosInf, kPosZero, B(1.0f)), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fmadd(), kNegZero, kNegInf, kQNaNPayload), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fnmsub(), kPosZero, kPosInf, kQNaN), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fmadd(), kPosInf, B(1.0f), kNegInf), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fmsub(), kPosInf, B(1.0f), kPosInf), (Out{kQNaN, NV}));
  // NaN inputs otherwise: quiet passes silently, signaling raises NV.
  EXPECT_EQ(f(fmadd(), B(1.0f), B(2.0f), kQNaNPayload), (Out{kQNaN, 0}));
  EXPECT_EQ(f(fmadd(), kSNaN, B(2.0f), B(1.0f)), (Out{kQNaN, NV}));
  EXPECT_EQ(f(fmadd(), kPosInf, B(2.0f), B(1.0f)), (Out{kPosInf, 0}));
  EXPECT_EQ(f(fmadd(), kMaxFinite, B(2.0f), B(-1.0f)), (Out{kPosInf, OF | NX}));
}

TEST_F(FpTest, MinMaxNumber) {
  EXPECT_EQ(f(fmin(), B(1.0f), B(-2.0f)), (Out{B(-2.0f), 0}));
  EXPECT_EQ(f(fmax(), B(1.0f), B(-2.0f)), (Out{B(1.0f), 0}));
  EXPECT_EQ(f(fmin(), B(-1.0f), kNegInf), (Out{kNegInf, 0}));
  EXPECT_EQ(f(fmax(), kMinSub, kPosZero), (Out{kMinSub, 0}));
  // -0 < +0 in either operand order.
  EXPECT_EQ(f(fmin(), kPosZero, kNegZero), (Out{kNegZero, 0}));
  EXPECT_EQ(f(fmin(), kNegZero, kPosZero), (Out{kNegZero, 0}));
  EXPECT_EQ(f(fmax(), kPosZero, kNegZero), (Out{kPosZero, 0}));
  EXPECT_EQ(f(fmax(), kNegZero, kPosZero), (Out{kPosZero, 0}));
  // One NaN: the other operand; two: the canonical NaN; a signaling one raises NV.
  EXPECT_EQ(f(fmin(), kQNaNPayload, B(3.0f)), (Out{B(3.0f), 0}));
  EXPECT_EQ(f(fmax(), B(3.0f), kQNaNPayload), (Out{B(3.0f), 0}));
  EXPECT_EQ(f(fmin(), kSNaN, B(3.0f)), (Out{B(3.0f), NV}));
  EXPECT_EQ(f(fmax(), B(-3.0f), kSNaNPayload), (Out{B(-3.0f), NV}));
  EXPECT_EQ(f(fmin(), kQNaNPayload, kQNaNPayload), (Out{kQNaN, 0}));
  EXPECT_EQ(f(fmax(), kSNaN, kQNaNPayload), (Out{kQNaN, NV}));
}

TEST_F(FpTest, Compares) {
  EXPECT_EQ(xr(feq(), B(1.0f), B(1.0f)), (Out{1, 0}));
  EXPECT_EQ(xr(feq(), B(1.0f), B(2.0f)), (Out{0, 0}));
  EXPECT_EQ(xr(feq(), kNegZero, kPosZero), (Out{1, 0}));
  EXPECT_EQ(xr(flt(), kNegZero, kPosZero), (Out{0, 0}));
  EXPECT_EQ(xr(fle(), kNegZero, kPosZero), (Out{1, 0}));
  EXPECT_EQ(xr(flt(), B(-1.0f), B(1.0f)), (Out{1, 0}));
  EXPECT_EQ(xr(flt(), B(1.0f), B(1.0f)), (Out{0, 0}));
  EXPECT_EQ(xr(fle(), B(1.0f), B(1.0f)), (Out{1, 0}));
  EXPECT_EQ(xr(fle(), kPosInf, B(1.0f)), (Out{0, 0}));
  EXPECT_EQ(xr(flt(), kNegInf, kPosInf), (Out{1, 0}));
  // NaN: always false; feq is quiet (NV only for sNaN), flt/fle signal on any NaN.
  EXPECT_EQ(xr(feq(), kQNaN, kQNaN), (Out{0, 0}));
  EXPECT_EQ(xr(feq(), B(1.0f), kQNaNPayload), (Out{0, 0}));
  EXPECT_EQ(xr(feq(), kSNaN, B(1.0f)), (Out{0, NV}));
  EXPECT_EQ(xr(flt(), kQNaN, B(1.0f)), (Out{0, NV}));
  EXPECT_EQ(xr(fle(), B(1.0f), kQNaN), (Out{0, NV}));
  EXPECT_EQ(xr(fle(), kSNaN, kSNaN), (Out{0, NV}));
}

TEST_F(FpTest, ClassifiesEveryKind) {
  const struct {
    uint32_t bits, mask;
  } cases[] = {{kNegInf, 1u << 0},      {B(-1.0f), 1u << 1},  {0x80000001, 1u << 2},
               {kNegZero, 1u << 3},     {kPosZero, 1u << 4},  {0x007fffff, 1u << 5},
               {kMaxFinite, 1u << 6},   {kPosInf, 1u << 7},   {kSNaN, 1u << 8},
               {kSNaNPayload, 1u << 8}, {kQNaN, 1u << 9},     {kQNaNPayload, 1u << 9}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bits);
    EXPECT_EQ(xr(fclass(), c.bits), (Out{c.mask, 0}));
  }
}

TEST_F(FpTest, ConvertToIntegerRoundsTiesPerMode) {
  const struct {
    float v;
    int32_t rne, rtz, rdn, rup, rmm;
  } cases[] = {
      {0.5f, 0, 0, 0, 1, 1},      {1.5f, 2, 1, 1, 2, 2},      {2.5f, 2, 2, 2, 3, 3},
      {-2.5f, -2, -2, -3, -2, -3}, {-0.5f, 0, 0, -1, 0, -1},  {-1.5f, -2, -1, -2, -1, -2},
      {0.75f, 1, 0, 0, 1, 1},     {-0.25f, 0, 0, -1, 0, 0},   {0x1p-149f, 0, 0, 0, 1, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.v);
    const int32_t want[] = {c.rne, c.rtz, c.rdn, c.rup, c.rmm};
    for (unsigned rm = kRne; rm <= kRmm; ++rm) {
      SCOPED_TRACE(rm);
      EXPECT_EQ(xr(fcvt_w_s(rm), B(c.v)), (Out{static_cast<uint32_t>(want[rm]), NX}));
    }
  }
  EXPECT_EQ(xr(fcvt_w_s(kRne), B(-7.0f)), (Out{static_cast<uint32_t>(-7), 0}));
  EXPECT_EQ(xr(fcvt_w_s(kRne), kNegZero), (Out{0, 0}));
  EXPECT_EQ(xr(fcvt_wu_s(kRup), B(2.5f)), (Out{3, NX}));
  EXPECT_EQ(xr(fcvt_wu_s(kRne), B(3.0e9f)), (Out{3000000000u, 0}));
  // dyn takes frm.
  hart.frm = kRdn;
  EXPECT_EQ(xr(fcvt_w_s(), B(-1.25f)), (Out{static_cast<uint32_t>(-2), NX}));
}

TEST_F(FpTest, ConvertToIntegerSaturates) {
  const uint32_t imax = INT32_MAX, imin = static_cast<uint32_t>(INT32_MIN);
  // Signed.
  EXPECT_EQ(xr(fcvt_w_s(), kQNaN), (Out{imax, NV}));
  EXPECT_EQ(xr(fcvt_w_s(), 0xffc00000), (Out{imax, NV}));  // a NaN with the sign set
  EXPECT_EQ(xr(fcvt_w_s(), kSNaN), (Out{imax, NV}));
  EXPECT_EQ(xr(fcvt_w_s(), kPosInf), (Out{imax, NV}));
  EXPECT_EQ(xr(fcvt_w_s(), kNegInf), (Out{imin, NV}));
  EXPECT_EQ(xr(fcvt_w_s(), B(0x1p31f)), (Out{imax, NV}));
  EXPECT_EQ(xr(fcvt_w_s(), B(0x1.fffffep30f)), (Out{0x7fffff80, 0}));  // largest in range
  EXPECT_EQ(xr(fcvt_w_s(), B(-0x1p31f)), (Out{imin, 0}));              // INT32_MIN exactly
  EXPECT_EQ(xr(fcvt_w_s(), B(-0x1.000002p31f)), (Out{imin, NV}));
  EXPECT_EQ(xr(fcvt_w_s(), kMaxFinite), (Out{imax, NV}));
  // Unsigned.
  EXPECT_EQ(xr(fcvt_wu_s(), kQNaN), (Out{UINT32_MAX, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(), 0xffc00000), (Out{UINT32_MAX, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(), kPosInf), (Out{UINT32_MAX, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(), kNegInf), (Out{0, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(), B(0x1p32f)), (Out{UINT32_MAX, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(), B(0x1.fffffep31f)), (Out{0xffffff00, 0}));
  EXPECT_EQ(xr(fcvt_wu_s(), B(-1.0f)), (Out{0, NV}));
  // Negative values that round to 0 are in range (NX only); to -1, out of range.
  EXPECT_EQ(xr(fcvt_wu_s(kRtz), B(-0.75f)), (Out{0, NX}));
  EXPECT_EQ(xr(fcvt_wu_s(kRne), B(-0.5f)), (Out{0, NX}));
  EXPECT_EQ(xr(fcvt_wu_s(kRup), B(-0.75f)), (Out{0, NX}));
  EXPECT_EQ(xr(fcvt_wu_s(kRmm), B(-0.5f)), (Out{0, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(kRdn), B(-0x1p-149f)), (Out{0, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(kRne), B(-0.75f)), (Out{0, NV}));
  EXPECT_EQ(xr(fcvt_wu_s(), kNegZero), (Out{0, 0}));
}

TEST_F(FpTest, ConvertFromInteger) {
  EXPECT_EQ(f(fcvt_s_w(), static_cast<uint32_t>(-5)), (Out{B(-5.0f), 0}));
  EXPECT_EQ(f(fcvt_s_w(), 0), (Out{kPosZero, 0}));
  EXPECT_EQ(f(fcvt_s_w(), static_cast<uint32_t>(INT32_MIN)), (Out{B(-0x1p31f), 0}));
  EXPECT_EQ(f(fcvt_s_w(kRne), INT32_MAX), (Out{B(0x1p31f), NX}));
  EXPECT_EQ(f(fcvt_s_w(kRtz), INT32_MAX), (Out{B(0x1.fffffep30f), NX}));
  EXPECT_EQ(f(fcvt_s_w(kRdn), static_cast<uint32_t>(-16777217)), (Out{B(-16777218.0f), NX}));
  EXPECT_EQ(f(fcvt_s_w(kRup), static_cast<uint32_t>(-16777217)), (Out{B(-16777216.0f), NX}));
  EXPECT_EQ(f(fcvt_s_wu(), 0xffffffff), (Out{B(0x1p32f), NX}));
  EXPECT_EQ(f(fcvt_s_wu(kRtz), 0xffffffff), (Out{B(0x1.fffffep31f), NX}));
  EXPECT_EQ(f(fcvt_s_wu(), 0x80000000), (Out{B(0x1p31f), 0}));  // unsigned, not -2^31
}

TEST_F(FpTest, SignInjectionAndMovesAreBitOperations) {
  EXPECT_EQ(f(fsgnj(), B(1.5f), B(-2.0f)), (Out{B(-1.5f), 0}));
  EXPECT_EQ(f(fsgnjn(), B(1.5f), B(-2.0f)), (Out{B(1.5f), 0}));
  EXPECT_EQ(f(fsgnjx(), B(-1.5f), B(-2.0f)), (Out{B(1.5f), 0}));
  EXPECT_EQ(f(fsgnjx(), B(-1.5f), B(2.0f)), (Out{B(-1.5f), 0}));
  // NaNs keep their payload and raise nothing, signaling ones included.
  EXPECT_EQ(f(fsgnj(), kSNaNPayload, kNegZero), (Out{kSNaNPayload | 0x80000000u, 0}));
  EXPECT_EQ(f(fsgnjn(), kQNaNPayload, kQNaNPayload), (Out{kQNaNPayload & 0x7fffffffu, 0}));
  EXPECT_EQ(f(fsgnjx(), kSNaN, kSNaN), (Out{kSNaN, 0}));
  EXPECT_EQ(xr(fmv_x_w(), kSNaNPayload), (Out{kSNaNPayload, 0}));
  EXPECT_EQ(f(fmv_w_x(), kSNaNPayload), (Out{kSNaNPayload, 0}));
  EXPECT_EQ(f(fmv_w_x(), 0x12345678), (Out{0x12345678, 0}));
}

TEST_F(FpTest, FlagsAccumulateAndCsrsReadThem) {
  namespace c = isa::csr;
  hart.f[1] = B(1.0f);
  hart.f[2] = B(3.0f);
  hart.f[3] = kPosZero;
  hart.fflags = 0;
  exec({enc::r(0x53, kDyn, 0x0c, 4, 1, 2),  // 1/3: NX
        enc::csrrs(10, c::fflags, 0),
        enc::r(0x53, kDyn, 0x0c, 5, 1, 3),  // 1/0: DZ
        enc::csrrs(11, c::fflags, 0), enc::csrrs(12, c::fcsr, 0),
        enc::r(0x53, kDyn, 0x00, 6, 1, 2)});  // 1+3: exact, the flags stay
  EXPECT_EQ(x(10), NX);
  EXPECT_EQ(x(11), NX | DZ);
  EXPECT_EQ(x(12), NX | DZ);  // frm = 0
  EXPECT_EQ(hart.fflags, NX | DZ);
  // Writing fflags clears them; fcsr writes frm and fflags together.
  exec({csrrwi(10, c::fflags, 0), enc::r(0x53, kDyn, 0x00, 6, 1, 2), enc::csrrs(11, c::fflags, 0)});
  EXPECT_EQ(x(10), NX | DZ);
  EXPECT_EQ(x(11), 0u);
  x(1) = kRup << 5 | OF;
  exec({enc::csrrw(10, c::fcsr, 1), enc::csrrs(11, c::frm, 0), enc::csrrs(12, c::fflags, 0)});
  EXPECT_EQ(x(11), kRup);
  EXPECT_EQ(x(12), OF);
  EXPECT_EQ(hart.frm, kRup);
}

TEST_F(FpTest, FrmSetsTheDynamicRoundingMode) {
  namespace c = isa::csr;
  // 1 + 0.75 ulp: up to 1 + 2^-23 to nearest, down to 1 toward zero.
  const uint32_t one = B(1.0f), one_up = 0x3f800001;
  hart.f[1] = one;
  hart.f[2] = B(0x1.8p-24f);
  hart.frm = kRne;
  exec({enc::r(0x53, kDyn, 0x00, 10, 1, 2), csrrwi(0, c::frm, kRtz),
        enc::r(0x53, kDyn, 0x00, 11, 1, 2), enc::r(0x53, kRup, 0x00, 12, 1, 2),
        enc::r(0x53, kDyn, 0x00, 13, 1, 2), csrrwi(0, c::frm, kRup),
        enc::r(0x53, kDyn, 0x00, 14, 1, 2)});
  EXPECT_EQ(hart.f[10], one_up);
  EXPECT_EQ(hart.f[11], one);
  EXPECT_EQ(hart.f[12], one_up);
  EXPECT_EQ(hart.f[13], one);  // the static mode did not leak into frm's
  EXPECT_EQ(hart.f[14], one_up);
  EXPECT_EQ(hart.frm, kRup);
  EXPECT_EQ(hart.fflags, NX);
  // Set from outside the program: rtz truncates 1/3 and 2/3 alike.
  hart.frm = kRtz;
  EXPECT_EQ(f(fdiv(), B(2.0f), B(3.0f)), (Out{0x3f2aaaaa, NX}));
  hart.frm = kRne;
  EXPECT_EQ(f(fdiv(), B(2.0f), B(3.0f)), (Out{0x3f2aaaab, NX}));
}

TEST_F(FpTest, InvalidRoundingModesAreIllegalInstructions) {
  namespace c = isa::csr;
  hart.f[1] = B(1.0f);
  hart.f[2] = B(2.0f);
  for (unsigned bad : {5u, 6u, 7u}) {
    SCOPED_TRACE(bad);
    hart.frm = kRne;
    EXPECT_EQ(exec({csrrwi(0, c::frm, bad), enc::r(0x53, kDyn, 0x00, 10, 1, 2)}), Stop::fault);
    EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
    EXPECT_EQ(hart.fault().pc, kCode + 4);
    // A static mode still works with a bad frm.
    EXPECT_EQ(f(fadd(kRtz), B(1.0f), B(2.0f)), (Out{B(3.0f), 0}));
    EXPECT_EQ(xr(fcvt_w_s(kRne), B(2.5f)), (Out{2, NX}));
    EXPECT_EQ(exec({fcvt_s_w()}), Stop::fault);
    EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
    // Instructions without a rounding mode do not care.
    EXPECT_EQ(f(fmin(), B(1.0f), B(2.0f)), (Out{B(1.0f), 0}));
  }
  // Reserved static modes 5 and 6 are illegal whatever frm is.
  hart.frm = kRne;
  for (unsigned bad : {5u, 6u}) {
    EXPECT_EQ(exec({fadd(bad)}), Stop::fault);
    EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
    EXPECT_EQ(exec({fmadd(bad)}), Stop::fault);
    EXPECT_EQ(exec({fcvt_w_s(bad)}), Stop::fault);
  }
}

TEST_F(FpTest, TimingClasses) {
  hart.f[1] = B(1.0f);
  hart.f[2] = B(2.0f);
  exec({fdiv()});
  EXPECT_EQ(hart.cycles, timing.fdiv + timing.thread);
  exec({fmadd()});
  EXPECT_EQ(hart.cycles, timing.fdiv + timing.fma + 2 * timing.thread);
}

}  // namespace
}  // namespace emx::test
