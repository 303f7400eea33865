// The statistics registry: components register named counters (read through a pointer
// when the statistics are dumped, so counting costs nothing extra while running) and
// computed values. Names are dotted paths ("pe.3.instructions") and dump as nested JSON.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace emx::stats {

class Registry {
 public:
  void counter(std::string path, const uint64_t* value, std::string doc);
  void value(std::string path, std::function<nlohmann::json()> compute, std::string doc);

  nlohmann::json dump() const;
  // "path: meaning" lines, for docs/statistics.md.
  std::vector<std::pair<std::string, std::string>> documentation() const;

 private:
  struct Entry {
    std::string path;
    std::function<nlohmann::json()> get;
    std::string doc;
  };
  std::vector<Entry> entries_;
};

}  // namespace emx::stats
