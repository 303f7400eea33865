// Block translation (sim/iss/translate.cpp): programs run translated from the first visit
// of each segment entry end in the interpreter's state (registers, clocks, instructions,
// faults, FP flags), and the blocks were really made. The fuzzer compares the two on
// random code; these are the cases named.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "hart_fixture.h"
#include "isa/csr_numbers.h"

namespace emx::test {
namespace {
using Stop = iss::Hart::Stop;

// One program on a fresh hart, translated or interpreted.
struct Machine {
  static constexpr uint32_t kCode = 0x1000, kData = 0x8000, kMem = 64 * 1024;
  iss::TimingConfig timing;
  mem::LocalMemory memory{kMem};
  std::unique_ptr<iss::Hart> hart;
  Machine(const std::vector<uint32_t>& code, bool translate, uint32_t branch_taken = 1,
          iss::HartEnv* env = nullptr) {
    timing.branch_taken = branch_taken;
    hart = std::make_unique<iss::Hart>(memory, timing);
    hart->set_env(env);
    for (std::size_t k = 0; k < code.size(); ++k) memory.write32(kCode + 4 * k, code[k]);
    hart->translate = translate && iss::kTranslationBuilt;
    hart->translate_after = 0;
    hart->set_code(kCode, static_cast<uint32_t>(4 * code.size()));
    hart->pc = kCode;
  }
  bool translated(uint32_t pc) const {
    const auto& t = hart->decoded_code()->translation;
    return t && t->block((pc - kCode) / 4) != nullptr;
  }
};

void expect_same(const iss::Hart& a, const iss::Hart& b) {
  for (unsigned r = 0; r < 32; ++r) EXPECT_EQ(a.x[r], b.x[r]) << "x" << r;
  EXPECT_EQ(a.f, b.f);
  EXPECT_EQ(a.pc, b.pc);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.instret, b.instret);
  EXPECT_EQ(a.fflags, b.fflags);
}

// Runs both with a stack guard word at kData + 40: a store there faults, at `pc`.
void run_to_guard_fault(Machine& t, Machine& i, uint32_t pc) {
  for (Machine* m : {&t, &i}) m->memory.set_tag(Machine::kData + 40, iss::kTagGuard);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(t.hart->fault().kind, iss::FaultKind::stack_overflow);
  EXPECT_EQ(t.hart->fault().pc, pc);
  EXPECT_EQ(t.hart->fault().addr, Machine::kData + 40);
}

// `code` translated and interpreted up to the guard word's fault at `pc`: `check` looks
// at the translated run, which ends in the interpreter's state with a block at `block`.
template <class Check>
void guard_fault_as_interpreted(const std::vector<uint32_t>& code, uint32_t pc, uint32_t block,
                                Check check) {
  Machine t(code, true), i(code, false);
  run_to_guard_fault(t, i, pc);
  check(t, i);
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(block));
}

TEST(Translate, LoopWithTakenBranchClocks) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      addi(5, 0, 0), addi(6, 0, 100),
      add(5, 5, 6), addi(6, 6, -1), b(1, 6, 0, -8),  // bne x6, x0, back to the add
      kEnd};
  Machine t(code, true, 3), i(code, false, 3);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(t.hart->x[5], 5050u);
  // 2 + 100 x 3 instructions and the end; a taken bne costs 3 clocks, not 1 (99 times).
  EXPECT_EQ(t.hart->instret, 303u);
  EXPECT_EQ(t.hart->cycles, 303u + 99u * 2u);
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode + 8));
}

TEST(Translate, ClockLimitInsideALoopStopsWhereTheInterpreterStops) {
  using namespace enc;
  const std::vector<uint32_t> code = {addi(5, 5, 1), addi(6, 6, 3), j(0, -8)};
  Machine t(code, true), i(code, false);
  for (uint64_t limit : {1000u, 1001u, 2500u, 2500u, 2502u}) {
    EXPECT_EQ(t.hart->run(limit), Stop::limit);
    EXPECT_EQ(i.hart->run(limit), Stop::limit);
    expect_same(*t.hart, *i.hart);
  }
  EXPECT_EQ(t.hart->cycles, 2502u);  // a segment of 3 clocks from 0: at a multiple of 3
  EXPECT_EQ(t.hart->x[5], 834u);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode));
}

