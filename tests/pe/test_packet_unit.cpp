// The matching unit and memory control unit, functionally: every packet type.
#include <gtest/gtest.h>

#include <random>
#include <vector>

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

// The SYSRD whose reply is a remote write: the word goes to the global address in the
// request's data as a SYSWR, no thread on either side.
TEST_F(PacketUnitTest, SysrdwRepliesAsARemoteWrite) {
  memory.write32(0x2000, 4321);
  const uint32_t dst = make_gaddr(6, 0x5008);
  const auto e = unit.accept(packet(PacketType::sysrdw, 0x2000, dst));
  EXPECT_FALSE(e.thread);
  ASSERT_TRUE(e.reply);
  EXPECT_EQ(e.reply->type, static_cast<uint8_t>(PacketType::syswr));
  EXPECT_EQ(e.reply->addr, dst);
  EXPECT_EQ(e.reply->data, 4321u);
  EXPECT_EQ(e.reply->dst, 6);
  EXPECT_EQ(e.reply->src, kPe);
  EXPECT_EQ(e.clocks, cfg.sysrd_clocks);
  EXPECT_EQ(unit.counters().sysrd, 1u);
  EXPECT_TRUE(may_reply(packet(PacketType::sysrdw, 0x2000, dst)));
  try {
    unit.accept(packet(PacketType::sysrdw, 0x2000, make_gaddr(100, 0x3000)));
    ADD_FAILURE() << "a reply address on a missing PE was accepted";
  } catch (const PacketError& x) {
    EXPECT_NE(std::string(x.what()).find("reply address 0x19000c00 names PE 100"),
              std::string::npos) << x.what();
  }
  cfg.direct_remote_access = false;  // EM-X' and EM-4: no memory unit to serve it
  try {
    unit.accept(packet(PacketType::sysrdw, 0x2000, dst));
    ADD_FAILURE() << "EM-X' served a sysrdw";
  } catch (const PacketError& x) {
    EXPECT_NE(std::string(x.what()).find("memory_unit.direct_remote_access"), std::string::npos)
        << x.what();
  }
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

// EM-4: a match and an I-structure access each read and write a word of memory, and
// every memory reference pays the machine's extra clock.
TEST_F(PacketUnitTest, MatchAndIStructurePayTheMemoryPenaltyPerReference) {
  PacketUnit em4(kPe, 8, memory, cfg, 1);
  EXPECT_EQ(unit.accept(packet(PacketType::invoke2l, 0x2100, 1)).clocks, cfg.match_clocks);
  EXPECT_EQ(em4.accept(packet(PacketType::invoke2r, 0x2100, 2)).clocks, cfg.match_clocks + 2);
  EXPECT_EQ(em4.accept(packet(PacketType::iwrite, 0x2400, 7)).clocks, cfg.istructure_clocks + 2);
  EXPECT_EQ(unit.accept(packet(PacketType::iread, 0x2400, make_gaddr(1, 0x3000))).clocks,
            cfg.istructure_clocks);
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


// Forwarded completion (rdbf): the words go to B as SYSWRs, then a SYSRD of B's last word
// whose reply address is the requester's continuation. The completion leaves with the last
// word, to B, so on the one A->B path it arrives after every word; B's memory unit, serving
// arrivals in order, answers the continuation only once the words are written.
class ForwardedBlockRead : public PacketUnitTest {
 protected:
  static constexpr unsigned kDst = 6;
  // A block of `words` from PE `from` (its unit and memory) at 0x2000 + 0x400 * tag to
  // kDst's 0x8000 + 0x400 * tag, completion to continuation `cont`, requested by `origin`.
  std::vector<net::Packet> request(PacketUnit& from, mem::LocalMemory& fm, unsigned from_pe,
                                   unsigned tag, uint32_t words, uint32_t cont, uint16_t origin) {
    for (uint32_t k = 0; k < words; ++k) fm.write32(0x2000 + 0x400 * tag + 4 * k, word(tag, k));
    from.accept(rdb(from_pe, tag, origin));
    const auto e = from.accept(rdbf(from_pe, words, cont, origin));
    return replies(e, fm, from_pe);
  }
  static uint32_t word(unsigned tag, uint32_t k) { return 0x1000 * (tag + 1) + k; }
  static uint32_t to(unsigned tag) { return make_gaddr(kDst, 0x8000 + 0x400 * tag); }
  net::Packet rdb(unsigned from_pe, unsigned tag, uint16_t origin) {
    net::Packet p = packet(PacketType::blockread, 0, to(tag), origin);
    p.addr = make_gaddr(from_pe, 0x2000 + 0x400 * tag);
    p.dst = static_cast<uint16_t>(from_pe);
    return p;
  }
  net::Packet rdbf(unsigned from_pe, uint32_t words, uint32_t cont, uint16_t origin) {
    net::Packet p = packet(PacketType::blockreadf, 0, cont, origin);
    p.addr = (from_pe << 22) | words;
    p.dst = static_cast<uint16_t>(from_pe);
    return p;
  }
  std::vector<net::Packet> replies(const PacketEffect& e, const mem::LocalMemory& fm,
                                   unsigned from_pe) {
    EXPECT_TRUE(e.block);
    std::vector<net::Packet> out;
    if (!e.block) return out;
    for (uint32_t k = 0; k <= e.block->words; ++k) {
      out.push_back(block_read_reply(*e.block, k, fm, from_pe));
      out.back().seq = block_read_reply_offset(*e.block, k, cfg);  // when it leaves
    }
    return out;
  }
  mem::LocalMemory dst_memory{64 * 1024};
  PacketUnit dst_unit{kDst, 8, dst_memory, cfg};
};

TEST_F(ForwardedBlockRead, CompletionIsASysrdBehindTheWordsAnsweredByTheDestination) {
  const uint32_t cont = make_gaddr(2, 0x3004);  // the requester, a third PE
  const auto out = request(unit, memory, kPe, 0, 5, cont, 2);
  ASSERT_EQ(out.size(), 6u);
  for (uint32_t k = 0; k < 5; ++k) {
    EXPECT_EQ(out[k].type, static_cast<uint8_t>(PacketType::syswr));
    EXPECT_EQ(out[k].addr, to(0) + k);
    EXPECT_EQ(out[k].dst, kDst);
  }
  const net::Packet& c = out[5];
  EXPECT_EQ(c.type, static_cast<uint8_t>(PacketType::sysrd));
  EXPECT_EQ(c.addr, to(0) + 4);  // the last destination word, on the destination's PE
  EXPECT_EQ(c.dst, kDst);        // same path as the words
  EXPECT_EQ(c.data, cont);
  EXPECT_EQ(c.seq, out[4].seq);  // leaves with the last word, behind it
  // At the destination, in arrival order: the reply goes to the requester once the
  // words are in memory, carrying the last one.
  for (uint32_t k = 0; k < 5; ++k) EXPECT_FALSE(dst_unit.accept(out[k]).reply);
  const auto done = dst_unit.accept(c);
  ASSERT_TRUE(done.reply);
  EXPECT_EQ(done.reply->type, static_cast<uint8_t>(PacketType::invoke1));
  EXPECT_EQ(done.reply->addr, cont);
  EXPECT_EQ(done.reply->dst, 2);
  EXPECT_EQ(done.reply->data, word(0, 4));
  for (uint32_t k = 0; k < 5; ++k) EXPECT_EQ(dst_memory.read32(0x8000 + 4 * k), word(0, k));
  EXPECT_EQ(done.clocks, cfg.sysrd_clocks);
  EXPECT_EQ(unit.counters().block_reads, 1u);
  EXPECT_EQ(dst_unit.counters().sysrd, 1u);
}

TEST_F(ForwardedBlockRead, RequestsOfSeveralOriginsAtOneSourceKeepTheirOwnCompletions) {
  // Origins 1, 2 and 5 latch their rdb packets, then their rdbf packets arrive in another
  // order: each block goes where its rdb said and answers its own origin.
  const uint16_t origins[3] = {1, 2, 5};
  for (unsigned i = 0; i < 3; ++i)
    for (uint32_t k = 0; k < 3 + i; ++k) memory.write32(0x2000 + 0x400 * i + 4 * k, word(i, k));
  for (unsigned i = 0; i < 3; ++i) unit.accept(rdb(kPe, i, origins[i]));
  for (unsigned i : {2u, 0u, 1u}) {
    const uint32_t cont = make_gaddr(origins[i], 0x3000 + 4 * i);
    const auto out = replies(unit.accept(rdbf(kPe, 3 + i, cont, origins[i])), memory, kPe);
    ASSERT_EQ(out.size(), 4u + i);
    EXPECT_EQ(out.front().addr, to(i));
    EXPECT_EQ(out.front().data, word(i, 0));
    EXPECT_EQ(out.back().addr, to(i) + 2 + i);
    EXPECT_EQ(out.back().data, cont);
  }
  EXPECT_EQ(unit.counters().block_reads, 3u);
  EXPECT_EQ(unit.counters().block_words, 3u + 4u + 5u);
}

TEST_F(ForwardedBlockRead, BlocksOfSeveralSourcesIntoOneDestinationCompleteAfterTheirOwnData) {
  // Sources PE 3 and PE 4 send blocks to PE 6 for origins 1 and 2. The network keeps
  // each source's packets in order but may interleave the two streams any way: in every
  // interleaving, each completion is answered when its own words are in place.
  mem::LocalMemory other_memory(64 * 1024);
  PacketUnit other(4, 8, other_memory, cfg);
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    mem::LocalMemory b(64 * 1024);
    PacketUnit at_b(kDst, 8, b, cfg);
    const uint32_t words0 = 1 + rng() % 9, words1 = 1 + rng() % 9;
    const std::vector<net::Packet> s[2] = {
        request(unit, memory, kPe, 0, words0, make_gaddr(1, 0x3000), 1),
        request(other, other_memory, 4, 1, words1, make_gaddr(2, 0x3000), 2)};
    size_t next[2] = {0, 0};
    unsigned answered = 0;
    while (next[0] < s[0].size() || next[1] < s[1].size()) {
      const unsigned i = next[0] == s[0].size() ? 1 : next[1] == s[1].size() ? 0 : rng() % 2;
      const auto e = at_b.accept(s[i][next[i]++]);
      if (!e.reply) continue;
      ++answered;
      ASSERT_EQ(next[i], s[i].size()) << "only the completion replies";
      EXPECT_EQ(e.reply->dst, i + 1);
      for (uint32_t k = 0; k + 1 < s[i].size(); ++k)
        ASSERT_EQ(b.read32(0x8000 + 0x400 * i + 4 * k), word(i, k)) << "round " << round;
    }
    EXPECT_EQ(answered, 2u);
  }
}

TEST_F(ForwardedBlockRead, BadRequestsAreErrorsNamingThePacket) {
  try {
    unit.accept(rdbf(kPe, 1, make_gaddr(1, 0x3000), 1));
    FAIL() << "no error";
  } catch (const PacketError& e) {
    EXPECT_NE(std::string(e.what()).find("rdbf packet without its rdb packet"), std::string::npos)
        << e.what();
  }
  unit.accept(rdb(kPe, 0, 1));
  try {
    unit.accept(rdbf(kPe, 1, 0, 1));
    FAIL() << "no error";
  } catch (const PacketError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a continuation"), std::string::npos) << e.what();
  }
  unit.accept(rdb(kPe, 0, 1));
  EXPECT_THROW(unit.accept(rdbf(kPe, 1, make_gaddr(100, 0x3000), 1)), PacketError);  // PE 100 of 8
}

}  // namespace
}  // namespace emx::pe
