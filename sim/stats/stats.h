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
  // Units and meanings are in the components' tables (Pe::stat_counters,
  // net::fabric_stat_docs), which emx stats --doc reads without a machine.
  void counter(std::string path, const uint64_t* value);
  // A computed value; `doc` says where its fields are documented.
  void value(std::string path, std::function<nlohmann::json()> compute, std::string doc);

  nlohmann::json dump() const;

 private:
  struct Entry {
    std::string path;
    std::function<nlohmann::json()> get;
  };
  std::vector<Entry> entries_;
};

}  // namespace emx::stats