TEST(Translate, StoreOntoAGuardWordFaultsAtTheStore) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      lui(7, Machine::kData >> 12),
      sw(0, 7, 0), addi(7, 7, 4), j(0, -8),  // clear words upwards, for ever
  };
  Machine t(code, true), i(code, false);
  run_to_guard_fault(t, i, Machine::kCode + 4);
  EXPECT_EQ(t.hart->x[7], Machine::kData + 40);
  EXPECT_EQ(t.hart->instret, 1u + 10u * 3u);  // the lui and ten whole iterations
  EXPECT_EQ(t.hart->cycles, 1u + 10u * 3u + 1u);  // and the faulting store's clock
  expect_same(*t.hart, *i.hart);
  EXPECT_EQ(i.hart->fault().pc, t.hart->fault().pc);
}

TEST(Translate, StoreIntoTheCodeFaultsAtTheStore) {
  using namespace enc;
  const std::vector<uint32_t> code = {lui(7, Machine::kCode >> 12), addi(7, 7, 20),
                                      addi(5, 0, 3),
                                      sw(5, 7, 4),  // the word after the code: stored
                                      sw(5, 7, 0),  // the code's last word: a fault
                                      kEnd};
  Machine t(code, true), i(code, false);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(t.hart->fault().kind, iss::FaultKind::store_to_code);
  EXPECT_EQ(t.hart->fault().pc, Machine::kCode + 16);
  EXPECT_EQ(t.hart->fault().addr, Machine::kCode + 20);
  EXPECT_EQ(t.memory.read32(Machine::kCode + 24), 3u);
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode));
}

TEST(Translate, NanResultIsCanonicalWithItsFlag) {
  using namespace enc;
  const uint32_t fmv_w_x_f1 = r(0x53, 0, 0x78, 1, 5, 0), fmv_w_x_f2 = r(0x53, 0, 0x78, 2, 6, 0);
  const uint32_t fadd_f3 = r(0x53, 7, 0x00, 3, 1, 2), fadd_f4 = r(0x53, 7, 0x00, 4, 1, 1);
  const std::vector<uint32_t> code = {lui(5, 0x7f800), lui(6, 0xff800), fmv_w_x_f1, fmv_w_x_f2,
                                      fadd_f3, fadd_f4, kEnd};
  Machine t(code, true), i(code, false);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(t.hart->f[3], 0x7fc00000u);  // inf + -inf: the canonical NaN
  EXPECT_EQ(t.hart->f[4], 0x7f800000u);  // inf + inf
  EXPECT_EQ(t.hart->fflags, 0x10u);      // NV
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode));
}

