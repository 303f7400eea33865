#include "stats.h"

#include <string_view>

namespace emx::stats {

void Registry::counter(std::string path, const uint64_t* v) {
  entries_.push_back({std::move(path), [v] { return nlohmann::json(*v); }});
}

void Registry::value(std::string path, std::function<nlohmann::json()> f, std::string) {
  entries_.push_back({std::move(path), std::move(f)});
}

nlohmann::json Registry::dump() const {
  nlohmann::json out = nlohmann::json::object();
  // A component registers its counters one after another under one parent ("pe.3."):
  // the parent found for the last entry serves the next while the prefix is the same.
  std::string_view parent;
  nlohmann::json* node = nullptr;
  for (const Entry& e : entries_) {
    // "pe.3.instructions" -> out["pe"]["3"]["instructions"]
    const std::size_t last = e.path.rfind('.');
    const std::string_view prefix =
        last == std::string::npos ? std::string_view() : std::string_view(e.path).substr(0, last + 1);
    if (!node || prefix != parent) {
      node = &out;
      std::size_t start = 0;
      for (std::size_t dot; start < prefix.size() && (dot = e.path.find('.', start)) != std::string::npos;
           start = dot + 1)
        node = &(*node)[e.path.substr(start, dot - start)];
      parent = prefix;
    }
    (*node)[e.path.substr(prefix.size())] = e.get();
  }
  return out;
}

}  // namespace emx::stats
