// The matching unit and memory control unit, functionally: every packet type.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "sim/pe/packet_unit.h"

namespace emx::pe {
namespace {

using isa::PacketType;

class PacketUnitTest : public ::testing::Test {
 protected:
  static constexpr unsigned kPe = 3;
  PacketUnitTest() : memory(64 * 1024), unit(kPe, 8, memory, cfg) {}

  net::Packet packet(PacketType t, uint32_t local, uint32_t data, uint16_t src = 1) {
    net::Packet p;
    p.type = static_cast<uint8_t>(t);
    p.addr = make_gaddr(kPe, local);
    p.data = data;
    p.src = src;
    p.dst = kPe;
    return p;
  }

  MemoryUnitConfig cfg;
  mem::LocalMemory memory;
  PacketUnit unit;
};

TEST_F(PacketUnitTest, SyswrWritesMemoryWithoutAThread) {
  const auto e = unit.accept(packet(PacketType::syswr, 0x2000, 0xdeadbeef));
  EXPECT_EQ(memory.read32(0x2000), 0xdeadbeefu);
  EXPECT_FALSE(e.thread);
  EXPECT_FALSE(e.reply);
  EXPECT_EQ(e.clocks, cfg.syswr_clocks);
}

TEST_F(PacketUnitTest, SysrdRepliesToTheContinuation) {
  memory.write32(0x2000, 1234);
  const uint32_t cont = make_gaddr(5, 0x3004);
  const auto e = unit.accept(packet(PacketType::sysrd, 0x2000, cont));
  ASSERT_TRUE(e.reply);
  EXPECT_EQ(e.reply->addr, cont);
  EXPECT_EQ(e.reply->data, 1234u);
  EXPECT_EQ(e.reply->dst, 5);
  EXPECT_EQ(e.reply->src, kPe);
  EXPECT_EQ(e.reply->type, static_cast<uint8_t>(PacketType::invoke1));
}

TEST_F(PacketUnitTest, WithoutDirectAccessSysWrAndRdBecomeHandlerThreads) {
  cfg.direct_remote_access = false;  // EM-X' and EM-4
  auto w = unit.accept(packet(PacketType::syswr, 0x2000, 7));
  ASSERT_TRUE(w.thread);
  EXPECT_EQ(w.thread->kind, ThreadToken::Kind::twrite);
  EXPECT_EQ(memory.read32(0x2000), 0u);  // the handler thread will write it
  auto r = unit.accept(packet(PacketType::sysrd, 0x2000, 9));
  ASSERT_TRUE(r.thread);
  EXPECT_EQ(r.thread->kind, ThreadToken::Kind::tread);
}

TEST_F(PacketUnitTest, TwoInputMatchingInEitherOrder) {
  for (bool left_first : {true, false}) {
    const uint32_t slot = left_first ? 0x2100 : 0x2200;
    const auto first = left_first ? PacketType::invoke2l : PacketType::invoke2r;
    const auto second = left_first ? PacketType::invoke2r : PacketType::invoke2l;
    auto a = unit.accept(packet(first, slot, left_first ? 10 : 20));
    EXPECT_FALSE(a.thread);
    EXPECT_EQ(unit.operands_waiting(), 1u);
    auto b = unit.accept(packet(second, slot, left_first ? 20 : 10));
    ASSERT_TRUE(b.thread);
    EXPECT_EQ(b.thread->op0, 10u);  // left
    EXPECT_EQ(b.thread->op1, 20u);  // right
    EXPECT_EQ(b.thread->cont, make_gaddr(kPe, slot));
    EXPECT_EQ(unit.operands_waiting(), 0u);
    EXPECT_EQ(memory.tag(slot), tag::kEmpty);  // the slot is free for the next pair
  }
}

TEST_F(PacketUnitTest, TwoOperandsOfTheSameSideAreAnError) {
  unit.accept(packet(PacketType::invoke2l, 0x2100, 1));
  EXPECT_THROW(
      {
        try {
          unit.accept(packet(PacketType::invoke2l, 0x2100, 2));
        } catch (const PacketError& e) {
          EXPECT_NE(std::string(e.what()).find("already holds a left operand"), std::string::npos);
          throw;
        }
      },
      PacketError);
}

TEST_F(PacketUnitTest, IStructureReadAfterWrite) {
  unit.accept(packet(PacketType::iwrite, 0x2400, 77));
  EXPECT_EQ(memory.tag(0x2400), tag::kIsPresent);
  const uint32_t cont = make_gaddr(1, 0x3000);
  auto r = unit.accept(packet(PacketType::iread, 0x2400, cont));
  ASSERT_TRUE(r.reply);
  EXPECT_EQ(r.reply->data, 77u);
  EXPECT_EQ(r.reply->addr, cont);
  EXPECT_EQ(memory.tag(0x2400), tag::kEmpty);  // read-once, as on EM-X
}

TEST_F(PacketUnitTest, IStructureReadBeforeWriteIsDeferred) {
  const uint32_t cont = make_gaddr(2, 0x3010);
  auto r = unit.accept(packet(PacketType::iread, 0x2400, cont));
  EXPECT_FALSE(r.reply);
  EXPECT_EQ(unit.readers_waiting(), 1u);
  auto w = unit.accept(packet(PacketType::iwrite, 0x2400, 99));
  ASSERT_TRUE(w.reply);
  EXPECT_EQ(w.reply->addr, cont);
  EXPECT_EQ(w.reply->data, 99u);
  EXPECT_EQ(w.reply->dst, 2);
  EXPECT_EQ(unit.readers_waiting(), 0u);
}

TEST_F(PacketUnitTest, IStructureWrittenTwiceIsAnError) {
  unit.accept(packet(PacketType::iwrite, 0x2400, 1));
  EXPECT_THROW(unit.accept(packet(PacketType::iwrite, 0x2400, 2)), PacketError);
}

TEST_F(PacketUnitTest, AddressOutsideMemoryIsAnErrorNamingThePacket) {
  try {
    unit.accept(packet(PacketType::syswr, 0x0, 1, 6));
    FAIL();
  } catch (const PacketError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("syswr packet from endpoint 6"), std::string::npos) << m;
    EXPECT_NE(m.find("outside PE 3's memory"), std::string::npos) << m;
  }
}

TEST_F(PacketUnitTest, ReplyToAMissingPeIsAnError) {
  EXPECT_THROW(unit.accept(packet(PacketType::sysrd, 0x2000, make_gaddr(100, 0x3000))), PacketError);
}

TEST_F(PacketUnitTest, InvocationsBecomeThreads) {
  auto a = unit.accept(packet(PacketType::invoke1, 0x2104, 5));
  ASSERT_TRUE(a.thread);
  EXPECT_EQ(a.thread->kind, ThreadToken::Kind::invoke);
  EXPECT_EQ(a.thread->op0, 5u);
  auto s = unit.accept(packet(PacketType::special, 0x2104, 6));
  ASSERT_TRUE(s.thread);
  EXPECT_EQ(s.thread->kind, ThreadToken::Kind::special);
}

// Block remote read: rdb latches source and destination, rdbn brings count and
// completion; the effect names the block, whose replies are one SYSWR per word then an
// iwr of the count, all leaving one per block_word_clocks.
TEST_F(PacketUnitTest, BlockReadSendsEachWordAsSyswrThenTheCompletion) {
  for (uint32_t k = 0; k < 5; ++k) memory.write32(0x2000 + 4 * k, 100 + k);
  const uint32_t to = make_gaddr(6, 0x8000), done = make_gaddr(6, 0x9000);
  const auto a = unit.accept(packet(PacketType::blockread, 0x2000, to));
  EXPECT_FALSE(a.block);
  EXPECT_FALSE(a.reply);
  EXPECT_EQ(a.clocks, cfg.block_read_clocks);
  net::Packet n = packet(PacketType::blockreadn, 0, done);
  n.addr = (kPe << 22) | 5;  // 5 words
  const auto e = unit.accept(n);
  ASSERT_TRUE(e.block);
  EXPECT_FALSE(e.thread);
  EXPECT_EQ(e.block->words, 5u);
  EXPECT_EQ(e.clocks, cfg.block_read_clocks + 5 * cfg.block_word_clocks);
  for (uint32_t k = 0; k <= 5; ++k) {
    const net::Packet r = block_read_reply(*e.block, k, memory, kPe);
    EXPECT_EQ(r.src, kPe);
    EXPECT_EQ(r.dst, 6);
    if (k < 5) {
      EXPECT_EQ(r.type, static_cast<uint8_t>(PacketType::syswr));
      EXPECT_EQ(r.addr, to + k);
      EXPECT_EQ(r.data, 100 + k);
      EXPECT_EQ(block_read_reply_offset(*e.block, k, cfg),
                cfg.block_read_clocks + (k + 1) * cfg.block_word_clocks);
    } else {  // the completion, with (after) the last word
      EXPECT_EQ(r.type, static_cast<uint8_t>(PacketType::iwrite));
      EXPECT_EQ(r.addr, done);
      EXPECT_EQ(r.data, 5u);
      EXPECT_EQ(block_read_reply_offset(*e.block, k, cfg), block_read_reply_offset(*e.block, 4, cfg));
    }
  }
  EXPECT_EQ(unit.counters().block_reads, 1u);
  EXPECT_EQ(unit.counters().block_words, 5u);
}

TEST_F(PacketUnitTest, BlockReadRequestsOfDifferentRequestersInterleave) {
  memory.write32(0x2000, 1);
  memory.write32(0x3000, 2);
  unit.accept(packet(PacketType::blockread, 0x2000, make_gaddr(1, 0x100), 1));
  unit.accept(packet(PacketType::blockread, 0x3000, make_gaddr(2, 0x200), 2));
  net::Packet n2 = packet(PacketType::blockreadn, 0, 0, 2);
  n2.addr = (kPe << 22) | 1;
  const auto e2 = unit.accept(n2);
  net::Packet n1 = packet(PacketType::blockreadn, 0, 0, 1);
  n1.addr = (kPe << 22) | 1;
  const auto e1 = unit.accept(n1);
  EXPECT_EQ(block_read_reply(*e1.block, 0, memory, kPe).data, 1u);
  EXPECT_EQ(block_read_reply(*e1.block, 0, memory, kPe).addr, make_gaddr(1, 0x100));
  EXPECT_EQ(block_read_reply(*e2.block, 0, memory, kPe).data, 2u);
  EXPECT_EQ(block_read_reply(*e2.block, 0, memory, kPe).addr, make_gaddr(2, 0x200));
}

TEST_F(PacketUnitTest, BadBlockReadsAreErrorsNamingThePacket) {
  net::Packet n = packet(PacketType::blockreadn, 0, 0);
  n.addr = (kPe << 22) | 4;
  EXPECT_THROW(unit.accept(n), PacketError);  // no rdb before
  unit.accept(packet(PacketType::blockread, 0x2000, make_gaddr(1, 0)));
  EXPECT_THROW(unit.accept(packet(PacketType::blockread, 0x2000, make_gaddr(1, 0))), PacketError);
  n.addr = (kPe << 22) | 0x100000;  // 4 MiB of words: past the 64 KiB memory
  try {
    unit.accept(n);
    FAIL() << "no error";
  } catch (const PacketError& e) {
    EXPECT_NE(std::string(e.what()).find("outside PE 3's memory"), std::string::npos) << e.what();
  }
  unit.accept(packet(PacketType::blockread, 0x2000, make_gaddr(100, 0)));
  n.addr = (kPe << 22) | 1;
  EXPECT_THROW(unit.accept(n), PacketError);  // destination PE 100 of 8
  cfg.direct_remote_access = false;
  EXPECT_THROW(unit.accept(packet(PacketType::blockread, 0x2000, make_gaddr(1, 0))), PacketError);
}

}  // namespace
}  // namespace emx::pe