TEST(Translate, DivisionSpecialCases) {
  using namespace enc;
  auto op = [](unsigned f3, unsigned rd, unsigned rs1, unsigned rs2) { return r(0x33, f3, 1, rd, rs1, rs2); };
  const unsigned kDiv = 4, kDivu = 5, kRem = 6, kRemu = 7;
  const std::vector<uint32_t> code = {
      op(kDiv, 16, 10, 11), op(kRem, 17, 10, 11), op(kDivu, 18, 10, 11), op(kRemu, 19, 10, 11),
      j(0, 4),  // three blocks: fewer registers than the host holds
      op(kDiv, 20, 12, 13), op(kRem, 21, 12, 13), op(kDiv, 22, 10, 0), op(kRem, 23, 10, 0),
      j(0, 4),
      op(kDivu, 24, 10, 0), op(kRemu, 25, 10, 0), addi(26, 0, 1), addi(27, 0, 2), kEnd};
  Machine t(code, true), i(code, false);
  for (Machine* m : {&t, &i}) {
    m->hart->x[10] = static_cast<uint32_t>(-7);
    m->hart->x[11] = 2;
    m->hart->x[12] = 0x80000000u;
    m->hart->x[13] = static_cast<uint32_t>(-1);
    EXPECT_EQ(m->hart->run(1u << 20), Stop::stopped);
  }
  const uint32_t want[] = {static_cast<uint32_t>(-3), static_cast<uint32_t>(-1), 0x7ffffffcu, 1u,
                           0x80000000u, 0u, ~0u, static_cast<uint32_t>(-7), ~0u,
                           static_cast<uint32_t>(-7)};
  for (unsigned k = 0; k < 10; ++k) EXPECT_EQ(t.hart->x[16 + k], want[k]) << "x" << 16 + k;
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt)
    for (uint32_t at : {0u, 20u, 40u}) EXPECT_TRUE(t.translated(Machine::kCode + at)) << at;
}

// A segment that names more guest registers than the host holds runs in one block, in
// regions (registers stored and loaded afresh between them); a fault in the second region
// leaves the registers of both as the interpreter does.
TEST(Translate, SegmentWithMoreRegistersThanTheHostRunsInRegions) {
  using namespace enc;
  std::vector<uint32_t> code = {lui(7, Machine::kData >> 12),
                                sw(6, 7, 0),  // onto the guard word the second time round
                                addi(7, 7, 40)};
  for (unsigned r = 10; r < 26; ++r) code.push_back(addi(r, r - 1, static_cast<int32_t>(r)));
  code.push_back(b(1, 25, 0, -4 * 18));  // bne x25, x0: back to the sw
  guard_fault_as_interpreted(code, Machine::kCode + 4, Machine::kCode + 4,
                             [](Machine& t, Machine&) {
    EXPECT_EQ(t.hart->x[25], (10u + 25u) * 16u / 2u);  // x10 = 10, x11 = x10 + 11, ...
  });
}

// A branch back to the block's own entry keeps the registers in host registers from one
// round to the next: a store that faults in a later round leaves every register the
// earlier rounds wrote stored (x7, and x8, which the block writes before it reads it).
TEST(Translate, FaultInALaterRoundOfAOneBlockLoopStoresTheEarlierRoundsRegisters) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      lui(7, Machine::kData >> 12), addi(9, 0, 1),
      sw(0, 7, 0), addi(8, 7, 1), addi(7, 7, 4), b(1, 9, 0, -12)};  // bne x9, x0: to the sw
  guard_fault_as_interpreted(code, Machine::kCode + 8, Machine::kCode + 8,
                             [](Machine& t, Machine&) {
    EXPECT_EQ(t.hart->x[7], Machine::kData + 40);
    EXPECT_EQ(t.hart->x[8], Machine::kData + 37);
  });
}

// Word accesses off one base register share one check (a frame's stores and loads): when
// one of them would fault, the block leaves at the first, and the interpreter runs them
// one by one: the fault at the store onto the guard word, the ones before it done.
TEST(Translate, GroupedStoresFaultAtTheStoreOnTheGuardWord) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      lui(7, Machine::kData >> 12), addi(5, 0, 5),
      sw(5, 7, 8), lw(8, 7, 8), sw(8, 7, 0), addi(5, 5, 1), sw(5, 7, 4),  // (the group)
      addi(7, 7, 12), j(0, -24)};  // back to the first sw: its group is 12 bytes higher
  // Rounds at kData, +12, +24; at +36 the group's second store (offset 4) is the guard's.
  guard_fault_as_interpreted(code, Machine::kCode + 24, Machine::kCode + 8,
                             [](Machine& t, Machine& i) {
    EXPECT_EQ(t.hart->x[7], Machine::kData + 36);
    EXPECT_EQ(t.memory.read32(Machine::kData + 36), 8u);  // the round's stores before it
    EXPECT_EQ(t.memory.read32(Machine::kData + 44), 8u);
    for (uint32_t a = Machine::kData; a < Machine::kData + 48; a += 4)
      EXPECT_EQ(t.memory.read32(a), i.memory.read32(a)) << a;
  });
}

