// Thread dispatch: frames and templates, special handlers, register conventions.
#include <gtest/gtest.h>

#include "sim/pe/dispatcher.h"

namespace emx::pe {
namespace {

class DispatcherTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kCode = 0x1000, kFrame = 0x4000, kTemplate = 0x3000;
  DispatcherTest() : memory(64 * 1024), hart(memory, timing), d(2, cfg, 0xf000) {
    hart.set_code(kCode, 0x100);
    ThreadEntries e;
    e.thread_end = 0x10f0;
    e.twrite_handler = 0x1080;
    d.set_entries(e);
    memory.write32(kFrame, kTemplate);         // frame word 0 -> template
    memory.write32(kTemplate + 4 * 3, 0x1040);  // slot 3 starts at 0x1040
  }
  ThreadConfig cfg;  // 32-word frames
  iss::TimingConfig timing;
  mem::LocalMemory memory;
  iss::Hart hart;
  Dispatcher d;
};

TEST_F(DispatcherTest, InvocationStartsAtTheTemplateEntryOfItsSlot) {
  ThreadToken t;
  t.cont = make_gaddr(2, kFrame + 12);
  t.op0 = 11;
  t.op1 = 22;
  EXPECT_EQ(d.start(hart, t), cfg.dispatch_clocks);
  EXPECT_EQ(hart.pc, 0x1040u);
  EXPECT_EQ(hart.x[10], 11u);   // a0
  EXPECT_EQ(hart.x[11], 22u);   // a1
  EXPECT_EQ(hart.x[12], t.cont);  // a2
  EXPECT_EQ(hart.x[4], kFrame);   // tp
  EXPECT_EQ(hart.x[2], 0xf000u);  // sp
  EXPECT_EQ(hart.x[1], 0x10f0u);  // ra = __emx_thread_end
}

// EM-4: the template pointer and the entry are two memory reads, each paying the
// machine's extra clock per memory reference.
TEST_F(DispatcherTest, DispatchPaysTheMemoryPenaltyOnItsTwoReads) {
  Dispatcher em4(2, cfg, 0xf000, 1);
  em4.set_entries(ThreadEntries{0x10f0, 0x1080, 0});
  ThreadToken t;
  t.cont = make_gaddr(2, kFrame + 12);
  EXPECT_EQ(em4.start(hart, t), cfg.dispatch_clocks + 2);
  EXPECT_EQ(hart.pc, 0x1040u);
  t.kind = ThreadToken::Kind::twrite;
  EXPECT_EQ(em4.start(hart, t), cfg.dispatch_clocks + 2);
  EXPECT_EQ(hart.pc, 0x1080u);
}

TEST_F(DispatcherTest, SlotZeroAndBadTemplatesAreErrors) {
  ThreadToken t;
  t.cont = make_gaddr(2, kFrame);
  EXPECT_THROW(d.start(hart, t), PacketError);
  t.cont = make_gaddr(2, kFrame + 8);  // template entry 2 is 0: not code
  try {
    d.start(hart, t);
    FAIL();
  } catch (const PacketError& e) {
    EXPECT_NE(std::string(e.what()).find("which is not code"), std::string::npos) << e.what();
  }
}

// start() reads an invocation's and a special handler's entry inline; whatever is wrong
// on the way gives entry_of's error, and the registers are not set up.
TEST_F(DispatcherTest, EveryWrongStepOfTheInlineEntriesIsEntryOfsError) {
  auto error = [&](const ThreadToken& t) -> std::string {
    hart.pc = 0x1234;
    try {
      d.start(hart, t);
    } catch (const PacketError& e) {
      EXPECT_EQ(hart.pc, 0x1234u);
      std::string what = e.what();
      try {  // the same text as entry_of's own
        d.entry_of(hart, t);
      } catch (const PacketError& again) {
        EXPECT_EQ(what, std::string(again.what()));
      }
      return what;
    }
    return "no error";
  };
  ThreadToken t;
  t.cont = make_gaddr(2, kFrame + 12);
  memory.write32(kTemplate + 12, 0x1042);  // misaligned entry
  EXPECT_NE(error(t).find("gives entry 0x00001042, which is not code"), std::string::npos);
  memory.write32(kTemplate + 12, 0x1100);  // just past the code
  EXPECT_NE(error(t).find("gives entry 0x00001100, which is not code"), std::string::npos);
  memory.write32(kTemplate + 12, 0x1040);
  memory.write32(kFrame, kTemplate + 2);  // misaligned template pointer
  EXPECT_NE(error(t).find("which is not a table in memory"), std::string::npos);
  memory.write32(kFrame, 0xfffffff0);  // a table past the end of memory
  EXPECT_NE(error(t).find("which is not a table in memory"), std::string::npos);
  memory.write32(kFrame, kTemplate);
  t.cont = make_gaddr(2, 0x10000 + 12);  // a frame past the end of memory
  EXPECT_NE(error(t).find("its frame lies outside local memory"), std::string::npos);
  t.cont = make_gaddr(2, kFrame + 12);
  EXPECT_EQ(error(t), "no error");
  EXPECT_EQ(hart.pc, 0x1040u);
  EXPECT_EQ(hart.x[4], kFrame);

  t.kind = ThreadToken::Kind::special;
  t.cont = (7u << 16) | 1;
  EXPECT_NE(error(t).find("no handler table"), std::string::npos);
  hart.handler_table = 0xfff0;  // entry 7 at 0x1000c: past the end of memory
  EXPECT_NE(error(t).find("lies outside local memory"), std::string::npos);
  hart.handler_table = 0x800;  // in the null guard, though the word there names code
  memory.write32(0x800 + 4 * 7, 0x1044);
  EXPECT_NE(error(t).find("lies outside local memory"), std::string::npos);
  t.kind = ThreadToken::Kind::invoke;  // the same for a frame and a template
  t.cont = make_gaddr(2, 0x800 + 12);
  memory.write32(0x800, kTemplate);
  EXPECT_NE(error(t).find("its frame lies outside local memory"), std::string::npos);
  t.cont = make_gaddr(2, kFrame + 12);
  memory.write32(kFrame, 0x800);
  memory.write32(0x800 + 12, 0x1040);
  EXPECT_NE(error(t).find("which is not a table in memory"), std::string::npos);
  memory.write32(kFrame, kTemplate);
  t.kind = ThreadToken::Kind::special;
  t.cont = (7u << 16) | 1;
  hart.handler_table = 0x3800;
  memory.write32(0x3800 + 4 * 7, 0x0ffc);  // just before the code
  EXPECT_NE(error(t).find("the special-handler table gives entry 0x00000ffc"), std::string::npos);
  memory.write32(0x3800 + 4 * 7, 0x1044);
  EXPECT_EQ(error(t), "no error");
  EXPECT_EQ(hart.pc, 0x1044u);
  EXPECT_EQ(hart.x[11], 1u);
}

TEST_F(DispatcherTest, SpecialHandlersComeFromTheHandlerTable) {
  ThreadToken t;
  t.kind = ThreadToken::Kind::special;
  t.cont = make_gaddr(2, 0) | (5u << 16) | 0x1234;
  EXPECT_THROW(d.start(hart, t), PacketError);  // no table registered yet
  hart.handler_table = 0x3800;
  memory.write32(0x3800 + 4 * 5, 0x1060);
  d.start(hart, t);
  EXPECT_EQ(hart.pc, 0x1060u);
  EXPECT_EQ(hart.x[11], 0x1234u);  // the 16-bit argument
  EXPECT_EQ(hart.x[4], 0u);        // no frame
}

TEST_F(DispatcherTest, HandlerThreadsNeedTheRuntimeSymbols) {
  ThreadToken t;
  t.kind = ThreadToken::Kind::twrite;
  d.start(hart, t);
  EXPECT_EQ(hart.pc, 0x1080u);
  t.kind = ThreadToken::Kind::tread;  // no __emx_handler_tread
  EXPECT_THROW(d.start(hart, t), PacketError);
}

}  // namespace
}  // namespace emx::pe
