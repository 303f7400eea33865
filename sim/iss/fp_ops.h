// Single-precision helpers used by the RV32F rows of the table (isa/rv32f.def).
//
// Flags: while a hart runs, the host FPU's sticky flags are the hart's fflags (fp_env.h),
// so a helper may only do host floating-point work that raises exactly the flags of the
// RISC-V operation. Flags the host cannot produce (NaN rules of min/max and compares,
// integer conversion saturation) are computed in software and ORed into `flags`
// (the FFLAGS of the row).
//
// Header-only on purpose: the helpers are inlined into execute.cpp, which is compiled with
// -frounding-math, so the compiler neither folds nor reorders their arithmetic under the
// assumption of round-to-nearest.
#pragma once
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "fault.h"
#include "fp_env.h"

namespace emx::iss {

// The hot helpers are forced inline: the run loop is one large function, where GCC's
// inlining limits would otherwise leave them as calls.
#define EMX_FP_INLINE __attribute__((always_inline)) inline

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
// The FP register file is read and written through the host's integer registers: the
// host forwards an integer store to a later integer load of the same word at once, while a
// float store to a float load costs about 9 clocks more on the dependency chain of an
// accumulating loop (an x86-64 AMD host, measured). The empty asm keeps the value in an
// integer register, where the compiler would otherwise load or store it as a float.
EMX_FP_INLINE float fp_read(uint32_t bits) {
  asm("" : "+r"(bits));
  return fp_value(bits);
}
// RISC-V returns the canonical NaN from every operation that produces a NaN. A branch, not
// a select: a NaN is rare, and a select would wait for the NaN test on the chain.
EMX_FP_INLINE void fp_write_canonical(uint32_t& dst, float v) {
  uint32_t bits = fp_bits(v);
  asm("" : "+r"(bits));
  dst = __builtin_expect(v != v, 0) ? kCanonicalNaN : bits;
}

// The rounding mode an instruction uses: its own, or frm when it says dyn (7).
inline uint32_t resolve_rm(uint32_t insn_rm, uint32_t frm) {
  const uint32_t rm = insn_rm == fp::kDyn ? frm : insn_rm;
  if (rm > fp::kRmm) throw Trap{FaultKind::illegal_instruction, 0, "invalid rounding mode"};
  return rm;
}
// An instruction's rounding-mode field with frm, resolved only when needed: usually the
// host already rounds as the instruction asks (dyn, or frm's own mode, and not RMM).
struct Rounding {
  uint32_t insn_rm, frm;
  // One branch (bitwise, not short-circuit): the handler keeps its operands in registers.
  EMX_FP_INLINE bool on_host() const {
    return ((insn_rm == fp::kDyn) | (insn_rm == frm)) & (frm < fp::kRmm);
  }
  operator uint32_t() const { return resolve_rm(insn_rm, frm); }  // faults if invalid
};

// ---- Classification on raw bits (never touches the host FPU, so never raises a flag) ----

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kQuietBit = 0x00400000u;
constexpr uint32_t kInfBits = 0x7f800000u;

inline bool fp_is_nan(uint32_t b) { return (b & ~kSignBit) > kInfBits; }
inline bool fp_is_snan(uint32_t b) { return fp_is_nan(b) && !(b & kQuietBit); }
inline bool fp_is_inf_times_zero(uint32_t a, uint32_t b) {
  const uint32_t x = a & ~kSignBit, y = b & ~kSignBit;
  return (x == kInfBits && y == 0) || (x == 0 && y == kInfBits);
}

// fclass.s: exactly one of ten bits.
inline uint32_t fp_class(uint32_t b) {
  const bool neg = b & kSignBit;
  const uint32_t exp = (b >> 23) & 0xff, frac = b & 0x7fffff;
  if (exp == 0xff) {
    if (frac == 0) return neg ? 1u << 0 : 1u << 7;  // -inf, +inf
    return (b & kQuietBit) ? 1u << 9 : 1u << 8;      // quiet, signaling NaN
  }
  if (exp == 0) {
    if (frac == 0) return neg ? 1u << 3 : 1u << 4;  // -0, +0
    return neg ? 1u << 2 : 1u << 5;                 // subnormal
  }
  return neg ? 1u << 1 : 1u << 6;  // normal
}

// ---- Compares and min/max: the RISC-V NaN rules, in software ----

// Whether a or b is a NaN (the compare is then false), raising NV as RISC-V says:
// feq is a quiet compare (NV for a signaling NaN only), flt/fle signal on any NaN.
inline bool fp_unordered(uint32_t a, uint32_t b, bool signaling, uint32_t& flags) {
  if (!fp_is_nan(a) && !fp_is_nan(b)) return false;
  if (signaling || fp_is_snan(a) || fp_is_snan(b)) flags |= fp::NV;
  return true;
}
// With no NaN operand the host compares raise nothing.
inline uint32_t fp_eq(uint32_t a, uint32_t b, uint32_t& flags) {
  return !fp_unordered(a, b, false, flags) && fp_value(a) == fp_value(b);
}
inline uint32_t fp_lt(uint32_t a, uint32_t b, uint32_t& flags) {
  return !fp_unordered(a, b, true, flags) && fp_value(a) < fp_value(b);
}
inline uint32_t fp_le(uint32_t a, uint32_t b, uint32_t& flags) {
  return !fp_unordered(a, b, true, flags) && fp_value(a) <= fp_value(b);
}

// fmin.s/fmax.s: IEEE 754-2019 minimumNumber/maximumNumber (RISC-V F v2.2): a single
// NaN operand is ignored, two give the canonical NaN, a signaling NaN raises NV, and
// -0 is less than +0. Returns raw bits (the chosen operand unchanged).
inline uint32_t fp_minmax(uint32_t a, uint32_t b, bool want_max, uint32_t& flags) {
  if (fp_is_snan(a) || fp_is_snan(b)) flags |= fp::NV;
  const bool a_nan = fp_is_nan(a), b_nan = fp_is_nan(b);
  if (a_nan || b_nan) return a_nan && b_nan ? kCanonicalNaN : a_nan ? b : a;
  const float x = fp_value(a), y = fp_value(b);
  // Equal values have equal bits except for +0 == -0: the sign bit picks the right zero.
  if (x == y) return want_max ? (a & b) : (a | b);
  return (x < y) != want_max ? a : b;
}
inline uint32_t fp_min(uint32_t a, uint32_t b, uint32_t& flags) {
  return fp_minmax(a, b, false, flags);
}
inline uint32_t fp_max(uint32_t a, uint32_t b, uint32_t& flags) {
  return fp_minmax(a, b, true, flags);
}

// ---- Float to integer: in integer arithmetic, for all five rounding modes ----

namespace detail {

// |value of bits| rounded to an integer per rm (the sign matters for rdn and rup).
// Magnitudes of 2^40 and more come back as 2^40: out of range for any 32-bit result.
inline uint64_t round_magnitude(uint32_t bits, uint32_t rm, bool& inexact) {
  const bool neg = bits & kSignBit;
  const uint32_t exp = (bits >> 23) & 0xff;
  const uint64_t sig = (bits & 0x7fffff) | (exp ? 0x800000u : 0u);  // value = sig * 2^-shift
  const int shift = 150 - static_cast<int>(exp ? exp : 1);
  inexact = false;
  if (shift <= 0) return shift < -16 ? uint64_t(1) << 40 : sig << -shift;
  // sig < 2^24, so for shift >= 25 the value is below one half; 40 keeps that and the
  // shifts defined.
  const int s = shift < 40 ? shift : 40;
  const uint64_t q = sig >> s, rem = sig & ((uint64_t(1) << s) - 1), half = uint64_t(1) << (s - 1);
  if (rem == 0) return q;
  inexact = true;
  switch (rm) {
    case fp::kRne: return q + (rem > half || (rem == half && (q & 1)));
    case fp::kRmm: return q + (rem >= half);
    case fp::kRdn: return q + neg;
    case fp::kRup: return q + !neg;
    default: return q;  // rtz
  }
}

}  // namespace detail

// fcvt.w.s (Int = int32_t), fcvt.wu.s (Int = uint32_t). Out of range results saturate
// with NV only (no NX): NaN and too large give the maximum, too small the minimum
// (0 for wu: a negative value that rounds to -0 is in range and gives 0 with NX).
template <class Int>
inline uint32_t fp_to_int(uint32_t bits, uint32_t rm, uint32_t& flags) {
  using L = std::numeric_limits<Int>;
  const bool neg = bits & kSignBit;
  const uint32_t max = static_cast<uint32_t>(L::max()), min = static_cast<uint32_t>(L::min());
  if (fp_is_nan(bits)) {
    flags |= fp::NV;
    return max;
  }
  bool inexact;
  const uint64_t mag = detail::round_magnitude(bits, rm, inexact);  // inf: 2^40
  const uint64_t limit = neg ? uint64_t(0) - static_cast<uint64_t>(static_cast<int64_t>(L::min()))
                             : uint64_t(L::max());
  if (mag > limit) {
    flags |= fp::NV;
    return neg ? min : max;
  }
  if (inexact) flags |= fp::NX;
  return static_cast<uint32_t>(neg ? 0 - mag : mag);
}

// ---- Rounded arithmetic: the instruction's rounding mode on the host FPU ----

namespace detail {

// Keeps v in program order with respect to the fesetround calls around it: GCC may move
// floating-point arithmetic across calls even with -frounding-math (GCC PR 34678), but
// not across a volatile asm that clobbers memory and reads and writes v.
template <class T>
inline void pin(T& v) {
  asm volatile("" : "+m"(v) : : "memory");
}

// The host in the rounding mode of `rm` for the lifetime of the object, and back in frm's
// (the mode the host is in while the hart runs, fp_env.h) afterwards.
class HostRounding {
 public:
  HostRounding(uint32_t rm, uint32_t frm) : restore_(fp::host_round(frm)) {
    const int want = fp::host_round(rm);
    if (want == restore_)
      restore_ = -1;
    else
      std::fesetround(want);
  }
  ~HostRounding() {
    if (restore_ >= 0) std::fesetround(restore_);
  }
  HostRounding(const HostRounding&) = delete;
  HostRounding& operator=(const HostRounding&) = delete;

