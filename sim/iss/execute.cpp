// The hot loop: fetch a pre-decoded instruction, charge its clocks, run its semantics
// (generated from isa/insns.def, one case per row).
#include <cfenv>
#include <climits>
#include <cstring>

#include "fp_env.h"
#include "fp_ops.h"
#include "hart.h"
#include "isa/csr_numbers.h"
#include "semantics.h"

namespace emx::iss {
using isa::PacketType;

// Forced inline: out of line, the call costs more than the access (seen in profiles).
template <class T>
__attribute__((always_inline)) inline T Hart::load(uint32_t a) const {
  if (__builtin_expect(a - mem::kGuardBytes > mem_span_ - sizeof(T), 0))
    throw Trap{FaultKind::load_outside_memory, a, {}};
  if (__builtin_expect(a & (sizeof(T) - 1), 0)) throw Trap{FaultKind::misaligned_load, a, {}};
  T v;
  std::memcpy(&v, bytes_ + a, sizeof(T));
  return v;
}

template <class T>
__attribute__((always_inline)) inline void Hart::store(uint32_t a, T v) {
  if (__builtin_expect(a - mem::kGuardBytes > mem_span_ - sizeof(T), 0))
    throw Trap{FaultKind::store_outside_memory, a, {}};
  if (__builtin_expect(a & (sizeof(T) - 1), 0)) throw Trap{FaultKind::misaligned_store, a, {}};
  if (__builtin_expect(a - code_base_ < code_bytes_, 0))
    throw Trap{FaultKind::store_to_code, a, {}};
  std::memcpy(bytes_ + a, &v, sizeof(T));
}

namespace {
// Word address check for the tag instructions.
struct WordCheck {
  uint32_t span;
  uint32_t operator()(uint32_t a) const {
    if (a - mem::kGuardBytes > span - 4) throw Trap{FaultKind::load_outside_memory, a, {}};
    if (a & 3) throw Trap{FaultKind::misaligned_load, a, {}};
    return a;
  }
};
}  // namespace

void Hart::enable_profile() {
  const std::size_t words = code_ ? code_->size() : 0;
  profile_.count.assign(words, 0);
  profile_.cycles.assign(words, 0);
}

Hart::Stop Hart::run(uint64_t cycle_limit) {
  return profile_.count.empty() ? run_loop<false>(cycle_limit) : run_loop<true>(cycle_limit);
}

template <bool kProfile>
Hart::Stop Hart::run_loop(uint64_t cycle_limit) {
  uint32_t pc = this->pc;
  uint64_t cycles = this->cycles;
  uint64_t instret = this->instret;
  uint64_t limit = cycle_limit;
  const Decoded* const code = code_ ? code_->data() : nullptr;
  const uint32_t base = code_base_, span = code_bytes_;
  const WordCheck checked_word{mem_span_};
  stop_requested_ = false;
  Stop result = Stop::limit;
  fp::enter(frm <= fp::kRmm ? frm : fp::kRne);
  // Threaded dispatch (GCC's labels as values): each instruction's code ends with its own
  // indirect jump to the next one, which the host predicts far better than the single
  // jump of a switch.
  static const void* const kHandlers[] = {
#define INSN(id, ...) &&op_##id,
#include "isa/insns.def"
#undef INSN
      &&op_illegal};
  static_assert(sizeof kHandlers / sizeof kHandlers[0] == isa::kOpCount, "one handler per Op");
  const Decoded* dp = nullptr;
  uint32_t off = 0, npc = 0;
  [[maybe_unused]] uint64_t after_cost = 0;
  try {
#define EMX_NEXT()                                                                         \
  do {                                                                                     \
    if (__builtin_expect(cycles >= limit, 0)) goto done;                                   \
    off = pc - base;                                                                       \
    if (__builtin_expect(off >= span, 0)) throw Trap{FaultKind::fetch_outside_code, pc, {}}; \
    dp = &code[off >> 2];                                                                  \
    cycles += dp->cost;                                                                    \
    ++instret;                                                                             \
    /* Counted at fetch, as instret is: the last end of a run may never return. */         \
    if constexpr (kProfile) {                                                              \
      ++profile_.count[off >> 2];                                                          \
      profile_.cycles[off >> 2] += dp->cost;                                               \
      after_cost = cycles;                                                                 \
    }                                                                                      \
    npc = pc + 4;                                                                          \
    goto* kHandlers[static_cast<unsigned>(dp->op)];                                        \
  } while (0)
    EMX_NEXT();
    // Extra clocks (taken branch, send stall) go to the profile; after an end they are the
    // next thread's.
#define INSN(id, mn, match, mask, fmt, ops, cls, ...)                                   \
  op_##id : {                                                                           \
    [[maybe_unused]] const Decoded& d = *dp;                                            \
    __VA_ARGS__;                                                                        \
    if constexpr (kProfile)                                                             \
      if (isa::Op::id != isa::Op::end) profile_.cycles[off >> 2] += cycles - after_cost; \
  }                                                                                     \
  pc = npc;                                                                             \
  EMX_NEXT();
#include "isa/insns.def"
#undef INSN
#undef EMX_NEXT
  op_illegal:
    throw Trap{FaultKind::illegal_instruction, 0, {}};
  done:
    if (stop_requested_) result = Stop::stopped;
  } catch (const Trap& t) {
    fault_ = Fault{t.kind, pc, t.addr, t.detail};
    --instret;  // the faulting instruction did not retire
    if constexpr (kProfile)
      if (pc - base < span) --profile_.count[(pc - base) >> 2];
    result = Stop::fault;
  }
  this->pc = pc;
  this->cycles = cycles;
  this->instret = instret;
  fflags |= fp::leave();
  return result;
}

}  // namespace emx::iss
