// Architectural faults of a PE. A fault stops the run with a report naming the PE, PC,
// instruction, symbol and simulated time (sim/pe/fault_report.cpp).
#pragma once
#include <cstdint>
#include <string>

namespace emx::iss {

#define EMX_FAULT_KINDS(X)                                                        \
  X(illegal_instruction, "illegal instruction")                                   \
  X(misaligned_fetch, "misaligned jump target")                                   \
  X(fetch_outside_code, "execution outside the code segment")                     \
  X(misaligned_load, "misaligned load")                                           \
  X(load_outside_memory, "load outside local memory")                             \
  X(misaligned_store, "misaligned store")                                         \
  X(store_outside_memory, "store outside local memory")                           \
  X(store_to_code, "store into the code segment")                                 \
  X(stack_overflow, "stack overflow: a store into the guard words below a stack")  \
  X(tag_read_outside_memory, "tag read outside local memory")                     \
  X(tag_write_outside_memory, "tag write outside local memory")                   \
  X(ecall, "ecall: there is no operating system on an EMC-Y")                     \
  X(breakpoint, "ebreak: breakpoint")                                             \
  X(no_environment, "packet or thread instruction with no PE around the ISS")     \
  X(machine, "machine error")

enum class FaultKind : uint8_t {
#define X(id, text) id,
  EMX_FAULT_KINDS(X)
#undef X
};
const char* fault_kind_text(FaultKind k);

struct Fault {
  FaultKind kind = FaultKind::machine;
  uint32_t pc = 0;
  uint32_t addr = 0;   // faulting data address or jump target, where there is one
  std::string detail;  // extra words (e.g. from the PE: "no PE 900 in an 80-PE machine")
};

// Thrown inside the ISS (memory helpers, the environment) and turned into a Fault.
struct Trap {
  FaultKind kind;
  uint32_t addr;
  std::string detail;
};

}  // namespace emx::iss