 private:
  int restore_;  // -1: nothing to restore
};

// RMM (round to nearest, ties to max magnitude) has no host mode. It differs from
// round-to-nearest-even only when the exact result lies exactly halfway between two
// floats and RNE picked the one nearer zero; then RMM is one ulp farther out. The flags
// are the same in both modes: a tie is inexact either way, a tie at the top of the
// range overflows in both (FLT_MAX is odd), and tininess after rounding (unbounded
// exponent, 24 bits) cannot differ at a tie. `equals(m)` tells whether the exact result
// is the double m (the midpoint needs 25 bits: a double holds it exactly).
template <class Equals>
inline float ties_away(float rne, Equals equals) {
  const uint32_t b = fp_bits(rne);
  if ((b & ~kSignBit) >= 0x7f7fffffu) return rne;  // NaN, inf, FLT_MAX: no tie above
  const float away = fp_value(b + 1);  // magnitude + 1 ulp (from +-0: the least subnormal)
  return equals((double(rne) + double(away)) * 0.5) ? away : rne;
}

// Whether a*b + c equals m exactly (a, b, c floats widened to double): the product of
// two floats is exact in double and TwoSum gives the exact error of the double sum.
// Only used for RMM, when the host rounds to nearest as TwoSum requires. Raises nothing
// the operation itself did not: the double sum is inexact only if the float one is.
inline bool fma_equals(double a, double b, double c, double m) {
  const double p = a * b, s = p + c;
  if (s != m) return false;
  const double bv = s - p;
  return (p - (s - bv)) + (c - bv) == 0;
}

template <class Op, class Equals, class... Args>
__attribute__((noinline, cold)) float rounded_slow(uint32_t rm, uint32_t frm, Op op,
                                                   Equals equals, Args... args) {
  float r;
  {
    HostRounding scope(rm == fp::kRmm ? fp::kRne : rm, frm);
    (pin(args), ...);
    r = op(args...);
    if (rm == fp::kRmm) r = ties_away(r, [&](double m) { return equals(args..., m); });
    pin(r);
  }
  return r;
}

}  // namespace detail

// op(args...) rounded per the instruction's mode rm (resolved, and faulting if invalid,
// only off the usual path). `equals(args..., m)` tells whether the exact result is the
// double m, for RMM (see ties_away).
template <class Op, class Equals, class... Args>
EMX_FP_INLINE float fp_rounded(Rounding rm, uint32_t frm, Op op, Equals equals, Args... args) {
  // The common case: dyn, or a static mode equal to frm; the host is in that mode.
  if (__builtin_expect(rm.on_host(), 1)) return op(args...);
  return detail::rounded_slow(rm, frm, op, equals, args...);  // resolves rm: may fault
}

EMX_FP_INLINE float fp_add(float a, float b, Rounding rm, uint32_t frm) {
  return fp_rounded(
      rm, frm, [](float x, float y) { return x + y; },
      [](float x, float y, double m) { return detail::fma_equals(x, 1, y, m); }, a, b);
}
EMX_FP_INLINE float fp_sub(float a, float b, Rounding rm, uint32_t frm) {
  return fp_rounded(
      rm, frm, [](float x, float y) { return x - y; },
      [](float x, float y, double m) { return detail::fma_equals(x, 1, -double(y), m); }, a, b);
}
EMX_FP_INLINE float fp_mul(float a, float b, Rounding rm, uint32_t frm) {
  return fp_rounded(
      rm, frm, [](float x, float y) { return x * y; },
      [](float x, float y, double m) { return double(x) * double(y) == m; }, a, b);
}
// m has 25 significant bits and y 24, so m * y is exact in double.
EMX_FP_INLINE float fp_div(float a, float b, Rounding rm, uint32_t frm) {
  return fp_rounded(
      rm, frm, [](float x, float y) { return x / y; },
      [](float x, float y, double m) { return m * double(y) == double(x); }, a, b);
}
// A square root is never a tie: a midpoint has 25 significant bits ending in 1, its
// square 49 or more, a float 24 (and square roots of floats are never subnormal).
EMX_FP_INLINE float fp_sqrt(float a, Rounding rm, uint32_t frm) {
  return fp_rounded(
      rm, frm, [](float x) { return std::sqrt(x); }, [](float, double) { return false; }, a);
}
// One rounding of a*b + c; the fused forms negate operands (exact) before it:
// fmsub = a*b - c, fnmsub = -(a*b) + c, fnmadd = -(a*b) - c. RISC-V requires NV for
// inf * 0 even when c is a quiet NaN, where the x86 FMA returns the NaN silently (the
// result is a NaN then: checked only when it is one).
namespace detail {
// Out of line: the operands stay in the host's float registers on the usual path.
__attribute__((noinline, cold)) inline void fma_nan_flags(float a, float b, float c,
                                                          uint32_t& flags) {
  if (fp_is_nan(fp_bits(c)) && fp_is_inf_times_zero(fp_bits(a), fp_bits(b))) flags |= fp::NV;
}
}  // namespace detail
EMX_FP_INLINE float fp_fma(float a, float b, float c, Rounding rm, uint32_t frm, uint32_t& flags) {
  const float r = fp_rounded(
      rm, frm, [](float x, float y, float z) { return std::fma(x, y, z); },
      [](float x, float y, float z, double m) { return detail::fma_equals(x, y, z, m); }, a,
      b, c);
  if (__builtin_expect(r != r, 0)) detail::fma_nan_flags(a, b, c, flags);
  return r;
}
// fcvt.s.w (Int = int32_t), fcvt.s.wu (Int = uint32_t): the host conversion rounds once
// and raises NX when inexact; any 32-bit integer is exact in double.
template <class Int>
EMX_FP_INLINE float fp_from_int(Int v, Rounding rm, uint32_t frm) {
  return fp_rounded(
      rm, frm, [](Int i) { return static_cast<float>(i); },
      [](Int i, double m) { return static_cast<double>(i) == m; }, v);
}

}  // namespace emx::iss

#undef EMX_FP_INLINE