// lw.ai (rd = mem[rs1], then rs1 += imm) inside blocks: the block-send loop's load.
uint32_t lwai(unsigned rd, unsigned rs1, int32_t imm) { return enc::i(0x7b, 2, rd, rs1, imm); }

TEST(Translate, AutoIncrementLoadLoopAsInTheInterpreter) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      lui(7, Machine::kData >> 12), addi(6, 0, 50), addi(5, 0, 0),
      lwai(8, 7, 4), add(5, 5, 8), lwai(0, 7, 4), lwai(9, 7, -4),  // x0: increment only
      addi(6, 6, -1), b(1, 6, 0, -20),  // bne x6, x0: back to the first lw.ai
      addi(10, 7, -8), lwai(10, 10, 12),  // rd = rs1: the loaded value wins
      kEnd};
  Machine t(code, true, 2), i(code, false, 2);
  for (Machine* m : {&t, &i})
    for (uint32_t w = 0; w < 101; ++w) m->memory.write32(Machine::kData + 4 * w, 1000 + w);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(t.hart->x[7], Machine::kData + 200);  // 4 a round
  EXPECT_EQ(t.hart->x[5], 50u * 1000u + 49u * 50u / 2u);  // words 0 .. 49
  EXPECT_EQ(t.hart->x[9], 1051u);  // the last round's word 49 + 2
  EXPECT_EQ(t.hart->x[10], 1048u);  // word 50 - 2
  EXPECT_EQ(t.hart->instret, 3u + 50u * 6u + 3u);
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode + 12));
}

// A faulting lw.ai in the middle of a block: the interpreter's fault at it, its rs1 and rd
// unchanged, the registers written before it stored.
TEST(Translate, AutoIncrementLoadThatFaultsChangesNoRegister) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      lui(7, Machine::kMem >> 12), addi(7, 7, -32),  // 8 words a round up to the top
      addi(11, 11, 1), lwai(8, 7, 16), addi(12, 12, 1), lwai(9, 7, -8), j(0, -16)};
  Machine t(code, true), i(code, false);
  for (Machine* m : {&t, &i})
    for (uint32_t w = 1; w <= 8; ++w) m->memory.write32(Machine::kMem - 4 * w, 100 + w);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(t.hart->fault().kind, iss::FaultKind::load_outside_memory);
  EXPECT_EQ(i.hart->fault().kind, iss::FaultKind::load_outside_memory);
  EXPECT_EQ(t.hart->fault().pc, Machine::kCode + 20);  // the second lw.ai of round 3
  EXPECT_EQ(t.hart->fault().addr, Machine::kMem);
  EXPECT_EQ(i.hart->fault().addr, Machine::kMem);
  EXPECT_EQ(t.hart->x[7], Machine::kMem);  // not incremented by the faulting one
  EXPECT_EQ(t.hart->x[8], 104u);  // round 3's first load: kMem - 16
  EXPECT_EQ(t.hart->x[9], 102u);  // round 2's: kMem - 8, not the fault's
  EXPECT_EQ(t.hart->x[11], 3u);
  EXPECT_EQ(t.hart->x[12], 3u);
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode + 8));
}

