#include "fp_env.h"

#include <cfenv>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace emx::iss::fp {

int host_round(uint32_t rm) {
  switch (rm) {
    case kRtz: return FE_TOWARDZERO;
    case kRdn: return FE_DOWNWARD;
    case kRup: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

void enter_slow(uint32_t rm) {
#if defined(__SSE__)
  // Called at every run(): clear the SSE flags (the only ones take_flags reads) directly,
  // and only when one is up; feclearexcept rewrites the whole x87 environment too.
  const unsigned csr = _mm_getcsr();
  if (csr & 0x3d) _mm_setcsr(csr & ~0x3du);
#else
  std::feclearexcept(FE_ALL_EXCEPT);
#endif
  if (rm != kRne) std::fesetround(host_round(rm));
}

uint32_t take_flags_slow() {
#if defined(__SSE__)
  // Called at every exit from the ISS: read the SSE status register directly, which is
  // much cheaper than a library call (the x87 unit is not used for float arithmetic).
  const unsigned csr = _mm_getcsr();
  if (!(csr & 0x3d)) return 0;  // IE, ZE, OE, UE, PE (DE is not a RISC-V flag)
  _mm_setcsr(csr & ~0x3fu);
  const int h = ((csr & 0x01) ? FE_INVALID : 0) | ((csr & 0x04) ? FE_DIVBYZERO : 0) |
                ((csr & 0x08) ? FE_OVERFLOW : 0) | ((csr & 0x10) ? FE_UNDERFLOW : 0) |
                ((csr & 0x20) ? FE_INEXACT : 0);
  std::feclearexcept(FE_ALL_EXCEPT);  // the x87 flags too, rarely set
#else
  const int h = std::fetestexcept(FE_ALL_EXCEPT);
  if (!h) return 0;
  std::feclearexcept(FE_ALL_EXCEPT);
#endif
  return ((h & FE_INEXACT) ? NX : 0) | ((h & FE_UNDERFLOW) ? UF : 0) |
         ((h & FE_OVERFLOW) ? OF : 0) | ((h & FE_DIVBYZERO) ? DZ : 0) |
         ((h & FE_INVALID) ? NV : 0);
}

void resume_slow(uint32_t rm) {
  std::feclearexcept(FE_ALL_EXCEPT);
  if (std::fegetround() != host_round(rm)) std::fesetround(host_round(rm));
}

uint32_t leave_slow() {
  const uint32_t f = take_flags();
#if defined(__SSE__)
  // At the end of every run(): the SSE rounding bits tell, without a library call (enter
  // and resume set the x87 and SSE modes together, through fesetround).
  if (_mm_getcsr() & 0x6000) std::fesetround(FE_TONEAREST);
#else
  if (std::fegetround() != FE_TONEAREST) std::fesetround(FE_TONEAREST);
#endif
  return f;
}

}  // namespace emx::iss::fp
