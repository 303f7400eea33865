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

}  // namespace
}  // namespace emx::pe
