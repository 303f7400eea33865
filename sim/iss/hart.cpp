#include "hart.h"

#include <cstring>

#include "fused.h"
#include "isa/csr_numbers.h"

namespace emx::iss {

const char* fault_kind_text(FaultKind k) {
  switch (k) {
#define X(id, text) \
  case FaultKind::id: return text;
    EMX_FAULT_KINDS(X)
#undef X
  }
  return "?";
}

std::array<uint32_t, isa::kTimingClassCount> TimingConfig::class_costs() const {
  using isa::TimingClass;
  std::array<uint32_t, isa::kTimingClassCount> c{};
  auto set = [&](TimingClass k, uint32_t v) { c[static_cast<unsigned>(k)] = v; };
  set(TimingClass::alu, alu);
  set(TimingClass::load, load + memory_penalty);
  set(TimingClass::store, store + memory_penalty);
  set(TimingClass::mul, mul);
  set(TimingClass::div, div);
  set(TimingClass::branch, branch);
  set(TimingClass::jump, jump);
  set(TimingClass::csr, csr);
  set(TimingClass::fadd, fadd);
  set(TimingClass::fmul, fmul);
  set(TimingClass::fma, fma);
  set(TimingClass::fdiv, fdiv);
  set(TimingClass::fsqrt, fsqrt);
  set(TimingClass::fmisc, fmisc);
  set(TimingClass::send, send);
  set(TimingClass::thread, thread);
  // A tag access is a memory reference: it costs a load's or a store's clocks.
  set(TimingClass::tag_read, load + memory_penalty);
  set(TimingClass::tag_write, store + memory_penalty);
  set(TimingClass::system, system);
  return c;
}

Hart::Hart(mem::LocalMemory& memory, const TimingConfig& timing)
    : mem_(memory),
      bytes_(memory.bytes()),
      tags_(memory.tag_bytes()),
      mem_span_(memory.size() - mem::kGuardBytes),
      mem_bytes_(memory.size()),
      last_index_{mem_span_ - 1, (mem_span_ - 2) >> 1, (mem_span_ - 4) >> 2},
      costs_(timing.class_costs()),
      taken_extra_(timing.branch_taken >= timing.branch ? timing.branch_taken - timing.branch : 0) {
}

void Hart::set_machine_info(uint32_t pe_id, uint32_t pe_count, uint32_t clock_khz) {
  pe_id_ = pe_id;
  pe_count_ = pe_count;
  clock_khz_ = clock_khz;
}

Decoded Hart::decode(uint32_t word) const {
  Decoded d;
  const isa::InsnInfo* i = isa::lookup(word);
  if (!i) return d;  // illegal: faults when executed, not when loaded
  // EM-4 has no register-relative packet addressing: its displacement send is illegal.
  if (i->tclass == isa::TimingClass::send && i->format == isa::Format::S &&
      !(features & isa::csr::kFeatureSendDisplacement))
    return d;
  // Nor auto-increment memory addressing.
  if (i->op == isa::Op::lw_ai && !(features & isa::csr::kFeatureAutoIncrement)) return d;
  d.op = i->op;
  d.rd = static_cast<uint8_t>(isa::f_rd(word));
  if (i->writes_xrd && d.rd == 0) d.rd = 32;
  d.rs1 = static_cast<uint8_t>(isa::f_rs1(word));
  d.rs2 = static_cast<uint8_t>(isa::f_rs2(word));
  d.rs3_rm = static_cast<uint8_t>(isa::f_rs3(word) | isa::f_rm(word) << 5);
  d.imm = isa::format_imm(i->format, word);
  d.seg_cost = static_cast<uint16_t>(costs_[static_cast<unsigned>(i->tclass)]);
  return d;
}

namespace {
// The instructions after which the clock must be exact: control transfers (a segment is
// straight-line code), environment calls (sends, thread end, tag access, CSRs) and
// system instructions. The table's timing classes name them.
bool ends_segment(isa::Op op) {
  if (op == isa::Op::illegal) return true;
  const isa::TimingClass c = isa::insn_info(op).tclass;
  if (isa::environment_class(c)) return true;
  switch (c) {
    case isa::TimingClass::branch:
    case isa::TimingClass::jump:
    case isa::TimingClass::csr:
    case isa::TimingClass::system: return true;
    default: return false;
  }
}
}  // namespace

void Hart::set_code(uint32_t base, uint32_t bytes, std::shared_ptr<const DecodedCode> shared) {
  code_base_ = base;
  code_bytes_ = bytes & ~3u;
  blocks_ = nullptr;
  const uint32_t words = code_bytes_ / 4;
  if (shared && shared->size() == words + 1) {
    code_ = std::move(shared);
    return;
  }
  // [2][kOpCount + 1]: inside a segment, at its end; then [kFusedCount][2], the pairs'
  const int32_t* offsets = nullptr;
  run_loop<false>(0, &offsets);
  auto code = std::make_shared<DecodedCode>(words + 1);
  for (uint32_t k = 0; k < words; ++k) {
    Decoded& d = (*code)[k] = decode(mem_.read32(base + 4 * k));
    const isa::Format format =
        d.op == isa::Op::illegal ? isa::Format::NONE : isa::insn_info(d.op).format;
    if (format == isa::Format::B || format == isa::Format::J) {
      const uint32_t target = base + 4 * k + static_cast<uint32_t>(d.imm);
      d.rs3_rm = !(target & 3) && target - base < code_bytes_ ? Decoded::kNearTarget : 0;
    }
  }
  Decoded& past_end = (*code)[words];
  past_end.seg_cost = 0;  // a fetch fault takes no clock
  past_end.handler = offsets[isa::kOpCount];
  for (uint32_t k = words; k-- > 0;) {  // segments end where their last instruction is
    Decoded& d = (*code)[k];
    const Decoded& next = (*code)[k + 1];
    const bool joins = k + 1 < words && !ends_segment(d.op) && next.seg_count < 255 &&
                       d.seg_cost + next.seg_cost <= 0xffffu;
    if (joins) {
      d.seg_cost = static_cast<uint16_t>(d.seg_cost + next.seg_cost);
      d.seg_count = static_cast<uint8_t>(next.seg_count + 1);
    }
    d.handler = offsets[(joins ? 0 : isa::kOpCount + 1) + static_cast<unsigned>(d.op)];
  }
  // Superinstructions: a pair inside a segment runs as one handler, from its first entry.
  const int32_t* pair_offsets = offsets + 2 * (isa::kOpCount + 1);
  for (uint32_t k = 0; superinstructions && k + 1 < words; ++k) {
    Decoded& d = (*code)[k];
    const Decoded& next = (*code)[k + 1];
    // (A pair would cross a segment's end.)
    if (d.seg_count < 2 || !kBeginsPair[static_cast<std::size_t>(d.op)]) continue;
    for (std::size_t p = 0; p < kFusedCount; ++p)
      if (kFusedPairs[p].first == d.op && kFusedPairs[p].second == next.op) {
        d.handler = pair_offsets[2 * p + (next.seg_count > 1 ? 0 : 1)];
        break;
      }
  }
  code_ = std::move(code);
}

uint32_t Hart::insn_word(uint32_t at) const {
  if (at - code_base_ >= code_bytes_ || (at & 3)) return 0;
  return mem_.read32(at);
}

}  // namespace emx::iss
