// One field of emx's statistics, for their documentation (emx stats --doc, docs/stats.md)
// and the flat listing (emx run --stats-text): its path in the --stats JSON, with "N" for
// every PE number and "[]" for every element of a list, its unit and meaning.
#pragma once
#include <string>

namespace emx::stats {

struct FieldDoc {
  std::string path;
  std::string unit;
  std::string meaning;
};

}  // namespace emx::stats