// EM-4 has no lw.ai: its decoder rejects it, so no block runs it (the fault is the
// interpreter's illegal instruction, the registers before it stored).
TEST(Translate, AutoIncrementLoadIsIllegalWithoutTheFeature) {
  using namespace enc;
  const std::vector<uint32_t> code = {lui(7, Machine::kData >> 12), addi(5, 0, 1), addi(6, 0, 2),
                                      addi(8, 0, 3), addi(9, 0, 4), lwai(8, 7, 4), kEnd};
  Machine t(code, true), i(code, false);
  for (Machine* m : {&t, &i}) {
    m->hart->features = ~isa::csr::kFeatureAutoIncrement;
    m->hart->set_code(Machine::kCode, static_cast<uint32_t>(4 * code.size()));
  }
  EXPECT_EQ(t.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(t.hart->fault().kind, iss::FaultKind::illegal_instruction);
  EXPECT_EQ(t.hart->fault().pc, Machine::kCode + 20);
  EXPECT_EQ(t.hart->x[7], Machine::kData);
  EXPECT_EQ(t.hart->x[8], 3u);
  expect_same(*t.hart, *i.hart);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode));
}

// The PE around the hart for the environment instructions (sends, end, tags, CSRs), which
// blocks hand to Hart::run_env: a send queue that is full from the third send on (each
// send then waits `stall` clocks), sends to PE 3 fault, `end` restarts the code a few times.
struct QueueEnv : iss::HartEnv {
  std::vector<std::pair<uint32_t, uint32_t>> sent;
  uint64_t stall = 5;
  unsigned ends = 0, max_ends = 3, settles = 0, clock_reads = 0, retries = 0;
  void send(iss::Hart& h, isa::PacketType, uint32_t addr, uint32_t data) override {
    if ((addr >> 22) == 3) throw iss::Trap{iss::FaultKind::machine, addr, "no such PE"};
    if (retries) {  // given up: the next run() sends it again
      --retries;
      return h.request_retry();
    }
    sent.emplace_back(addr, data);
    if (sent.size() > 2) h.cycles += stall;
  }
  void end_thread(iss::Hart& h) override {
    if (++ends > max_ends) return h.request_stop();
    h.pc = Machine::kCode;
    h.cycles += 2;
  }
  void settle(iss::Hart&) override { ++settles; }
  void clock_read(iss::Hart& h) override {
    ++clock_reads;
    h.cycles += 1;  // a deferred stall taken now
  }
};

uint32_t send_syswr(unsigned data, unsigned addr) { return enc::r(0x0b, 0, 4, 0, addr, data); }
uint32_t sendd_inv1(unsigned data, unsigned base, int32_t words) {
  return enc::s(0x2b, 0, base, data, words);
}
uint32_t rtag(unsigned rd, unsigned addr) { return enc::r(0x0b, 2, 0, rd, addr, 0); }
uint32_t wtag(unsigned v, unsigned addr) { return enc::r(0x0b, 3, 0, 0, addr, v); }

// Runs both to their stop: the same state, the same packets sent.
void run_both_to_stop(Machine& t, Machine& i, const QueueEnv& te, const QueueEnv& ie) {
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  expect_same(*t.hart, *i.hart);
  EXPECT_EQ(te.sent, ie.sent);
}

TEST(Translate, SendsStallOnAFullQueueAsInTheInterpreter) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      addi(5, 0, 0x400), addi(10, 0, 6),
      addi(7, 7, 1), add(6, 6, 7), send_syswr(7, 5),  // a block that ends with the send
      addi(5, 5, 4), sendd_inv1(6, 5, 2),             // the displacement form
      b(1, 7, 10, -20),                              // bne x7, x10: six rounds
      kEnd};
  QueueEnv te, ie;
  Machine t(code, true, 1, &te), i(code, false, 1, &ie);
  te.max_ends = ie.max_ends = 0;
  run_both_to_stop(t, i, te, ie);
  ASSERT_EQ(te.sent.size(), 12u);
  EXPECT_EQ(te.sent[1], std::make_pair(0x404u + 2u, 1u));  // x5 + 2 (words), x6
  EXPECT_EQ(t.hart->instret, 2u + 6u * 6u + 1u);
  // Every instruction a clock, and 5 clocks a send from the third on.
  EXPECT_EQ(t.hart->cycles, 2u + 6u * 6u + 1u + 10u * 5u);
  if (iss::kTranslationBuilt) {
    EXPECT_TRUE(t.translated(Machine::kCode + 8));   // addi, add, send
    EXPECT_TRUE(t.translated(Machine::kCode + 20));  // addi, send
    EXPECT_TRUE(t.translated(Machine::kCode + 28));  // bne alone is not: the end is
  }
}

