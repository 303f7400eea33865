// Zicsr: the FP control registers, the counters, and the EMC-Y machine registers.
#include <cfenv>

#include "fp_env.h"
#include "hart.h"
#include "isa/csr_numbers.h"

namespace emx::iss {

uint32_t Hart::* Hart::csr_field(unsigned n) {
  namespace c = isa::csr;
  switch (n) {  // as csr_access reads them
    case c::pe_id: return &Hart::pe_id_;
    case c::pe_count: return &Hart::pe_count_;
    case c::clock_khz: return &Hart::clock_khz_;
    case c::features: return &Hart::features;
    case c::frame_words: return &Hart::frame_words;
    case c::mem_bytes: return &Hart::mem_bytes_;
    case c::handlers: return &Hart::handler_table;
    case c::thread_stack: return &Hart::thread_stack;
    case c::timer_cont: return &Hart::timer_cont;
    default: return nullptr;
  }
}

bool Hart::csr_access(unsigned n, CsrOp op, uint32_t operand, bool do_write, uint32_t& old) {
  namespace c = isa::csr;
  uint32_t* rw = nullptr;  // writable register, or nullptr for read-only ones
  uint32_t mask = 0;
  switch (n) {
    case c::fflags: old = fflags; rw = &fflags; mask = 0x1f; break;
    case c::frm: old = frm; rw = &frm; mask = 0x7; break;
    case c::fcsr: old = (frm << 5) | fflags; mask = 0xff; break;
    case c::cycle: case c::time: old = static_cast<uint32_t>(cycles); break;
    case c::cycleh: case c::timeh: old = static_cast<uint32_t>(cycles >> 32); break;
    case c::instret: old = static_cast<uint32_t>(instret); break;
    case c::instreth: old = static_cast<uint32_t>(instret >> 32); break;
    case c::pe_id: old = pe_id_; break;
    case c::pe_count: old = pe_count_; break;
    case c::mem_bytes: old = mem_bytes_; break;
    case c::clock_khz: old = clock_khz_; break;
    case c::features: old = features; break;
    case c::handlers: old = handler_table; rw = &handler_table; mask = ~3u; break;
    case c::frame_words: old = frame_words; break;
    case c::thread_stack: old = thread_stack; rw = &thread_stack; mask = ~15u; break;
    case c::timer_cont: old = timer_cont; rw = &timer_cont; mask = ~0u; break;
    case c::timer_arm:  // reads 0; a write (old = 0 for set and clear) arms a timer
      old = 0;
      if (do_write && env_)
        env_->arm_timer(*this, timer_cont, op == CsrOp::clear ? 0 : operand);
      return true;
    default: return false;
  }
  if (!do_write) return true;
  if (!mask) return false;  // read-only (RISC-V: writing one is an illegal instruction)
  uint32_t v = op == CsrOp::write ? operand : op == CsrOp::set ? old | operand : old & ~operand;
  v &= mask;
  if (n == c::fcsr) {
    fflags = v & 0x1f;
    frm = v >> 5;
  } else {
    *rw = v;
  }
  // The host rounding mode follows frm while the hart runs (see fp_env.h).
  if (n == c::frm || n == c::fcsr) std::fesetround(fp::host_round(frm <= fp::kRmm ? frm : fp::kRne));
  return true;
}

}  // namespace emx::iss
