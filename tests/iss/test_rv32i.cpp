// RV32I and RV32M, instruction by instruction, with the corner cases.
#include <climits>

#include "hart_fixture.h"
#include "isa/csr_numbers.h"
#include "isa/isa.h"

namespace emx::test {
namespace {

using Stop = iss::Hart::Stop;
using iss::FaultKind;

TEST_F(HartTest, AddiAndX0StaysZero) {
  EXPECT_EQ(exec({enc::addi(1, 0, 5), enc::addi(0, 1, 7), enc::addi(2, 0, -1)}), Stop::stopped);
  EXPECT_EQ(x(1), 5u);
  EXPECT_EQ(x(0), 0u);
  EXPECT_EQ(x(2), 0xffffffffu);
  EXPECT_EQ(hart.instret, 4u);  // three addi and the end
}

TEST_F(HartTest, ShiftAmountsUseLowFiveBits) {
  x(1) = 0x80000001;
  x(2) = 33;  // shifts by 1
  exec({enc::r(0x33, 1, 0, 3, 1, 2), enc::r(0x33, 5, 0, 4, 1, 2), enc::r(0x33, 5, 0x20, 5, 1, 2),
        enc::i(0x13, 5, 6, 1, 0x400 | 31)});  // srai by 31
  EXPECT_EQ(x(3), 0x00000002u);
  EXPECT_EQ(x(4), 0x40000000u);
  EXPECT_EQ(x(5), 0xc0000000u);
  EXPECT_EQ(x(6), 0xffffffffu);
}

TEST_F(HartTest, SetLessThanSignedAndUnsigned) {
  x(1) = static_cast<uint32_t>(-1);
  x(2) = 1;
  exec({enc::r(0x33, 2, 0, 3, 1, 2), enc::r(0x33, 3, 0, 4, 1, 2), enc::i(0x13, 3, 5, 2, -1)});
  EXPECT_EQ(x(3), 1u);  // -1 < 1 signed
  EXPECT_EQ(x(4), 0u);  // 0xffffffff < 1 unsigned: no
  EXPECT_EQ(x(5), 1u);  // sltiu 1 < 0xffffffff
}

TEST_F(HartTest, DivisionCornerCasesFollowRiscV) {
  x(1) = 7;
  x(2) = 0;
  x(3) = static_cast<uint32_t>(INT32_MIN);
  x(4) = static_cast<uint32_t>(-1);
  exec({enc::r(0x33, 4, 1, 10, 1, 2),    // div 7/0
        enc::r(0x33, 5, 1, 11, 1, 2),    // divu 7/0
        enc::r(0x33, 6, 1, 12, 1, 2),    // rem 7%0
        enc::r(0x33, 7, 1, 13, 1, 2),    // remu 7%0
        enc::r(0x33, 4, 1, 14, 3, 4),    // div INT_MIN/-1
        enc::r(0x33, 6, 1, 15, 3, 4)});  // rem INT_MIN%-1
  EXPECT_EQ(x(10), 0xffffffffu);
  EXPECT_EQ(x(11), 0xffffffffu);
  EXPECT_EQ(x(12), 7u);
  EXPECT_EQ(x(13), 7u);
  EXPECT_EQ(x(14), static_cast<uint32_t>(INT32_MIN));
  EXPECT_EQ(x(15), 0u);
}

TEST_F(HartTest, MultiplyHighHalves) {
  x(1) = static_cast<uint32_t>(-2);
  x(2) = 3;
  exec({enc::r(0x33, 0, 1, 10, 1, 2), enc::r(0x33, 1, 1, 11, 1, 2), enc::r(0x33, 2, 1, 12, 1, 2),
        enc::r(0x33, 3, 1, 13, 1, 2)});
  EXPECT_EQ(x(10), static_cast<uint32_t>(-6));
  EXPECT_EQ(x(11), 0xffffffffu);  // mulh(-2, 3) = high word of -6
  EXPECT_EQ(x(12), 0xffffffffu);  // mulhsu(-2, 3)
  EXPECT_EQ(x(13), 2u);           // mulhu(0xfffffffe, 3) = 2
}

TEST_F(HartTest, LoadsSignAndZeroExtend) {
  memory.write32(kData, 0x8081ff7f);
  x(1) = kData;
  exec({enc::i(0x03, 0, 2, 1, 0), enc::i(0x03, 4, 3, 1, 0), enc::i(0x03, 1, 4, 1, 2),
        enc::i(0x03, 5, 5, 1, 2), enc::lw(6, 1, 0)});
  EXPECT_EQ(x(2), 0x7fu);
  EXPECT_EQ(x(3), 0x7fu);
  EXPECT_EQ(x(4), 0xffff8081u);
  EXPECT_EQ(x(5), 0x8081u);
  EXPECT_EQ(x(6), 0x8081ff7fu);
}

TEST_F(HartTest, StoresWriteOnlyTheirWidth) {
  memory.write32(kData, 0x11223344);
  x(1) = kData;
  x(2) = 0xaabbccdd;
  exec({enc::s(0x23, 0, 1, 2, 1), enc::s(0x23, 1, 1, 2, 2)});
  EXPECT_EQ(memory.read32(kData), 0xccdddd44u);
}

TEST_F(HartTest, BranchesAndLoopTiming) {
  // x1 = 10; loop: x2 += 1; x1 -= 1; bne x1, x0, loop  -> 30 instructions in the loop
  EXPECT_EQ(exec({enc::addi(1, 0, 10), enc::addi(2, 2, 1), enc::addi(1, 1, -1),
                  enc::b(1, 1, 0, -8)}),
            Stop::stopped);
  EXPECT_EQ(x(2), 10u);
  // EM-X defaults: every instruction one clock, a taken branch too.
  EXPECT_EQ(hart.cycles, hart.instret);
}

TEST_F(HartTest, JalAndJalrLink) {
  // jal x1, +8 ; addi x5,x0,1 (skipped) ; jalr x2, 0(x1) would loop: use auipc instead
  exec({enc::j(1, 8), enc::addi(5, 0, 1), enc::addi(6, 0, 2)});
  EXPECT_EQ(x(1), kCode + 4);
  EXPECT_EQ(x(5), 0u);
  EXPECT_EQ(x(6), 2u);
}

TEST_F(HartTest, JalrClearsLowBitAndFaultsWhenMisaligned) {
  x(1) = kCode + 8 + 1;  // low bit cleared: lands on the 3rd instruction
  exec({enc::i(0x67, 0, 2, 1, 0), enc::addi(5, 0, 1), enc::addi(6, 0, 2)});
  EXPECT_EQ(x(5), 0u);
  EXPECT_EQ(x(6), 2u);
  x(1) = kCode + 6;
  EXPECT_EQ(exec({enc::i(0x67, 0, 2, 1, 0)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::misaligned_fetch);
  EXPECT_EQ(hart.fault().addr, kCode + 6);
  EXPECT_EQ(hart.fault().pc, kCode);
}

TEST_F(HartTest, LuiAuipc) {
  exec({enc::lui(1, 0xfffff), enc::u(0x17, 2, 1)});
  EXPECT_EQ(x(1), 0xfffff000u);
  EXPECT_EQ(x(2), kCode + 4 + 0x1000);
}

TEST_F(HartTest, MemoryFaults) {
  x(1) = kData + 2;
  EXPECT_EQ(exec({enc::lw(2, 1, 0)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::misaligned_load);
  x(1) = 0;
  EXPECT_EQ(exec({enc::lw(2, 1, 8)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::load_outside_memory);  // the null guard
  x(1) = kMem - 2;
  EXPECT_EQ(exec({enc::s(0x23, 1, 1, 0, 0), enc::sw(0, 1, 0)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::store_outside_memory);
  EXPECT_EQ(hart.fault().pc, kCode + 4);
  x(1) = kCode;
  EXPECT_EQ(exec({enc::sw(0, 1, 0)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::store_to_code);
}

// The runtime tags the words below each thread stack (kTagGuard): a store there is a
// stack overflow, a load is not (nor a tag access, which is how the runtime sets them).
TEST_F(HartTest, StoreIntoAStackGuardIsAStackOverflow) {
  memory.set_tag(kData + 4, iss::kTagGuard);
  x(1) = kData;
  EXPECT_EQ(exec({enc::lw(2, 1, 4), enc::sw(0, 1, 0), enc::s(0x23, 0, 1, 0, 8)}), Stop::stopped);
  EXPECT_EQ(exec({enc::sw(0, 1, 4)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::stack_overflow);
  EXPECT_EQ(hart.fault().addr, kData + 4);
  EXPECT_EQ(exec({enc::s(0x23, 0, 1, 0, 5)}), Stop::fault);  // sb into the word
  EXPECT_EQ(hart.fault().kind, FaultKind::stack_overflow);
}

// Tag instructions on the null guard or outside memory say what they did.
TEST_F(HartTest, TagAccessOutsideMemory) {
  x(1) = 0x10;
  EXPECT_EQ(exec({enc::r(0x0b, 3, 0, 0, 1, 2)}), Stop::fault);  // wtag x2, x1
  EXPECT_EQ(hart.fault().kind, FaultKind::tag_write_outside_memory);
  EXPECT_EQ(exec({enc::r(0x0b, 2, 0, 3, 1, 0)}), Stop::fault);  // rtag x3, x1
  EXPECT_EQ(hart.fault().kind, FaultKind::tag_read_outside_memory);
}

TEST_F(HartTest, IllegalInstructionAndRunningOffTheCode) {
  EXPECT_EQ(exec({0xffffffffu}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
  EXPECT_EQ(hart.instret, 0u);
  EXPECT_EQ(exec({enc::j(0, 64)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::fetch_outside_code);
  EXPECT_EQ(hart.fault().pc, kCode + 64);
  EXPECT_EQ(hart.instret, 1u);  // the jump retired; the fetch did not
  // Past the last instruction, without a jump (exec would end the code with `end`).
  memory.write32(kCode, enc::addi(1, 0, 1));
  memory.write32(kCode + 4, enc::addi(1, 1, 1));
  hart.set_code(kCode, 8);
  hart.pc = kCode;
  hart.instret = 0;
  EXPECT_EQ(hart.run(1u << 20), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::fetch_outside_code);
  EXPECT_EQ(hart.fault().pc, kCode + 8);
  EXPECT_EQ(hart.instret, 2u);
  EXPECT_EQ(x(1), 2u);
}

TEST_F(HartTest, EcallAndEbreakAreFaults) {
  EXPECT_EQ(exec({0x00000073}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::ecall);
  EXPECT_EQ(exec({0x00100073}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::breakpoint);
}

TEST_F(HartTest, CountersAndMachineRegisters) {
  hart.set_machine_info(7, 80, 16000);
  exec({enc::addi(1, 0, 1), enc::csrrs(2, isa::csr::cycle, 0), enc::csrrs(3, isa::csr::pe_id, 0),
        enc::csrrs(4, isa::csr::pe_count, 0), enc::csrrs(5, isa::csr::mem_bytes, 0),
        enc::csrrs(6, isa::csr::instret, 0)});
  EXPECT_EQ(x(2), 2u);  // cycles after addi and the csrrs itself
  EXPECT_EQ(x(3), 7u);
  EXPECT_EQ(x(4), 80u);
  EXPECT_EQ(x(5), kMem);
  EXPECT_EQ(x(6), 6u);
  // Writing a read-only CSR is an illegal instruction.
  EXPECT_EQ(exec({enc::csrrw(0, isa::csr::pe_id, 1)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
}

TEST_F(HartTest, RunStopsAtTheCycleLimitAndResumes) {
  // An endless loop: jal x0, 0
  memory.write32(kCode, enc::j(0, 0));
  hart.set_code(kCode, 4);
  hart.pc = kCode;
  EXPECT_EQ(hart.run(100), Stop::limit);
  EXPECT_EQ(hart.cycles, 100u);
  EXPECT_EQ(hart.run(250), Stop::limit);
  EXPECT_EQ(hart.cycles, 250u);
}

// Straight-line code is charged per segment (up to a control transfer or environment
// call): a fault inside one still leaves the clock and the count exact, and a run stops
// at a segment's end, where the clock is exact again.
TEST_F(HartTest, FaultInsideStraightLineCodeKeepsExactCounts) {
  x(1) = 0;  // lw from the null guard faults
  hart.cycles = 0;
  hart.instret = 0;
  EXPECT_EQ(exec({enc::addi(5, 0, 1), enc::addi(5, 5, 1), enc::lw(2, 1, 8), enc::addi(5, 5, 1),
                  enc::addi(5, 5, 1)}),
            Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::load_outside_memory);
  EXPECT_EQ(hart.fault().pc, kCode + 8);
  EXPECT_EQ(hart.instret, 2u);  // the two addi before it
  EXPECT_EQ(hart.cycles, 3u);   // and the faulting load's clock, charged at its fetch
  EXPECT_EQ(x(5), 2u);
}

TEST_F(HartTest, RunStopsAtTheEndOfStraightLineCode) {
  // Ten addi then a jump back: a limit inside the ten is passed, the jump is where it stops.
  std::vector<uint32_t> loop(10, enc::addi(5, 5, 1));
  loop.push_back(enc::j(0, -40));
  for (std::size_t k = 0; k < loop.size(); ++k) memory.write32(kCode + 4 * k, loop[k]);
  hart.set_code(kCode, static_cast<uint32_t>(4 * loop.size()));
  hart.pc = kCode;
  hart.cycles = 0;
  hart.instret = 0;
  x(5) = 0;
  EXPECT_EQ(hart.run(3), Stop::limit);
  EXPECT_EQ(hart.cycles, 11u);  // one segment: 10 + the jump
  EXPECT_EQ(hart.instret, 11u);
  EXPECT_EQ(hart.pc, kCode);
  EXPECT_EQ(x(5), 10u);
  EXPECT_EQ(hart.run(11), Stop::limit);  // already there: runs nothing
  EXPECT_EQ(hart.instret, 11u);
  // Entered in the middle, a segment is charged from there.
  hart.pc = kCode + 36;
  EXPECT_EQ(hart.run(12), Stop::limit);
  EXPECT_EQ(hart.cycles, 13u);
  EXPECT_EQ(hart.instret, 13u);
  EXPECT_EQ(x(5), 11u);
}

TEST_F(HartTest, MemoryPenaltyChargesMemoryReferences) {
  timing.memory_penalty = 1;  // EM-4
  iss::Hart em4(memory, timing);
  x(1) = kData;
  memory.write32(kCode, enc::lw(2, 1, 0));
  memory.write32(kCode + 4, enc::sw(2, 1, 4));
  memory.write32(kCode + 8, enc::kEnd);
  em4.set_code(kCode, 12);
  em4.x[1] = kData;
  em4.pc = kCode;
  em4.run(1000);
  EXPECT_EQ(em4.cycles, 5u);  // (1+1) + (1+1) + 1
}

// A tag access is a memory reference (isa/emcy.def): rtag costs a load's clocks and wtag
// a store's, the memory penalty included; `end` stays at pe.timing.thread. Interpreted
// and translated alike.
TEST_F(HartTest, TagAccessCostsALoadOrAStore) {
  const uint32_t code[] = {enc::addi(4, 0, 1), enc::addi(5, 0, 2),
                           enc::r(0x0b, 3, 0, 0, 1, 2),  // wtag x2, x1
                           enc::r(0x0b, 2, 0, 3, 1, 0),  // rtag x3, x1
                           enc::kEnd};
  auto run = [&](const iss::TimingConfig& t) {
    uint64_t cycles[2];
    for (bool translate : {false, true}) {
      iss::Hart h(memory, t);
      for (uint32_t k = 0; k < 5; ++k) memory.write32(kCode + 4 * k, code[k]);
      h.translate = translate && iss::kTranslationBuilt;
      h.translate_after = 0;
      h.set_code(kCode, 20);
      h.x[1] = kData;
      h.x[2] = 0x41;  // present, and a bit beyond the 6 tag bits
      h.pc = kCode;
      h.run(1000);
      EXPECT_EQ(h.x[3], 0x01u);
      EXPECT_EQ(h.instret, 5u);
      cycles[translate] = h.cycles - 2;  // less the two addi
      if (h.translate) EXPECT_NE(h.decoded_code()->translation->block(0), nullptr);
    }
    EXPECT_EQ(cycles[0], cycles[1]);
    return cycles[0];
  };
  iss::TimingConfig emx;  // EM-X: load = store = thread = 1, no penalty
  EXPECT_EQ(run(emx), 3u);
  iss::TimingConfig em4;
  em4.memory_penalty = 1;
  EXPECT_EQ(run(em4), 5u);  // (1+1) + (1+1) + 1
  iss::TimingConfig apart;  // each key seen apart
  apart.load = 3;
  apart.store = 5;
  apart.thread = 7;
  apart.memory_penalty = 2;
  EXPECT_EQ(run(apart), (5u + 2) + (3u + 2) + 7);
}

// EMC-Y's auto-increment load (isa/emcy.def): rd = mem[rs1], then rs1 += imm; one load's
// clock; rd wins when it is rs1; a faulting load changes no register; EM-4 lacks it.
TEST_F(HartTest, AutoIncrementLoad) {
  auto lwai = [](unsigned rd, unsigned rs1, int32_t imm) { return enc::i(0x7b, 2, rd, rs1, imm); };
  EXPECT_EQ(isa::disassemble(lwai(10, 11, 4), 0), "lw.ai a0, a1, 4");
  memory.write32(kData, 11);
  memory.write32(kData + 4, 22);
  memory.write32(kData + 8, 33);
  x(1) = kData;
  EXPECT_EQ(exec({lwai(2, 1, 4), lwai(3, 1, 4), lwai(4, 1, -4)}), Stop::stopped);
  EXPECT_EQ(x(2), 11u);
  EXPECT_EQ(x(3), 22u);
  EXPECT_EQ(x(4), 33u);
  EXPECT_EQ(x(1), kData + 4);
  EXPECT_EQ(hart.instret, 4u);  // with the `end`
  EXPECT_EQ(hart.cycles, 4u);
  x(1) = kData + 4;
  EXPECT_EQ(exec({lwai(1, 1, 4)}), Stop::stopped);  // rd = rs1: the loaded value
  EXPECT_EQ(x(1), 22u);
  x(1) = kData;
  EXPECT_EQ(exec({lwai(0, 1, 8)}), Stop::stopped);  // rd = x0: only the increment
  EXPECT_EQ(x(0), 0u);
  EXPECT_EQ(x(1), kData + 8);
  x(1) = kMem;
  EXPECT_EQ(exec({lwai(2, 1, 4)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::load_outside_memory);
  EXPECT_EQ(x(1), kMem);
  hart.features = ~isa::csr::kFeatureAutoIncrement;  // EM-4
  x(1) = kData;
  EXPECT_EQ(exec({lwai(2, 1, 4)}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
  EXPECT_EQ(x(1), kData);
}

// Packet types 8..15 take their register-relative send from custom-2 (isa/emcy.def); of
// them only sysrdw has one. EM-4 has no register-relative send at all.
TEST_F(HartTest, SysrdwHasARegisterRelativeSend) {
  const uint32_t w = enc::s(0x5b, static_cast<unsigned>(isa::PacketType::sysrdw) - 8, 11, 10, 3);
  ASSERT_NE(isa::lookup(w), nullptr);
  EXPECT_EQ(isa::lookup(w)->op, isa::Op::sendd_sysrdw);
  EXPECT_EQ(isa::disassemble(w, 0), "send.sysrdw a0, 3(a1)");
  EXPECT_EQ(isa::lookup(enc::s(0x5b, 0, 11, 10, 3)), nullptr);  // host: no such form
  hart.features = ~isa::csr::kFeatureSendDisplacement;  // EM-4
  EXPECT_EQ(exec({w}), Stop::fault);
  EXPECT_EQ(hart.fault().kind, FaultKind::illegal_instruction);
}

// A word no row matches decodes as Op::illegal, which has no row of its own: its info is a
// system instruction's (it ends its segment, is no environment instruction) and the
// rows' data is never read past the table's end (a translated block once called a null
// environment entry for an illegal lw.ai on EM-4, by whatever followed the table).
TEST(IsaTable, IllegalHasTheInfoOfASystemInstruction) {
  const isa::InsnInfo& i = isa::insn_info(isa::Op::illegal);
  EXPECT_EQ(i.op, isa::Op::illegal);
  EXPECT_EQ(i.tclass, isa::TimingClass::system);
  EXPECT_FALSE(isa::environment_class(i.tclass));
  EXPECT_FALSE(i.writes_xrd);
  EXPECT_EQ(isa::insn_count(), static_cast<std::size_t>(isa::Op::illegal));
}

}  // namespace
}  // namespace emx::test
