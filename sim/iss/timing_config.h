// Clocks per instruction, by timing class (isa/timing_class.h). Defaults and sources:
// [paper] = the EM-X / EM-4 papers (docs/papers.md); [assumed] = not
// published, a documented modelling assumption. Sequential execution, no overlap: an
// instruction's cost is the clocks until the next one can start.
#pragma once
#include <array>
#include <cstdint>

#include "isa/timing_class.h"

namespace emx::iss {

struct TimingConfig {
  uint32_t alu = 1;     // [paper] one instruction per clock
  uint32_t load = 1;    // [paper] 10-instruction loop with 3 memory references = 10 clocks
  uint32_t store = 1;   // [paper] same loop
  uint32_t memory_penalty = 0;  // [paper] extra clocks per memory reference: EM-X 0, EM-4 1
  uint32_t mul = 2;     // [assumed]
  uint32_t div = 20;    // [assumed] iterative divider
  uint32_t branch = 1;  // [paper] not taken
  uint32_t branch_taken = 1;  // [paper] the 10-instruction loop's back edge costs 1 clock
  uint32_t jump = 1;    // [assumed] like a taken branch
  uint32_t csr = 1;     // [assumed]
  uint32_t fadd = 2;    // [assumed]
  uint32_t fmul = 2;    // [assumed]
  uint32_t fma = 3;     // [assumed]
  uint32_t fdiv = 10;   // [assumed]
  uint32_t fsqrt = 14;  // [assumed]
  uint32_t fmisc = 1;   // [assumed]
  uint32_t send = 1;    // [paper] send is one clock in the pipeline, no setup
  uint32_t thread = 1;  // [assumed] end (a tag access costs a load / a store)
  uint32_t system = 1;  // [assumed]

  template <class V>
  void visit(V& v) {
    v.field("alu", alu, 1u, 255u, "clocks: integer ALU, lui, auipc [paper: 1]");
    v.field("load", load, 1u, 255u, "clocks: load, rtag, before memory_penalty [paper: 1]");
    v.field("store", store, 1u, 255u, "clocks: store, wtag, before memory_penalty [paper: 1]");
    v.field("memory_penalty", memory_penalty, 0u, 255u,
            "extra clocks per memory reference [paper: EM-X 0, EM-4 1]");
    v.field("mul", mul, 1u, 255u, "clocks: mul, mulh* [assumed]");
    v.field("div", div, 1u, 255u, "clocks: div*, rem* [assumed]");
    v.field("branch", branch, 1u, 255u, "clocks: conditional branch not taken [paper: 1]");
    v.field("branch_taken", branch_taken, 1u, 255u,
            "clocks: conditional branch taken [paper: 1, a 10-instruction loop runs in 10]");
    v.field("jump", jump, 1u, 255u, "clocks: jal, jalr [assumed]");
    v.field("csr", csr, 1u, 255u, "clocks: csr* [assumed]");
    v.field("fadd", fadd, 1u, 255u, "clocks: fadd.s, fsub.s [assumed]");
    v.field("fmul", fmul, 1u, 255u, "clocks: fmul.s [assumed]");
    v.field("fma", fma, 1u, 255u, "clocks: fused multiply-add forms [assumed]");
    v.field("fdiv", fdiv, 1u, 255u, "clocks: fdiv.s [assumed]");
    v.field("fsqrt", fsqrt, 1u, 255u, "clocks: fsqrt.s [assumed]");
    v.field("fmisc", fmisc, 1u, 255u,
            "clocks: FP sign injection, min/max, compare, class, convert, move [assumed]");
    v.field("send", send, 1u, 255u, "clocks: packet send, when the output queue has room [paper: 1]");
    v.field("thread", thread, 1u, 255u, "clocks: end [assumed]");
    v.field("system", system, 1u, 255u, "clocks: fence, ecall, ebreak [assumed]");
  }

  // Clocks per timing class, memory penalty included; branch holds the not-taken cost.
  std::array<uint32_t, isa::kTimingClassCount> class_costs() const;
};

}  // namespace emx::iss
