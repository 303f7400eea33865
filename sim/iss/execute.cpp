// The hot loop: fetch a pre-decoded instruction, charge its clocks, run its semantics
// (generated from isa/insns.def, one case per row).
#include <cfenv>
#include <climits>
#include <cstring>
#include <type_traits>
#include <utility>

#include "fp_env.h"
#include "fp_ops.h"
#include "fused.h"
#include "hart.h"
#include "isa/csr_numbers.h"
#include "semantics.h"

namespace emx::iss {
using isa::PacketType;

namespace {
// A load or store is checked with one compare: its offset from the guard, rotated right by
// log2 of its size, exceeds the last valid index (Hart::last_index_) exactly when it is
// outside the memory or misaligned; the cold path then tells which.
template <class T>
constexpr unsigned kSizeShift = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : 2;
template <class T>
__attribute__((always_inline)) inline uint32_t rotated_offset(uint32_t a) {
  const uint32_t off = a - mem::kGuardBytes;
  if constexpr (kSizeShift<T> == 0) return off;
  else return (off >> kSizeShift<T>) | (off << (32 - kSizeShift<T>));
}
[[noreturn]] __attribute__((noinline, cold)) void access_fault(uint32_t a, uint32_t size,
                                                              uint32_t span, bool store) {
  if (a - mem::kGuardBytes > span - size)
    throw Trap{store ? FaultKind::store_outside_memory : FaultKind::load_outside_memory, a, {}};
  throw Trap{store ? FaultKind::misaligned_store : FaultKind::misaligned_load, a, {}};
}
}  // namespace

// Forced inline: out of line, the call costs more than the access (seen in profiles).
template <class T>
__attribute__((always_inline)) inline T Hart::load(uint32_t a) const {
  if (__builtin_expect(rotated_offset<T>(a) > last_index_[kSizeShift<T>], 0))
    access_fault(a, sizeof(T), mem_span_, false);
  T v;
  std::memcpy(&v, bytes_ + a, sizeof(T));
  return v;
}

template <class T>
__attribute__((always_inline)) inline void Hart::store(uint32_t a, T v) {
  if (__builtin_expect(rotated_offset<T>(a) > last_index_[kSizeShift<T>], 0))
    access_fault(a, sizeof(T), mem_span_, true);
  if (__builtin_expect(a - code_base_ < code_bytes_, 0))
    throw Trap{FaultKind::store_to_code, a, {}};
  // The runtime tags the words below each stack it makes (kTagGuard).
  if (__builtin_expect(tags_[a >> 2] & kTagGuard, 0))
    throw Trap{FaultKind::stack_overflow, a, {}};
  std::memcpy(bytes_ + a, &v, sizeof(T));
}

// Word address check for the tag instructions (rtag reads, wtag writes). (Not in the
// anonymous namespace: the run_env instances, members of Hart, hold one.)
struct WordCheck {
  uint32_t span;
  uint32_t operator()(uint32_t a, bool write = false) const {
    if (a - mem::kGuardBytes > span - 4)
      throw Trap{write ? FaultKind::tag_write_outside_memory : FaultKind::tag_read_outside_memory,
                 a, {}};
    if (a & 3) throw Trap{write ? FaultKind::misaligned_store : FaultKind::misaligned_load, a, {}};
    return a;
  }
};

void Hart::enable_profile() {
  blocks_ = nullptr;  // the profiling loop alone
  const std::size_t words = code_bytes_ / 4;
  profile_.count.assign(words, 0);
  profile_.cycles.assign(words, 0);
}

Hart::Stop Hart::run_first(uint64_t cycle_limit) {
  if (!profile_.count.empty()) return run_loop<true>(cycle_limit);
  if (translate && code_) {
    if (!code_->translation_tried) {
      code_->translation_tried = true;
      code_->translation = Translation::make(*this, code_->data(), code_bytes_ / 4);
    }
    if (code_->translation && code_->translation->fits(*this)) {
      blocks_ = code_->translation.get();
      return run_translated(cycle_limit);
    }
  }
  return run_loop<false>(cycle_limit);
}

// Translated blocks where there are, the interpreter (kMixed) between them. Both keep the
// host's FP flags collecting for the whole run (one fp::enter and fp::leave here).
Hart::Stop Hart::run_translated(uint64_t cycle_limit) {
  Translation& tr = *blocks_;
  stop_requested_ = false;
  fp::enter(frm <= fp::kRmm ? frm : fp::kRne);
  Stop result = Stop::limit;
  bool mid_segment = false;  // pc is inside a segment the block charged
  for (;;) {
    if (!mid_segment) {
      const uint32_t off = pc - code_base_;
      // Blocks round as the host does: frm must be a host mode (RMM and invalid values
      // take the interpreter's paths). A pc outside the code faults in the interpreter.
      if (frm >= fp::kRmm || off >= code_bytes_ || (off & 3)) {
        fflags |= fp::leave();
        return run_loop<false>(cycle_limit);
      }
      const uint32_t i = off >> 2;
      const void* block = tr.block(i);
      if (!block && tr.heat()[i] >= static_cast<int32_t>(translate_after))
        block = tr.translate(*this, i);
      if (block) {
        const Translation::Result r = tr.run(*this, block, cycle_limit);
        if (r.exit == Translation::Exit::env) {  // run_env set pc and env_leave_
          if (env_error_) {
            fflags |= fp::leave();
            std::rethrow_exception(std::exchange(env_error_, nullptr));
          }
          if (env_leave_ != Stop::limit) {
            result = env_leave_;
            break;
          }
          mid_segment = false;
          continue;
        }
        pc = code_base_ + 4 * r.index;
        if (r.exit == Translation::Exit::limit) break;
        mid_segment = r.exit == Translation::Exit::resume;
        continue;
      }
    }
    result = run_loop<false, true>(cycle_limit, nullptr, mid_segment);
    mid_segment = false;
    if (result != Stop::limit || cycles >= cycle_limit) break;
  }
  fflags |= fp::leave();
  return result;
}

// The names the semantics (semantics.h) use for the code, in run_loop and run_env: the
// locals code, code_end, base, span, stray_pc (a fetch outside the code) and ndp.
#define PC_OF(p) (base + static_cast<uint32_t>((p) - code) * 4u)
#define GOTO_PC(t)                                           \
  do {                                                       \
    const uint32_t goto_pc_ = (t), goto_off_ = goto_pc_ - base; \
    if (__builtin_expect(goto_off_ < span, 1)) {             \
      ndp = code + (goto_off_ >> 2);                         \
    } else {                                                 \
      stray_pc = goto_pc_;                                   \
      ndp = code_end;                                        \
    }                                                        \
  } while (0)
template <bool kProfile, bool kMixed>
Hart::Stop Hart::run_loop(uint64_t cycle_limit, const int32_t** offsets_out, bool mid_segment) {
  // Threaded dispatch (GCC's labels as values): each instruction's code ends with its own
  // indirect jump to the next one, which the host predicts far better than the single
  // jump of a switch. Every instruction has two copies: inside a segment (straight to the
  // next) and at a segment's end (the clock check, and the next segment charged). The
  // decoded entry holds its copy's offset from op_illegal (one table per instantiation:
  // the profiling loop looks it up by op), the entry past the code's end the fetch fault's.
  // The pairs of fused_pairs.def have the same two copies, after the single rows'.
#define EMX_OFFSET(label) \
  static_cast<int32_t>(static_cast<char*>(&&label) - static_cast<char*>(&&op_illegal))
#define EMX_AT(offset) static_cast<void*>(static_cast<char*>(&&op_illegal) + (offset))
  static const int32_t kOffsets[] = {
#define INSN(id, ...) EMX_OFFSET(op_##id),
#include "isa/insns.def"
#undef INSN
      0, EMX_OFFSET(op_fetch_fault),
#define INSN(id, ...) EMX_OFFSET(op_##id##_end),
#include "isa/insns.def"
#undef INSN
      0, EMX_OFFSET(op_fetch_fault),
#define FUSE(a, b) EMX_OFFSET(fuse_##a##_##b), EMX_OFFSET(fuse_##a##_##b##_end),
#include "fused_pairs.def"
#undef FUSE
  };
  static_assert(sizeof kOffsets / sizeof kOffsets[0] == 2 * (isa::kOpCount + 1 + kFusedCount),
                "two copies of each handler and pair, and the fetch fault");
  if (offsets_out) {
    *offsets_out = kOffsets;
    return Stop::limit;
  }
  uint64_t cycles = this->cycles;
  uint64_t& instret = this->instret;  // in memory: the register is worth more elsewhere
  uint64_t limit = cycle_limit;
  // The instruction is an entry of the decoded code; its address is computed when asked.
  const Decoded* const code = code_ ? code_->data() : nullptr;
  const std::size_t words = code_bytes_ / 4;
  const Decoded* const code_end = code + words;
  const uint32_t base = code_base_, span = code_bytes_;
  uint32_t stray_pc = base + span;  // the address of a fetch outside the code
  stop_requested_ = false;
  if (!code) {  // no code at all: every fetch faults
    fault_ = Fault{FaultKind::fetch_outside_code, this->pc, this->pc, {}};
    return Stop::fault;
  }
  const Decoded* dp = nullptr;
  {
    const Decoded* ndp = nullptr;
    GOTO_PC(this->pc);
    dp = ndp;
  }
  const WordCheck checked_word{mem_span_};
  Stop result = Stop::limit;
  if constexpr (!kMixed) fp::enter(frm <= fp::kRmm ? frm : fp::kRne);
  // kMixed: the blocks, and the interpreter's visits of each segment entry.
  [[maybe_unused]] const void* const* blocks = nullptr;
  [[maybe_unused]] int32_t* heat = nullptr;
  [[maybe_unused]] const int32_t hot = static_cast<int32_t>(translate_after);
  if constexpr (kMixed) {
    blocks = code_->translation->table();
    heat = code_->translation->heat().data();
  }
  [[maybe_unused]] uint64_t after_cost = 0;
  auto execute =
#include "execute_row.inc"
      ;
  try {
    // The profiling loop charges and counts every instruction at its fetch.
#define EMX_PROFILED_NEXT()                                                             \
  do {                                                                                  \
    if (__builtin_expect(cycles >= limit, 0)) goto done;                                \
    const uint32_t cost_ = dp->cost();                                                  \
    cycles += cost_;                                                                    \
    ++instret; /* the catch takes it back if this instruction faults */                 \
    if (dp == code_end) goto op_fetch_fault;                                            \
    /* Counted at fetch, as instret is: the last end of a run may never return. */      \
    ++profile_.count[dp - code];                                                        \
    profile_.cycles[dp - code] += cost_;                                                \
    after_cost = cycles;                                                                \
    goto* EMX_AT(kOffsets[static_cast<unsigned>(dp->op)]);                              \
  } while (0)
    // Inside a segment: charged already.
    // kMixed: the handlers of this instantiation by op (dp->handler is the plain loop's).
#define EMX_CONTINUE()                                                                  \
  do {                                                                                  \
    if constexpr (kProfile) {                                                           \
      EMX_PROFILED_NEXT();                                                              \
    } else if constexpr (kMixed) {                                                      \
      if (dp == code_end) goto op_fetch_fault;                                          \
      goto* EMX_AT(kOffsets[(dp->seg_count > 1 ? 0u : isa::kOpCount + 1) +             \
                            static_cast<unsigned>(dp->op)]);                            \
    } else {                                                                            \
      goto* EMX_AT(dp->handler);                                                        \
    }                                                                                   \
  } while (0)
    // At a segment's start (any entry into code, the instruction after a segment's end):
    // the clock check, and the segment charged (the catch puts it right on a fault).
#define EMX_ENTER_SEGMENT()                                 \
  do {                                                      \
    if constexpr (kMixed) {                                 \
      if (dp != code_end && (blocks[dp - code] || ++heat[dp - code] >= hot)) \
        goto done; /* to the block, or to be translated */  \
    }                                                       \
    if constexpr (!kProfile) {                              \
      if (__builtin_expect(cycles >= limit, 0)) goto done;  \
      cycles += dp->seg_cost;                               \
      instret += dp->seg_count;                             \
    }                                                       \
    EMX_CONTINUE();                                         \
  } while (0)
    if (mid_segment) EMX_CONTINUE();
    EMX_ENTER_SEGMENT();
    // Extra clocks (taken branch, send stall) go to the profile; after an end they are the
    // next thread's.
#define EMX_SEMANTICS(id)                                                                \
  {                                                                                      \
    const Decoded* const next_ = execute(std::integral_constant<isa::Op, isa::Op::id>{}); \
    if constexpr (kProfile)                                                              \
      if (isa::Op::id != isa::Op::end) profile_.cycles[dp - code] += cycles - after_cost; \
    dp = next_;                                                                          \
  }
#define INSN(id, ...)                                  \
  op_##id : EMX_SEMANTICS(id) EMX_CONTINUE();          \
  op_##id##_end : EMX_SEMANTICS(id) EMX_ENTER_SEGMENT();
#include "isa/insns.def"
#undef INSN
    // A pair (fused_pairs.def): the first's semantics, then the second's on its own entry.
#define FUSE(a, b)                                                        \
  fuse_##a##_##b : EMX_SEMANTICS(a) EMX_SEMANTICS(b) EMX_CONTINUE();      \
  fuse_##a##_##b##_end : EMX_SEMANTICS(a) EMX_SEMANTICS(b) EMX_ENTER_SEGMENT();
#include "fused_pairs.def"
#undef FUSE
#undef EMX_SEMANTICS
#undef EMX_CONTINUE
#undef EMX_ENTER_SEGMENT
#undef EMX_PROFILED_NEXT
  op_illegal:
    throw Trap{FaultKind::illegal_instruction, 0, {}};
  op_fetch_fault:
    throw Trap{FaultKind::fetch_outside_code, stray_pc, {}};
  done:
    if (stop_requested_) result = Stop::stopped;
  } catch (const Trap& t) {
    fault_ = Fault{t.kind, dp == code_end ? stray_pc : PC_OF(dp), t.addr, t.detail};
    if (!kProfile && dp->seg_count > 1) {  // the rest of the segment did not run
      cycles -= dp[1].seg_cost;
      instret -= dp->seg_count - 1u;
    }
    --instret;  // the faulting instruction did not retire
    if constexpr (kProfile)
      if (dp != code_end) --profile_.count[dp - code];
    result = Stop::fault;
  }
  this->pc = dp == code_end ? stray_pc : PC_OF(dp);
  this->cycles = cycles;
  this->instret = instret;
  if constexpr (!kMixed) fflags |= fp::leave();
  return result;
#undef EMX_OFFSET
#undef EMX_AT
}

// One environment row's entry for blocks: the row's own function (no switch over the
// table), instantiated from isa/insns.def for the environment rows (sends, end, tag
// access) and the CSR rows. A send's address and data come from the block (which computed
// the row's operands, translate.cpp);
// the rest is the row's SEND as the interpreter runs it.
template <isa::Op kOp, isa::TimingClass kClass>
uint32_t Hart::run_env(uint32_t index, uint32_t send_addr, uint32_t send_data) noexcept {
  if constexpr (kClass == isa::TimingClass::send) {
    // A send the environment takes directly (set_direct_send) leaves everything the ISS
    // holds as it is (the clock, charged already, the FP state): nothing is published.
    if (const uint32_t r =
            direct_send(isa::send_type(kOp), send_addr, send_data, code_base_ + 4 * index))
      return r == 1 ? env_next(index + 1, code_base_ + code_bytes_) : 0;
  }
  return run_env_full<kOp, kClass>(index, send_addr, send_data);
}

uint32_t Hart::env_next(uint32_t next, uint32_t stray_pc) noexcept {
  const uint32_t words = code_bytes_ / 4;
  if (__builtin_expect(!stop_requested_ && next < words, 1)) {
    this->pc = code_base_ + 4 * next;
    return 1 + next;
  }
  // As run_loop at the next segment's entry: a stop request (retry included) ends the
  // run there; outside the code, the interpreter faults.
  this->pc = next >= words ? stray_pc : code_base_ + 4 * next;
  env_leave_ = stop_requested_ ? Stop::stopped : Stop::limit;
  return 0;
}

template <isa::Op kOp, isa::TimingClass kClass>
uint32_t Hart::run_env_full(uint32_t index, uint32_t send_addr, uint32_t send_data) noexcept {
  constexpr bool kProfile = false;  // for RETRY_POINT
  const Decoded* const code = code_->data();
  const Decoded* const code_end = code + code_bytes_ / 4;
  const uint32_t base = code_base_, span = code_bytes_;
  uint32_t stray_pc = base + span;
  const Decoded* const dp = code + index;
  uint64_t cycles = this->cycles;
  uint64_t& instret = this->instret;
  uint64_t limit = ~uint64_t{0};  // SYNC_IN sets it to 0 on a stop request
  const WordCheck checked_word{mem_span_};
  auto execute =
#include "execute_row.inc"
      ;
  const Decoded* ndp = nullptr;
  try {
    if constexpr (kClass == isa::TimingClass::send) {
      ndp = [&]() __attribute__((always_inline)) {
        [[maybe_unused]] const Decoded& d = *dp;
        SEND(isa::send_type(kOp), send_addr, send_data);
        return dp + 1;
      }();
    } else {
      (void)send_addr, (void)send_data;
      ndp = execute(std::integral_constant<isa::Op, kOp>{});
    }
  } catch (const Trap& t) {  // as run_loop's catch (the instruction ends its segment)
    fault_ = Fault{t.kind, PC_OF(dp), t.addr, t.detail};
    --instret;
    this->pc = PC_OF(dp);
    this->cycles = cycles;
    env_leave_ = Stop::fault;
    return 0;
  } catch (...) {  // not through the block's frames: Hart::run_translated throws it again
    env_error_ = std::current_exception();
    this->pc = PC_OF(dp);
    env_leave_ = Stop::fault;
    return 0;
  }
  (void)limit;
  this->cycles = cycles;
  // (From the hart's fields again, not the locals: fewer values kept across the call.)
  return env_next(index + static_cast<uint32_t>(ndp - dp), stray_pc);
}

uint32_t Hart::run_end(uint32_t index) noexcept {
  const uint32_t at = code_base_ + 4 * index;
  const uint64_t before = cycles;
  this->pc = at;  // SYNC_OUT
  fflags |= fp::take_flags();
  try {
    if (env_) env_->end_thread(*this);
    else request_stop();
  } catch (const Trap& t) {  // as run_env_full's catches
    fault_ = Fault{t.kind, at, t.addr, t.detail};
    --instret;
    this->pc = at;
    this->cycles = before;
    env_leave_ = Stop::fault;
    return 0;
  } catch (...) {
    env_error_ = std::current_exception();
    this->pc = at;
    env_leave_ = Stop::fault;
    return 0;
  }
  fp::resume(frm);  // SYNC_IN
  // GOTO_PC(pc), then env_next.
  const uint32_t off = pc - code_base_;
  if (__builtin_expect(off < code_bytes_, 1)) return env_next(off >> 2, code_base_ + code_bytes_);
  return env_next(code_bytes_ / 4, pc);
}

namespace {
template <isa::TimingClass kClass>
constexpr bool kEnvClass = isa::environment_class(kClass) || kClass == isa::TimingClass::csr;
}  // namespace

template <isa::Op kOp, isa::TimingClass kClass, bool kDirectTried>
constexpr Hart::EnvEntry Hart::env_entry_of() {
  if constexpr (kEnvClass<kClass>)
    return [](Hart* h, uint32_t index, uint32_t send_addr, uint32_t send_data) noexcept {
      if constexpr (kClass == isa::TimingClass::send && !kDirectTried)
        return h->run_env<kOp, kClass>(index, send_addr, send_data);
      else if constexpr (kOp == isa::Op::end)
        return (void)send_addr, (void)send_data, h->run_end(index);
      else
        return h->run_env_full<kOp, kClass>(index, send_addr, send_data);
    };
  else
    return nullptr;
}

Hart::EnvEntry Hart::env_entry(isa::Op op, bool direct_tried) {
  static constexpr EnvEntry kEntries[2][isa::kOpCount] = {
      {
#define INSN(id, mn, match, mask, fmt, ops, cls, ...) \
  env_entry_of<isa::Op::id, isa::TimingClass::cls, false>(),
#include "isa/insns.def"
#undef INSN
          nullptr,
      },
      {
#define INSN(id, mn, match, mask, fmt, ops, cls, ...) \
  env_entry_of<isa::Op::id, isa::TimingClass::cls, true>(),
#include "isa/insns.def"
#undef INSN
          nullptr,
      },
  };
  return kEntries[direct_tried][static_cast<unsigned>(op)];
}
#undef PC_OF
#undef GOTO_PC

}  // namespace emx::iss
