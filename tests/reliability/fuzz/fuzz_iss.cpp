// The decoder and the ISS on random code (one hart, a stand-in for the PE): every run ends
// at its cycle budget, a stop or a fault with the pc inside the code or at a jump's
// target; and the same case gives the same state when run in one go, in slices of a few
// clocks (as quanta cut it), with every instruction dispatched alone (no superinstructions:
// the code has many of their pairs), and (when it stops or faults) with the instruction
// profile on; and with the blocks of sim/iss/translate.cpp (where built): half the cases are
// code of the subset they translate, with loops, data to load, stack guard words and chains
// of segments that one block runs through.
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "fuzz.h"
#include "isa/csr_numbers.h"
#include "isa/isa.h"
#include "sim/iss/fused.h"
#include "sim/iss/hart.h"

namespace emx::fuzz {
namespace {

constexpr uint32_t kMemory = 64 * 1024, kBudget = 4000;
// Where the code starts: where the memory does (as programs are linked; blocks check a
// store with one compare then), or above some memory a store may reach.
uint32_t code_base(uint64_t seed) { return seed & 2 ? 0x1000 : 0x1400; }

// x0, sp and the registers run() starts with pointing at data, more often than others.
unsigned some_register(Rng& rng) {
  static const unsigned kBiased[] = {0, 2, 5, 6, 7, 8, 9, 10, 11};
  return pick(rng, 10) < 7 ? kBiased[pick(rng, std::size(kBiased))]
                           : static_cast<unsigned>(pick(rng, 32));
}

// The PE around the hart: sends may stall, fault (a PE that does not exist), fail (an
// error of the machine's, which run() throws), stop the run or be given up
// (Hart::request_retry), `end` starts a thread somewhere in the code a few
// times, then stops; a tag read's settle may give the read up, a clock read may add clocks.
struct Env : iss::HartEnv {
  Rng rng;
  uint32_t words = 1;
  unsigned pes = 1, ends = 0;
  iss::Hart* hart = nullptr;
  uint32_t base = 0x1000;
  uint64_t sent = 1469598103934665603ull;  // a hash of the sends: type, address, data, pc, clock
  void record(isa::PacketType type, uint32_t addr, uint32_t data, uint32_t pc, uint64_t cycle) {
    for (uint64_t v : {uint64_t{static_cast<uint8_t>(type)}, uint64_t{addr}, uint64_t{data},
                       uint64_t{pc}, cycle})
      sent = (sent ^ v) * 1099511628211ull;
  }
  void send(iss::Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) override {
    if (type != isa::PacketType::host && (addr >> 22) >= pes)
      throw iss::Trap{iss::FaultKind::machine, addr, "no such PE"};
    switch (pick(rng, 16)) {
      case 0: return h.request_retry();  // given up: sent again at the next run()
      case 1: h.request_stop(); break;
      case 2: throw std::runtime_error("send failed");
      default: break;
    }
    record(type, addr, data, h.pc, h.cycles);
    h.cycles += pick(rng, 3);
  }
  // Hart::DirectSend (some cases): takes a send that send() would take with nothing else
  // to do (no retry, stop or stall clocks), and fails where send() fails (as the
  // machine's does: Hart::env_failed inside the catch), drawing as send() does from a copy
  // of the generator, so that a send it leaves to send() meets the same draws there.
  static uint32_t direct_send(void* ctx, isa::PacketType type, uint32_t addr, uint32_t data,
                              uint32_t pc, uint64_t cycle) noexcept {
    Env& e = *static_cast<Env*>(ctx);
    if (type != isa::PacketType::host && (addr >> 22) >= e.pes) return false;  // send() faults
    Rng r = e.rng;
    const auto k = pick(r, 16);
    if (k == 2) {
      e.rng = r;
      try {
        throw std::runtime_error("send failed");
      } catch (...) {
        e.hart->env_failed(pc);
        return 2;
      }
    }
    if (k < 2 || pick(r, 3) != 0) return false;
    e.rng = r;
    e.record(type, addr, data, pc, cycle);
    return true;
  }
  void settle(iss::Hart& h) override {
    if (!pick(rng, 4)) h.request_retry();
  }
  void clock_read(iss::Hart& h) override { h.cycles += pick(rng, 2); }
  // Now and then the next thread starts outside the code or off a word (the interpreter
  // fetches from there as a jump does), or the env throws (a fault at the `end`).
  void end_thread(iss::Hart& h) override {
    if (++ends > 6) return h.request_stop();
    h.cycles += 2;
    switch (pick(rng, 32)) {
      case 0: throw iss::Trap{iss::FaultKind::machine, h.pc, "no next thread"};
      case 1: h.pc = base + 4 * words + 4 * static_cast<uint32_t>(pick(rng, 3)); break;
      case 2: h.pc = base - 4; break;
      case 3: h.pc = base + 4 * static_cast<uint32_t>(pick(rng, words)) + 2; break;
      default: h.pc = base + 4 * static_cast<uint32_t>(pick(rng, words)); break;
    }
    h.x[2] = kMemory - 256;
  }
};

struct State {
  std::array<uint32_t, 33> x;
  std::array<uint32_t, 32> f;
  uint32_t pc, fflags, frm;
  uint64_t cycles, instret;
  int stop;
  bool failed;  // run() threw the env's error
  iss::FaultKind kind;
  uint32_t fault_pc, fault_addr;
  uint64_t memory_hash, sent;
  bool operator==(const State& o) const {
    return x == o.x && f == o.f && pc == o.pc && fflags == o.fflags && frm == o.frm &&
           cycles == o.cycles && instret == o.instret && stop == o.stop && failed == o.failed &&
           kind == o.kind &&
           fault_pc == o.fault_pc && fault_addr == o.fault_addr && memory_hash == o.memory_hash &&
           sent == o.sent;
  }
};

// Runs `code` from a fresh machine state; slice: the clocks per run() call (0: one call).
// translate_after: block translation on from that many visits of a segment entry
// (iss::Hart::translate_after), or off (kInterpret: the reference).
constexpr int kInterpret = -1;
State run(const std::vector<uint32_t>& code, uint64_t seed, unsigned pes, uint64_t slice,
          bool profile, bool superinstructions = true, int translate_after = kInterpret) {
  // Odd cases take other clocks for a taken branch and a memory access (the extra clocks
  // of a taken branch are charged by the branch itself, not by its segment).
  const bool slow_memory = seed & 1;
  mem::LocalMemory memory(kMemory);
  const uint32_t kCodeBase = code_base(seed);
  for (std::size_t k = 0; k < code.size(); ++k)
    memory.write32(kCodeBase + 4 * static_cast<uint32_t>(k), code[k]);
  iss::TimingConfig timing;
  if (slow_memory) timing.branch_taken = 3, timing.memory_penalty = 1;
  iss::Hart h(memory, timing);
  Env env;
  env.rng.seed(seed);
  env.words = static_cast<uint32_t>(code.size());
  env.pes = pes;
  env.base = kCodeBase;
  h.set_env(&env);
  env.hart = &h;
  if (seed & 4) h.set_direct_send(&Env::direct_send, &env);  // (the interpreter ignores it)
  h.set_machine_info(static_cast<uint32_t>((seed >> 1) % pes), pes, 16000);  // (CSR reads differ)
  h.superinstructions = superinstructions;
  h.translate = translate_after != kInterpret;
  if (h.translate) h.translate_after = static_cast<uint32_t>(translate_after);
  h.set_code(kCodeBase, static_cast<uint32_t>(code.size() * 4));
  if (profile) h.enable_profile();
  const uint32_t data = (kCodeBase + static_cast<uint32_t>(code.size()) * 4 + 0xfff) & ~0xfffu;
  // Data the loads find (the same for every run of a case), then a few stack guard
  // words (a store there faults: a check blocks make too).
  Rng fill(seed);
  for (uint32_t a = data; a < data + 1024; a += 4) memory.write32(a, static_cast<uint32_t>(fill()));
  for (uint32_t a = data + 48; a < data + 64; a += 4) memory.set_tag(a, iss::kTagGuard);
  h.pc = kCodeBase;
  h.x[2] = kMemory - 256;
  for (unsigned r = 5; r <= 11; ++r) h.x[r] = data + 64 * (r - 5);
  iss::Hart::Stop stop = iss::Hart::Stop::limit;
  bool failed = false;
  try {
    for (uint64_t limit = slice ? slice : kBudget; stop == iss::Hart::Stop::limit;
         limit += slice ? slice : kBudget) {
      stop = h.run(std::min<uint64_t>(limit, kBudget));
      if (h.cycles >= kBudget) break;
    }
  } catch (const std::runtime_error&) {
    failed = true;
  }
  State s{h.x, h.f, h.pc, h.fflags, h.frm, h.cycles, h.instret, static_cast<int>(stop), failed,
          h.fault().kind, h.fault().pc, h.fault().addr, 1469598103934665603ull, env.sent};
  s.x[32] = 0;  // the sink of writes to x0 (not architectural; blocks skip the writes)
  if (stop != iss::Hart::Stop::fault) s.kind = iss::FaultKind::machine, s.fault_pc = s.fault_addr = 0;
  for (uint32_t a = data; a < kMemory; ++a)
    s.memory_hash = (s.memory_hash ^ memory.bytes()[a]) * 1099511628211ull;
  for (uint32_t a = data; a < kMemory; a += 4)  // and the tags (wtag)
    s.memory_hash = (s.memory_hash ^ memory.tag(a)) * 1099511628211ull;
  return s;
}

std::string words_text(const std::vector<uint32_t>& code) {
  std::string s;
  for (uint32_t w : code) s += isa::disassemble(w, 0) + "\n";
  return s;
}

}  // namespace

namespace {
// A random instance of row i.
uint32_t random_word(Rng& rng, const isa::InsnInfo& i) {
  uint32_t w = (static_cast<uint32_t>(rng()) & ~i.mask) | i.match;
  const uint32_t rs1 = 0x1fu << 15;
  if (!(i.mask & rs1)) w = (w & ~rs1) | some_register(rng) << 15;
  // Loads and stores at word-aligned offsets more often (else most runs end at once in
  // a misaligned access).
  const uint32_t opcode = w & 0x7f;
  if ((opcode == 0x03 || opcode == 0x07) && pick(rng, 4)) w &= ~(0x3u << 20);
  if (i.op == isa::Op::lw_ai && pick(rng, 4)) w &= ~(0x3u << 20);  // a word increment
  if ((opcode == 0x23 || opcode == 0x27) && pick(rng, 4)) w &= ~(0x3u << 7);
  static const uint32_t kCsrs[] = {0x001, 0x002, 0x003, 0xc00, 0xc01, 0xc02, 0xc80, 0xc81,
                                   0xc82, 0xcc0, 0xcc1, 0xcc2, 0xcc3, 0xcc4, 0xcc5, 0x800,
                                   0x801};
  if (i.format == isa::Format::CSR && pick(rng, 8))  // mostly CSRs that exist
    w = (w & 0xfffffu) | kCsrs[pick(rng, std::size(kCsrs))] << 20;
  if (i.has_rm && pick(rng, 4))  // a valid rounding mode more often than not
    w = (w & ~(0x7u << 12)) | static_cast<uint32_t>(pick(rng, 5)) << 12;
  // Short jumps and branches stay in the code more often.
  const uint32_t off = static_cast<uint32_t>(4 * (static_cast<int>(pick(rng, 33)) - 16));
  if (i.format == isa::Format::B && pick(rng, 2))
    w = (w & 0x01fff07fu) | ((off >> 11) & 1) << 7 | ((off >> 1) & 0xf) << 8 |
        ((off >> 5) & 0x3f) << 25 | ((off >> 12) & 1) << 31;
  if (i.format == isa::Format::J && pick(rng, 2))
    w = (w & 0xfffu) | ((off >> 12) & 0xff) << 12 | ((off >> 11) & 1) << 20 |
        ((off >> 1) & 0x3ff) << 21 | ((off >> 20) & 1) << 31;
  return w;
}
}  // namespace

std::vector<uint32_t> random_code(Rng& rng, std::size_t words) {
  const isa::InsnInfo* table = isa::insn_table();
  const std::size_t n = isa::insn_count();
  std::vector<uint32_t> code(words);
  for (uint32_t& w : code) {
    if (pick(rng, 100) == 0) {
      w = static_cast<uint32_t>(rng());
      continue;
    }
    w = random_word(rng, table[pick(rng, n)]);
  }
  return code;
}

namespace {
// Code of the subset that blocks translate (sim/iss/translate.cpp), with its short
// branches: loops whose blocks run many times, stop at clock limits, exit at faults and
// call out to the environment.
std::vector<uint32_t> translatable_code(Rng& rng, std::size_t words) {
  using isa::Op;
  static const Op kOps[] = {
      Op::lui, Op::auipc, Op::jal, Op::jalr, Op::beq, Op::bne, Op::blt, Op::bge, Op::bltu,
      Op::bgeu, Op::lb, Op::lh, Op::lw, Op::lbu, Op::lhu, Op::sb, Op::sh, Op::sw, Op::addi,
      Op::slti, Op::sltiu, Op::xori, Op::ori, Op::andi, Op::slli, Op::srli, Op::srai, Op::add,
      Op::sub, Op::sll, Op::slt, Op::sltu, Op::xor_, Op::srl, Op::sra, Op::or_, Op::and_,
      Op::mul, Op::mulh, Op::mulhsu, Op::mulhu, Op::flw, Op::fsw, Op::fmadd_s, Op::fadd_s,
      Op::fsub_s, Op::fmul_s, Op::fsgnj_s, Op::fsgnjn_s, Op::fsgnjx_s, Op::fmv_x_w,
      Op::fmv_w_x, Op::div, Op::divu, Op::rem, Op::remu, Op::addi, Op::addi, Op::lw, Op::sw,
      Op::add, Op::bne, Op::fdiv_s, Op::lw_ai, Op::lw_ai,
      // Environment instructions (blocks call Hart::run_env for them).
      Op::send_syswr, Op::sendd_syswr, Op::sendd_invoke1, Op::send_host, Op::end, Op::rtag,
      Op::wtag, Op::csrrs, Op::csrrw};
  std::vector<uint32_t> code(words);
  for (uint32_t& w : code) {
    const Op op = kOps[pick(rng, std::size(kOps))];
    uint32_t word = random_word(rng, isa::insn_info(op));
    if (pick(rng, 2)) word |= 7u << 12;  // FP: dyn rounding (the one blocks run) often
    if (op == Op::csrrs && pick(rng, 2)) {  // often a read (rs1 = x0) of a machine register:
      namespace c = isa::csr;                 // blocks read some themselves
      static const uint32_t kCsrs[] = {c::pe_id,    c::pe_count,    c::mem_bytes,
                                       c::clock_khz, c::features,   c::frame_words,
                                       c::handlers,  c::thread_stack, c::timer_cont};
      word = (word & 0xfffu) | 2u << 12 | kCsrs[pick(rng, std::size(kCsrs))] << 20;
    }
    w = isa::lookup(word) ? word : random_word(rng, isa::insn_info(Op::addi));
  }
  return code;
}

// Random instances of the superinstructions' pairs (sim/iss/fused_pairs.def) at about a
// quarter of the places, so that the pairs' handlers run often.
void plant_pairs(Rng& rng, std::vector<uint32_t>& code) {
  for (std::size_t k = 0; k + 1 < code.size(); ++k) {
    if (pick(rng, 4)) continue;
    const iss::FusedPair& p = iss::kFusedPairs[pick(rng, iss::kFusedCount)];
    code[k] = random_word(rng, isa::insn_info(p.first));
    code[k + 1] = random_word(rng, isa::insn_info(p.second));
    ++k;
  }
}
// Runs of word loads and stores off one base register (sp or a data pointer) at nearby
// offsets, as a function's frame or a saved context: the accesses a block checks as one
// group (translate.cpp, BlockEmitter::plan), some reaching a stack guard word, the
// memory's end or a misaligned word.
void plant_frames(Rng& rng, std::vector<uint32_t>& code) {
  using isa::Op;
  static const Op kAccess[] = {Op::lw, Op::sw, Op::flw, Op::fsw, Op::sw, Op::lw};
  for (std::size_t k = 0; k < code.size(); ++k) {
    if (pick(rng, 8)) continue;
    const uint32_t base = pick(rng, 2) ? 2u : 5u + static_cast<uint32_t>(pick(rng, 7));
    const std::size_t n = 2 + pick(rng, 5), start = k;
    // Some as a loop of one block (a branch back to its own entry, which the jump before
    // it makes a segment's entry; the base moves each round, so a later round may fault).
    const bool loop = k >= 1 && k + n + 2 <= code.size() && !pick(rng, 3);
    if (loop) code[k - 1] = 0x6fu | 2u << 21;  // jal x0, +4
    for (std::size_t m = n; m-- > 0 && k < code.size(); ++k) {
      const Op op = kAccess[pick(rng, std::size(kAccess))];
      uint32_t imm = static_cast<uint32_t>(4 * (static_cast<int>(pick(rng, 80)) - 8));
      if (!pick(rng, 16)) imm += 2;  // misaligned
      uint32_t w = random_word(rng, isa::insn_info(op)) & ~(0x1fu << 15);
      if (op == Op::lw || op == Op::flw) w = (w & 0x000fffffu) | (imm & 0xfffu) << 20;
      else w = (w & 0x01fff07fu) | ((imm >> 5) & 0x7fu) << 25 | (imm & 0x1fu) << 7;
      code[k] = w | base << 15;
    }
    if (loop) {
      const uint32_t step = static_cast<uint32_t>(4 * (1 + pick(rng, 8)));
      code[k++] = 0x13u | base << 7 | base << 15 | step << 20;  // addi base, base, step
      const uint32_t off = static_cast<uint32_t>(-4 * static_cast<int32_t>(k - start));
      code[k] = 0x63u | 1u << 12 | static_cast<uint32_t>(some_register(rng)) << 15 |
                ((off >> 11) & 1) << 7 | ((off >> 1) & 0xf) << 8 | ((off >> 5) & 0x3f) << 25 |
                ((off >> 12) & 1) << 31;  // bne rs, x0: back to the first access
    }
  }
}
// A conditional branch (funct3 f3) by `off` bytes.
uint32_t branch_word(unsigned f3, unsigned rs1, unsigned rs2, int32_t off) {
  const uint32_t u = static_cast<uint32_t>(off);
  return 0x63u | f3 << 12 | rs1 << 15 | rs2 << 20 | ((u >> 11) & 1) << 7 | ((u >> 1) & 0xf) << 8 |
         ((u >> 5) & 0x3f) << 25 | ((u >> 12) & 1) << 31;
}
// Chains of short segments joined by branches seldom or never taken, which a block runs
// on into (translate.cpp: a clock check and charge at each boundary, the registers staying
// in host registers): writes to many registers (sp, a0 and a5, which blocks hold from
// block to block, among them; more than the host holds, so regions end inside chains),
// accesses that may fault in a later segment, a taken branch out of the middle, and some
// chains as a loop back to their first segment. Slices of a few clocks stop runs at the
// boundaries.
void plant_chains(Rng& rng, std::vector<uint32_t>& code) {
  using isa::Op;
  static const unsigned kRegs[] = {2, 10, 15, 5, 6, 7, 8, 9, 11, 12, 13, 14, 16, 17, 18, 1};
  auto reg = [&] { return kRegs[pick(rng, pick(rng, 2) ? 4 : std::size(kRegs))]; };
  for (std::size_t k = 1; k + 40 < code.size(); ++k) {
    if (pick(rng, 12)) continue;
    const bool loop = pick(rng, 2);
    const unsigned counter = 19 + static_cast<unsigned>(pick(rng, 3));  // s3..s5: rounds
    if (loop) {
      code[k - 1] = 0x6fu | 2u << 21;  // jal x0, +4: the chain's first entry
      code[k++] = 0x13u | counter << 7 | static_cast<uint32_t>(1 + pick(rng, 5)) << 20;  // li
    }
    const std::size_t loop_head = k;
    for (std::size_t seg = 2 + pick(rng, 8); seg-- > 0 && k + 12 < code.size();) {
      for (std::size_t m = 1 + pick(rng, 4); m-- > 0;) {
        const unsigned rd = reg(), rs = reg();
        switch (pick(rng, 6)) {
          case 0: code[k++] = random_word(rng, isa::insn_info(Op::lw)); break;
          case 1: code[k++] = random_word(rng, isa::insn_info(Op::sw)); break;
          case 2:  // add rd, rd, rs
            code[k++] = 0x33u | rd << 7 | rd << 15 | rs << 20;
            break;
          default:  // addi rd, rs, small
            code[k++] = 0x13u | rd << 7 | rs << 15 |
                        (static_cast<uint32_t>(pick(rng, 64)) - 32u) << 20;
            break;
        }
      }
      // The segment's end: never taken (bne r, r), seldom (bltu r, x0 never; beq a5, x0
      // now and then), or out of the chain's middle (forward past it).
      const unsigned r = reg();
      switch (pick(rng, 8)) {
        case 0: code[k] = branch_word(0, r, 0, 4 * static_cast<int32_t>(8 + pick(rng, 8))); break;
        case 1: code[k] = branch_word(6, r, 0, 4 * static_cast<int32_t>(2 + pick(rng, 8))); break;
        default: code[k] = branch_word(1, r, r, 4 * static_cast<int32_t>(2 + pick(rng, 8))); break;
      }
      ++k;
    }
    if (loop && k + 2 < code.size()) {
      code[k++] = 0x13u | counter << 7 | counter << 15 | 0xfffu << 20;  // addi counter, -1
      const int32_t back = -4 * static_cast<int32_t>(k - loop_head);
      code[k++] = branch_word(1, counter, 0, back);  // bne counter, x0: the next round
    }
  }
}
}  // namespace

Report fuzz_iss(const Options& o) {
  Report r;
  const uint64_t cases = o.cases ? o.cases : static_cast<uint64_t>(20000 * o.scale);
  for (uint64_t k = 0; k < cases; ++k) {
    const uint64_t seed = o.seed + k;
    Rng rng(seed);
    // Half the cases in the translated subset (the other half has every row).
    const bool any_row = pick(rng, 2);
    auto code = any_row ? random_code(rng, 8 + pick(rng, 500))
                        : translatable_code(rng, 8 + pick(rng, 200));
    plant_pairs(rng, code);
    if (!any_row) plant_frames(rng, code);
    if (!any_row && pick(rng, 2)) plant_chains(rng, code);
    const unsigned pes = pick(rng, 2) ? 1 : 4;
    ++r.cases;
    const State whole = run(code, seed, pes, 0, false);  // the interpreter alone
    // Each instruction dispatched alone: the superinstructions change nothing.
    const State single = run(code, seed, pes, 0, false, false);
    const State sliced = run(code, seed, pes, 1 + pick(rng, 50), false);
    const State profiled = run(code, seed, pes, 0, true);
    // Translated blocks from the first visit of every segment entry (in one go and in
    // slices), and from the third (interpreter and blocks taking turns).
    const State translated = run(code, seed, pes, 0, false, true, 0);
    const State translated_sliced = run(code, seed, pes, 1 + pick(rng, 50), false, true, 0);
    const State translated_later = run(code, seed, pes, 0, false, true, 3);
    const bool fault = whole.stop == static_cast<int>(iss::Hart::Stop::fault);
    fault ? ++r.rejected : ++r.accepted;
    std::string what;
    if (!(whole == single))
      what = "the superinstructions end in another state than single dispatch";
    else if (!(whole == sliced)) what = "a run in slices ends in another state than a run in one go";
    else if (iss::kTranslationBuilt && !(whole == translated && whole == translated_later))
      what = "the translated blocks end in another state than the interpreter";
    else if (iss::kTranslationBuilt && !(whole == translated_sliced))
      what = "the translated blocks in slices end in another state than the interpreter";
    // The profiling loop checks the clock at every instruction, not per segment: it may
    // stop at the budget elsewhere, but a stop or a fault must be the same.
    else if ((whole.stop != static_cast<int>(iss::Hart::Stop::limit) || whole.failed) &&
             !(whole == profiled))
      what = "the profiled run ends in another state";
    else if (whole.stop == static_cast<int>(iss::Hart::Stop::limit) && !whole.failed &&
             whole.cycles < kBudget)
      what = "the run returned before its clock limit";
    else if (whole.cycles > kBudget + 255 * 255 + 64)
      what = "the run overran its clock limit by more than a segment";
    if (!what.empty()) finding(r, o, "iss", seed, what, words_text(code), ".txt");
  }
  return r;
}

}  // namespace emx::fuzz
