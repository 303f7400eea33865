#include "stats.h"

namespace emx::stats {

void Registry::counter(std::string path, const uint64_t* v) {
  entries_.push_back({std::move(path), [v] { return nlohmann::json(*v); }});
}

void Registry::value(std::string path, std::function<nlohmann::json()> f, std::string) {
  entries_.push_back({std::move(path), std::move(f)});
}

nlohmann::json Registry::dump() const {
  nlohmann::json out = nlohmann::json::object();
  for (const Entry& e : entries_) {
    // "pe.3.instructions" -> out["pe"]["3"]["instructions"]
    nlohmann::json* node = &out;
    std::size_t start = 0;
    for (std::size_t dot; (dot = e.path.find('.', start)) != std::string::npos; start = dot + 1)
      node = &(*node)[e.path.substr(start, dot - start)];
    (*node)[e.path.substr(start)] = e.get();
  }
  return out;
}

}  // namespace emx::stats
