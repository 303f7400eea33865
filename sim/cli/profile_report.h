// `emx run --profile`: where the simulated instructions and clocks went, by function and
// by instruction, summed over the PEs chosen, from the harts' per-instruction counters.
#pragma once
#include <ostream>
#include <vector>

#include "sim/iss/hart.h"
#include "sim/loader/symbols.h"

namespace emx::cli {

struct ProfileInput {
  std::vector<const iss::Hart*> harts;  // the PEs profiled (all share one program)
  const loader::SymbolTable* symbols = nullptr;
  uint64_t top_instructions = 30;       // how many hottest instructions to list
};

// A readable report: functions by clocks (with calls: executions of their first
// instruction), then the hottest instructions with disassembly.
void write_profile_text(const ProfileInput& in, std::ostream& out);
// The same as JSON: {"instructions", "clocks", "functions": [{name, instructions, clocks, calls}],
// "hot": [{pc, where, disasm, count, clocks}]}.
void write_profile_json(const ProfileInput& in, std::ostream& out);

}  // namespace emx::cli
