#include "fp_env.h"

#include <cfenv>

namespace emx::iss::fp {

int host_round(uint32_t rm) {
  switch (rm) {
    case kRtz: return FE_TOWARDZERO;
    case kRdn: return FE_DOWNWARD;
    case kRup: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

void enter(uint32_t rm) {
  std::feclearexcept(FE_ALL_EXCEPT);
  if (rm != kRne) std::fesetround(host_round(rm));
}

uint32_t take_flags() {
  const int h = std::fetestexcept(FE_ALL_EXCEPT);
  if (!h) return 0;
  std::feclearexcept(FE_ALL_EXCEPT);
  return ((h & FE_INEXACT) ? NX : 0) | ((h & FE_UNDERFLOW) ? UF : 0) |
         ((h & FE_OVERFLOW) ? OF : 0) | ((h & FE_DIVBYZERO) ? DZ : 0) |
         ((h & FE_INVALID) ? NV : 0);
}

uint32_t leave() {
  const uint32_t f = take_flags();
  if (std::fegetround() != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  return f;
}

}  // namespace emx::iss::fp
