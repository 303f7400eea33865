// The host FPU stands in for the EMC-Y FPU. While a hart runs, the host's rounding mode
// is the hart's frm and the host's sticky exception flags collect the hart's fflags;
// they are folded into Hart::fflags whenever control leaves the ISS (environment calls,
// CSR access, end of run()), so other PEs and the simulator never see them.
#pragma once
#include <cstdint>

namespace emx::iss::fp {

constexpr uint32_t NX = 1, UF = 2, OF = 4, DZ = 8, NV = 16;
constexpr uint32_t kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7;

// Host rounding mode for a RISC-V one (RMM has no host mode: callers handle it).
int host_round(uint32_t rm);
// Start collecting: clear host flags, set the host rounding mode to rm.
void enter(uint32_t rm);
// Stop collecting: return the collected RISC-V flags, clear them, round to nearest.
uint32_t leave();
// Collected flags so far (clears them; the rounding mode stays).
uint32_t take_flags();
// Back in the ISS after an environment call, during which other PEs or the simulator may
// have used the host FPU: the host rounds as rm again, and flags raised meanwhile belong
// to no hart (cleared).
void resume(uint32_t rm);

}  // namespace emx::iss::fp
