// The superinstructions of fused_pairs.def as data: set_code() gives the first entry of
// such a pair the pair's handler (execute.cpp makes one per row of the list).
#pragma once
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

}  // namespace emx::iss
