// Typed configuration. A component's config struct declares each key once:
//
//   template <class V> void visit(V& v) {
//     v.field("alu", alu, 1u, 1000u, "clocks of an integer ALU instruction");
//     v.group("timing", timing, "instruction costs");
//   }
//
// and three visitors read it from JSON (errors name the key path and what is allowed),
// write it back (the effective config in the statistics), and document it (docs/config.md).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace emx::config {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Text from the user as an error message quotes it: long text is cut, with its length.
inline std::string shorten(const std::string& s, std::size_t max = 60) {
  if (s.size() <= max) return s;
  return s.substr(0, max) + "... (" + std::to_string(s.size()) + " characters)";
}

// One allowed string value of an enum-like key.
template <class E>
struct Choice {
  const char* name;
  E value;
};

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, bool>) return "boolean";
  else if constexpr (std::is_floating_point_v<T>) return "number";
  else if constexpr (std::is_integral_v<T>) return "integer";
  else return "string";
}

// Fills a struct from JSON; every key must be known, typed and in range.
class Reader {
 public:
  Reader(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) fail(path_.empty() ? "config" : path_, "must be a JSON object");
  }

  template <class T>
  void field(const char* key, T& member, T lo, T hi, const char* /*doc*/) {
    const nlohmann::json* v = take(key);
    if (!v) return;
    const std::string where = at(key);
    if constexpr (std::is_same_v<T, bool>) {
      if (!v->is_boolean()) fail(where, "must be true or false");
      member = v->get<bool>();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v->is_number()) fail(where, "must be a number");
      const double d = v->get<double>();
      if (d < lo || d > hi) fail(where, range_text(d, lo, hi));
      member = static_cast<T>(d);
    } else if constexpr (std::is_integral_v<T>) {
      if (!v->is_number_integer() && !v->is_number_unsigned()) fail(where, "must be an integer");
      if (v->is_number_unsigned()) {
        const uint64_t u = v->get<uint64_t>();
        if (u > static_cast<uint64_t>(hi) || (lo > T(0) && u < static_cast<uint64_t>(lo)))
          fail(where, range_text(u, lo, hi));
        member = static_cast<T>(u);
      } else {
        const int64_t s = v->get<int64_t>();
        if (s < static_cast<int64_t>(lo) || s > static_cast<int64_t>(hi))
          fail(where, range_text(s, lo, hi));
        member = static_cast<T>(s);
      }
    }
  }

  void field(const char* key, std::string& member, const char* /*doc*/) {
    const nlohmann::json* v = take(key);
    if (!v) return;
    if (!v->is_string()) fail(at(key), "must be a string");
    member = v->get<std::string>();
  }

  template <class E, std::size_t N>
  void choice(const char* key, E& member, const Choice<E> (&choices)[N], const char* /*doc*/) {
    const nlohmann::json* v = take(key);
    if (!v) return;
    std::string allowed;
    for (const auto& c : choices) allowed += std::string(allowed.empty() ? "" : ", ") + c.name;
    if (v->is_string())
      for (const auto& c : choices)
        if (v->get<std::string>() == c.name) {
          member = c.value;
          return;
        }
    fail(at(key), "must be one of: " + allowed + " (got " +
                      (v->is_string() ? "\"" + shorten(v->get<std::string>()) + "\"" : shorten(v->dump())) +
                      ")");
  }

  template <class S>
  void group(const char* key, S& sub, const char* /*doc*/) {
    const nlohmann::json* v = take(key);
    if (!v) return;
    Reader r(*v, at(key));
    sub.visit(r);
    r.finish();
  }

  // Every key of the object must have been consumed by a field or group.
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key())) {
        std::string allowed;
        for (const auto& k : known_) allowed += std::string(allowed.empty() ? "" : ", ") + k;
        fail(at(shorten(it.key()).c_str()), "unknown key; allowed here: " + allowed);
      }
  }

 private:
  const nlohmann::json* take(const char* key) {
    known_.push_back(key);
    seen_.insert(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::string at(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  template <class V, class T>
  static std::string range_text(V got, T lo, T hi) {
    return "must be in [" + nlohmann::json(lo).dump() + ", " + nlohmann::json(hi).dump() +
           "] (got " + nlohmann::json(got).dump() + ")";
  }
  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw ConfigError("config key '" + where + "': " + what);
  }

  const nlohmann::json& j_;
  std::string path_;
  std::set<std::string> seen_;
  std::vector<std::string> known_;
};

// Writes the effective values (for the statistics JSON and `emx config --show`).
class Writer {
 public:
  template <class T>
  void field(const char* key, T& member, T, T, const char*) { out[key] = member; }
  void field(const char* key, std::string& member, const char*) { out[key] = member; }
  template <class E, std::size_t N>
  void choice(const char* key, E& member, const Choice<E> (&choices)[N], const char*) {
    for (const auto& c : choices)
      if (c.value == member) out[key] = c.name;
  }
  template <class S>
  void group(const char* key, S& sub, const char*) {
    Writer w;
    sub.visit(w);
    out[key] = std::move(w.out);
  }
  nlohmann::json out = nlohmann::json::object();
};

// Documents every key: path, type, default, allowed range, meaning (docs/config.md).
class Documenter {
 public:
  explicit Documenter(std::string path = "") : path_(std::move(path)) {}
  template <class T>
  void field(const char* key, T& member, T lo, T hi, const char* doc) {
    row(key, type_name<T>(), nlohmann::json(member).dump(),
        "[" + nlohmann::json(lo).dump() + ", " + nlohmann::json(hi).dump() + "]", doc);
  }
  void field(const char* key, std::string& member, const char* doc) {
    row(key, "string", nlohmann::json(member).dump(), "", doc);
  }
  template <class E, std::size_t N>
  void choice(const char* key, E& member, const Choice<E> (&choices)[N], const char* doc) {
    std::string allowed, def;
    for (const auto& c : choices) {
      allowed += std::string(allowed.empty() ? "" : ", ") + c.name;
      if (c.value == member) def = c.name;
    }
    row(key, "string", "\"" + def + "\"", allowed, doc);
  }
  template <class S>
  void group(const char* key, S& sub, const char* doc) {
    Documenter d(at(key));
    sub.visit(d);
    rows.push_back({at(key), "object", "", "", doc});
    rows.insert(rows.end(), d.rows.begin(), d.rows.end());
  }
  struct Row {
    std::string key, type, def, allowed, doc;
  };
  std::vector<Row> rows;

 private:
  std::string at(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  void row(const char* key, std::string type, std::string def, std::string allowed,
           const char* doc) {
    rows.push_back({at(key), std::move(type), std::move(def), std::move(allowed), doc});
  }
  std::string path_;
};

}  // namespace emx::config
