// The host FPU stands in for the EMC-Y FPU. While a hart runs, the host's rounding mode
// is the hart's frm and the host's sticky exception flags collect the hart's fflags;
// they are folded into Hart::fflags whenever control leaves the ISS (environment calls,
// CSR access, end of run()), so other PEs and the simulator never see them.
#pragma once
#include <cstdint>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace emx::iss::fp {

constexpr uint32_t NX = 1, UF = 2, OF = 4, DZ = 8, NV = 16;
constexpr uint32_t kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7;

// Host rounding mode for a RISC-V one (RMM has no host mode: callers handle it).
int host_round(uint32_t rm);
// Start collecting: clear host flags, set the host rounding mode to rm.
void enter_slow(uint32_t rm);
inline void enter(uint32_t rm) {
#if defined(__SSE__)
  // At every run(): usually no flag is up and the hart rounds to nearest (the host's mode
  // outside the ISS), one read of the SSE status decides.
  if ((_mm_getcsr() & 0x3d) == 0 && rm == kRne) return;
#endif
  enter_slow(rm);
}
// Stop collecting: return the collected RISC-V flags, clear them, round to nearest.
uint32_t leave_slow();
// Collected flags so far (clears them; the rounding mode stays).
uint32_t take_flags_slow();
inline uint32_t take_flags() {
#if defined(__SSE__)
  // At every environment call: usually no flag is up, one read of the SSE status decides.
  if (!(_mm_getcsr() & 0x3d)) return 0;  // IE, ZE, OE, UE, PE (DE is not a RISC-V flag)
#endif
  return take_flags_slow();
}
inline uint32_t leave() {
#if defined(__SSE__)
  // At the end of every run(): usually no flag is up and the host rounds to nearest.
  if (!(_mm_getcsr() & 0x603d)) return 0;
#endif
  return leave_slow();
}
// Back in the ISS after an environment call, during which other PEs or the simulator may
// have used the host FPU: the host rounds as rm again, and flags raised meanwhile belong
// to no hart (cleared).
void resume_slow(uint32_t rm);
inline void resume(uint32_t rm) {
#if defined(__SSE__)
  static constexpr unsigned kRoundingBits[] = {0x0000, 0x6000, 0x2000, 0x4000, 0x0000};  // by rm
  const unsigned csr = _mm_getcsr();
  if ((csr & 0x603f) == kRoundingBits[rm <= kRmm ? rm : kRne]) return;  // the usual case
#endif
  resume_slow(rm);
}

}  // namespace emx::iss::fp