// A send's address and data are computed by the block (x0 as base or data, the base as
// data, a negative displacement); and a block made before the block it jumps to goes
// there straight once that one is made (its jump is pointed at it).
TEST(Translate, SendOperandsAndJumpsToBlocksMadeLater) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      addi(5, 0, 0x400), addi(6, 0, 4),
      addi(5, 5, 8), addi(6, 6, -1), b(0, 6, 0, 20),  // beq x6, x0: to the end
      sendd_inv1(0, 0, 0x123), send_syswr(5, 5),      // x0 + 0x123, data 0; data = address
      sendd_inv1(6, 5, -3),                           // x5 - 3
      j(0, -24),                                      // back to the first addi x5
      kEnd};
  QueueEnv te, ie;
  Machine t(code, true, 1, &te), i(code, false, 1, &ie);
  te.max_ends = ie.max_ends = 0;
  te.stall = ie.stall = 0;
  run_both_to_stop(t, i, te, ie);
  ASSERT_EQ(te.sent.size(), 9u);
  EXPECT_EQ(te.sent[0], std::make_pair(0x123u, 0u));
  EXPECT_EQ(te.sent[1], std::make_pair(0x408u, 0x408u));
  EXPECT_EQ(te.sent[2], std::make_pair(0x405u, 3u));
  EXPECT_EQ(te.sent[8], std::make_pair(0x415u, 1u));
  if (iss::kTranslationBuilt) {
    // The block at +8 runs on past its beq into the segment at +20 (which gets no block of
    // its own); its send's next entry (+24) and the one after (+28) are made later.
    EXPECT_TRUE(t.translated(Machine::kCode + 8));
    EXPECT_FALSE(t.translated(Machine::kCode + 20));
    EXPECT_TRUE(t.translated(Machine::kCode + 24));
    EXPECT_TRUE(t.translated(Machine::kCode + 28));
  }
}

// A send the environment takes directly (Hart::set_direct_send, the machine's floating
// sends) and one it leaves to HartEnv::send (which may stall it): the same sends, in the
// same order, at the same pc and clock as the interpreter's, which never sends directly.
struct DirectEnv : iss::HartEnv {
  struct Sent {
    isa::PacketType type;
    uint32_t addr, data, pc;
    uint64_t cycle;
    bool operator==(const Sent& o) const {
      return std::tie(type, addr, data, pc, cycle) == std::tie(o.type, o.addr, o.data, o.pc, o.cycle);
    }
  };
  std::vector<Sent> sent;
  unsigned direct = 0, full = 0;
  static uint32_t direct_send(void* ctx, isa::PacketType type, uint32_t addr, uint32_t data,
                              uint32_t pc, uint64_t cycle) noexcept {
    auto& e = *static_cast<DirectEnv*>(ctx);
    if (data & 1) return false;  // odd data: left to send(), which stalls it
    e.sent.push_back({type, addr, data, pc, cycle});
    ++e.direct;
    return true;
  }
  void send(iss::Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) override {
    sent.push_back({type, addr, data, h.pc, h.cycles});
    ++full;
    if (data & 1) h.cycles += 5;
  }
  void end_thread(iss::Hart& h) override { h.request_stop(); }
};

