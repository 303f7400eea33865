// The superinstructions of fused_pairs.def as data: set_code() gives the first entry of
// such a pair the pair's handler (execute.cpp makes one per row of the list).
#pragma once
#include <array>
#include <cstddef>

#include "isa/isa.h"

namespace emx::iss {

struct FusedPair {
  isa::Op first, second;
};
inline constexpr FusedPair kFusedPairs[] = {
#define FUSE(a, b) {isa::Op::a, isa::Op::b},
#include "fused_pairs.def"
#undef FUSE
};
inline constexpr std::size_t kFusedCount = sizeof kFusedPairs / sizeof kFusedPairs[0];
// By op: whether some pair begins with it (set_code looks for its pair only then).
inline constexpr auto kBeginsPair = [] {
  std::array<bool, isa::kOpCount> t{};
  for (const FusedPair& p : kFusedPairs) t[static_cast<std::size_t>(p.first)] = true;
  return t;
}();

}  // namespace emx::iss
