// CSR numbers the model implements. Standard user-level ones plus EMC-Y machine
// registers in the custom read-only user range 0xCC0-0xCFF.
#pragma once

namespace emx::isa::csr {
constexpr unsigned fflags = 0x001, frm = 0x002, fcsr = 0x003;
constexpr unsigned cycle = 0xC00, time = 0xC01, instret = 0xC02;
constexpr unsigned cycleh = 0xC80, timeh = 0xC81, instreth = 0xC82;
// The CSRs whose value is the PE's clock.
constexpr bool reads_clock(unsigned n) {
  return n == cycle || n == time || n == cycleh || n == timeh;
}
constexpr unsigned pe_id = 0xCC0;      // this PE's number
constexpr unsigned pe_count = 0xCC1;   // number of PEs in the machine
constexpr unsigned mem_bytes = 0xCC2;  // size of local memory in bytes
constexpr unsigned clock_khz = 0xCC3;  // PE clock in kHz (for converting cycles to time)
constexpr unsigned features = 0xCC4;   // feature bits: kFeature* below
constexpr unsigned frame_words = 0xCC5;  // words per frame (operand segment)
// Writable EMC-Y register (custom read/write user range 0x800-0x8FF).
constexpr unsigned handlers = 0x800;   // local address of the special-handler table
constexpr unsigned thread_stack = 0x801;  // sp of new threads (0: the loader's stack top)
// The PE's timer (docs/pe.md "Timer"): writing N to timer_arm delivers, N clocks after the
// write, a 1-input invocation (data 0) to the continuation in timer_cont, as a packet.
constexpr unsigned timer_cont = 0x802;
constexpr unsigned timer_arm = 0x803;
// The CSR accesses that need the PE's clock exact first (reads of it, arming the timer).
constexpr bool needs_exact_clock(unsigned n) { return reads_clock(n) || n == timer_arm; }
constexpr unsigned kFeatureDirectRemoteAccess = 1;  // SYSWR/SYSRD served by the memory unit
constexpr unsigned kFeatureSendDisplacement = 2;    // send has its base+displacement form
constexpr unsigned kFeatureAutoIncrement = 4;       // lw.ai: auto-increment memory addressing
}  // namespace emx::isa::csr
