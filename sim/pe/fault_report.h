// The text a user sees when a simulated program faults: PE, simulated time, PC with
// symbol and disassembly, the faulting address, and optionally the registers.
#pragma once
#include <cstdint>
#include <string>

#include "sim/iss/hart.h"
#include "sim/loader/symbols.h"

namespace emx::pe {

std::string fault_report(unsigned pe, const iss::Hart& hart, const iss::Fault& fault,
                         const loader::SymbolTable& symbols, double clock_mhz,
                         bool register_dump);
std::string register_dump(const iss::Hart& hart);

}  // namespace emx::pe