TEST(Translate, DirectSendsAndTheRestAsTheInterpreterSends) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      addi(5, 0, 0x400), addi(10, 0, 6),
      addi(7, 7, 1), send_syswr(7, 5),         // data 1..6: odd ones go to send()
      addi(5, 5, 4), sendd_inv1(7, 5, 2),      // the displacement form
      b(1, 7, 10, -16),                        // bne x7, x10: six rounds
      kEnd};
  DirectEnv te, ie;
  Machine t(code, true, 1, &te), i(code, false, 1, &ie);
  t.hart->set_direct_send(&DirectEnv::direct_send, &te);
  i.hart->set_direct_send(&DirectEnv::direct_send, &ie);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  expect_same(*t.hart, *i.hart);
  ASSERT_EQ(te.sent.size(), 12u);
  EXPECT_EQ(te.sent, ie.sent);
  // The third: round 2's first, after 2 + 5 instructions, a bne and two stalls of 5.
  EXPECT_EQ(te.sent[2], (DirectEnv::Sent{isa::PacketType::syswr, 0x404, 2, Machine::kCode + 12,
                                         2u + 5u + 2u + 10u}));
  EXPECT_EQ(ie.direct, 0u);  // the interpreter always calls send()
  EXPECT_EQ(i.hart->cycles, 2u + 6u * 5u + 1u + 6u * 5u);  // six odd sends stalled
  if (iss::kTranslationBuilt) {
    EXPECT_EQ(te.direct, 6u);
    EXPECT_EQ(te.full, 6u);
  }
}

TEST(Translate, SendThatFaultsStopsAtTheSend) {
  using namespace enc;
  const std::vector<uint32_t> code = {
      lui(5, 0x00c00),  // PE 3, word 0
      addi(6, 0, 7), addi(7, 6, 1), send_syswr(6, 5), addi(8, 0, 1), kEnd};
  QueueEnv te, ie;
  Machine t(code, true, 1, &te), i(code, false, 1, &ie);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::fault);
  EXPECT_EQ(t.hart->fault().kind, iss::FaultKind::machine);
  EXPECT_EQ(t.hart->fault().pc, Machine::kCode + 12);
  EXPECT_EQ(t.hart->fault().addr, 0x00c00000u);
  EXPECT_EQ(t.hart->pc, Machine::kCode + 12);
  EXPECT_EQ(t.hart->x[7], 8u);     // written in the block before the send
  EXPECT_EQ(t.hart->instret, 3u);  // the send did not retire
  expect_same(*t.hart, *i.hart);
  EXPECT_EQ(i.hart->fault().pc, t.hart->fault().pc);
  if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode));
}

TEST(Translate, SendGivenUpRunsAgainAtTheNextRun) {
  using namespace enc;
  const std::vector<uint32_t> code = {addi(5, 0, 0x400), addi(6, 6, 1), send_syswr(6, 5),
                                      addi(7, 7, 1), kEnd};
  QueueEnv te, ie;
  te.retries = ie.retries = 1;
  te.max_ends = ie.max_ends = 0;
  Machine t(code, true, 1, &te), i(code, false, 1, &ie);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(t.hart->pc, Machine::kCode + 8);  // at the send, its clock taken back
  EXPECT_EQ(t.hart->instret, 2u);
  EXPECT_EQ(t.hart->cycles, 2u);
  expect_same(*t.hart, *i.hart);
  run_both_to_stop(t, i, te, ie);
  EXPECT_EQ(te.sent.size(), 1u);
  EXPECT_EQ(t.hart->x[7], 1u);
}

