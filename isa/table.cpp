// The table rows as data, and the word -> row lookup (bucketed by major opcode).
#include <array>
#include <cstring>
#include <vector>

#include "isa.h"

namespace emx::isa {
namespace {

constexpr bool first_operand_is_xrd(const char* ops) {
  return ops[0] == 'r' && ops[1] == 'd' && (ops[2] == ',' || ops[2] == '\0');
}
constexpr bool has_rm_operand(const char* ops) {
  for (const char* p = ops; *p; ++p)
    if (p[0] == 'r' && p[1] == 'm' && (p[2] == '\0' || p[2] == ',')) return true;
  return false;
}

const InsnInfo kTable[] = {
#define INSN(id, mn, match, mask, fmt, ops, cls, ...)                                      \
  {Op::id, mn, match, mask, Format::fmt, ops, TimingClass::cls, first_operand_is_xrd(ops), \
   has_rm_operand(ops)},
#include "insns.def"
#undef INSN
};
constexpr std::size_t kRows = sizeof(kTable) / sizeof(kTable[0]);
static_assert(kRows == static_cast<std::size_t>(Op::illegal), "one row per Op");

struct Buckets {
  std::array<std::vector<const InsnInfo*>, 128> by_opcode;
  Buckets() {
    for (const InsnInfo& i : kTable) by_opcode[i.match & 0x7f].push_back(&i);
  }
};
const Buckets& buckets() {
  static const Buckets b;
  return b;
}

}  // namespace

const InsnInfo* insn_table() { return kTable; }
std::size_t insn_count() { return kRows; }
// Op::illegal (a word no row matches) has no row in the table: it is timed and treated
// as a system instruction (it ends its segment and faults).
const InsnInfo& insn_info(Op op) {
  static constexpr InsnInfo kIllegal{Op::illegal, "illegal", 0, 0, Format::NONE, "",
                                     TimingClass::system, false, false};
  const auto i = static_cast<std::size_t>(op);
  return i < kRows ? kTable[i] : kIllegal;
}

const InsnInfo* lookup(uint32_t word) {
  for (const InsnInfo* i : buckets().by_opcode[word & 0x7f])
    if ((word & i->mask) == i->match) return i;
  return nullptr;
}

const char* timing_class_name(TimingClass c) {
  switch (c) {
#define X(n) \
  case TimingClass::n: return #n;
    EMX_TIMING_CLASSES(X)
#undef X
  }
  return "?";
}

const char* packet_type_name(PacketType t) {
  switch (t) {
#define PACKET_TYPE(id, val, sfx, disp, doc) \
  case PacketType::id: return sfx;
#include "packet_types.def"
#undef PACKET_TYPE
  }
  return "?";
}

const char* packet_type_doc(PacketType t) {
  switch (t) {
#define PACKET_TYPE(id, val, sfx, disp, doc) \
  case PacketType::id: return doc;
#include "packet_types.def"
#undef PACKET_TYPE
  }
  return "";
}

bool packet_type_valid(unsigned tag) {
  switch (tag) {
#define PACKET_TYPE(id, val, sfx, disp, doc) case val:
#include "packet_types.def"
#undef PACKET_TYPE
    return true;
  }
  return false;
}

}  // namespace emx::isa