TEST(Translate, ThreadEndTagsAndCountersAsInTheInterpreter) {
  using namespace enc;
  const uint32_t kCycle = 0xc00, kInstret = 0xc02;
  const std::vector<uint32_t> code = {
      addi(5, 5, 1), lui(9, Machine::kData >> 12), wtag(5, 9),  // tag = x5 & 0x3f
      rtag(6, 9),                                    // present when x5 is odd, else settle
      csrrs(7, kInstret, 0), add(8, 8, 6), csrrs(11, kCycle, 0),  // a clock read is exact
      add(12, 12, 11), kEnd};                         // `end` starts the code again
  QueueEnv te, ie;
  Machine t(code, true, 1, &te), i(code, false, 1, &ie);
  EXPECT_EQ(t.hart->run(1u << 20), Stop::stopped);
  EXPECT_EQ(i.hart->run(1u << 20), Stop::stopped);
  expect_same(*t.hart, *i.hart);
  EXPECT_EQ(t.hart->x[5], 4u);
  EXPECT_EQ(t.hart->x[8], 1u + 2u + 3u + 4u);
  EXPECT_EQ(te.settles, 2u);  // x5 = 2 and 4: the element not present
  EXPECT_EQ(te.settles, ie.settles);
  EXPECT_EQ(te.clock_reads, 4u);
  EXPECT_EQ(te.clock_reads, ie.clock_reads);
  EXPECT_EQ(t.hart->x[7], i.hart->x[7]);
  if (iss::kTranslationBuilt) {
    EXPECT_TRUE(t.translated(Machine::kCode));       // addi, addi, wtag
    EXPECT_TRUE(t.translated(Machine::kCode + 12));  // rtag alone
    EXPECT_TRUE(t.translated(Machine::kCode + 28));  // add, end
  }
}

// Blocks read tags of present elements, write tags and read the CSRs that are hart fields
// themselves: the same values as the interpreter (tag bits masked to 6; a register written
// by csrrw read back), and a tag instruction at a misaligned address still faults as the
// interpreter's.
TEST(Translate, TagsAndFieldCsrsInTheBlock) {
  using namespace enc;
  const uint32_t kPeId = 0xcc0, kPeCount = 0xcc1, kMemBytes = 0xcc2, kFeatures = 0xcc4,
                 kFrameWords = 0xcc5, kThreadStack = 0x801;
  const std::vector<uint32_t> code = {
      lui(9, Machine::kData >> 12), addi(5, 0, 0x7f), wtag(5, 9),  // tag = 0x3f
      rtag(6, 9),                                                  // present: read here
      csrrs(10, kPeId, 0), csrrs(11, kPeCount, 0),
      csrrs(12, kFeatures, 0), csrrs(13, kFrameWords, 0),
      csrrw(0, kThreadStack, 9), csrrs(14, kThreadStack, 0), csrrs(15, kMemBytes, 0),
      addi(9, 9, 2), rtag(7, 9), kEnd};  // misaligned: a fault at the second rtag
  for (bool second_wtag : {false, true}) {
    std::vector<uint32_t> c = code;
    if (second_wtag) c[12] = wtag(5, 9);
    QueueEnv te, ie;
    Machine t(c, true, 1, &te), i(c, false, 1, &ie);
    for (Machine* m : {&t, &i}) {
      m->hart->set_machine_info(5, 16, 20000);
      m->hart->frame_words = 64;
    }
    EXPECT_EQ(t.hart->run(1u << 20), Stop::fault);
    EXPECT_EQ(i.hart->run(1u << 20), Stop::fault);
    expect_same(*t.hart, *i.hart);
    EXPECT_EQ(t.hart->fault().kind, second_wtag ? iss::FaultKind::misaligned_store
                                                : iss::FaultKind::misaligned_load);
    EXPECT_EQ(t.hart->fault().pc, Machine::kCode + 48);
    EXPECT_EQ(t.memory.tag(Machine::kData), 0x3fu);
    EXPECT_EQ(t.hart->x[6], 0x3fu);
    EXPECT_EQ(t.hart->x[10], 5u);
    EXPECT_EQ(t.hart->x[11], 16u);
    EXPECT_EQ(t.hart->x[12], t.hart->features);
    EXPECT_EQ(t.hart->x[13], 64u);
    EXPECT_EQ(t.hart->x[14], Machine::kData & ~15u);  // csrrw's mask
    EXPECT_EQ(t.hart->x[15], Machine::kMem);
    EXPECT_EQ(te.settles, 0u);
    if (iss::kTranslationBuilt) EXPECT_TRUE(t.translated(Machine::kCode + 12));  // rtag
  }
}

}  // namespace
}  // namespace emx::test
