#include "config_file.h"

#include <fmt/format.h>

#include <filesystem>

#include "sim/host/bounded_read.h"

namespace emx::machine {
namespace {

// `over` is merged into `base` and then dropped: its values are moved, not copied.
void merge(nlohmann::json& base, nlohmann::json&& over) {
  for (auto it = over.begin(); it != over.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
      merge(base[it.key()], std::move(it.value()));
    else
      base[it.key()] = std::move(it.value());
  }
}

// `via`: the file whose "extends" names p ("" for the config itself), for errors.
nlohmann::json read_chain(const std::filesystem::path& p, int depth, const std::string& via) {
  if (depth > 8) throw config::ConfigError(p.string() + ": \"extends\" nests too deep (a cycle?)");
  const host::BoundedRead file = host::read_bounded(p.string(), kMaxConfigBytes, "config file");
  if (!file.error.empty())
    throw config::ConfigError((via.empty() ? "" : via + ": \"extends\" ") + p.string() + ": " +
                              file.error);
  nlohmann::json j = parse_config_text(file.data, p.string());
  if (!j.is_object()) throw config::ConfigError(p.string() + ": must hold a JSON object");
  if (!j.contains("extends")) return j;
  if (!j["extends"].is_string())
    throw config::ConfigError(p.string() + ": \"extends\" must name a config file");
  nlohmann::json base = read_chain(p.parent_path() / j["extends"].get<std::string>(), depth + 1, p.string());
  j.erase("extends");
  merge(base, std::move(j));
  return base;
}

}  // namespace

nlohmann::json parse_config_text(const std::string& text, const std::string& where) {
  // The depth is limited while parsing: the recursive copies, merges and dumps of the
  // document afterwards would otherwise overflow the host stack on deep input.
  std::string key;  // the last key seen, to say where a bad number is
  auto limit = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxConfigDepth)
      throw config::ConfigError(fmt::format("{}: nests deeper than {} levels", where,
                                            kMaxConfigDepth));
    if (event == E::key) key = config::shorten(parsed.get<std::string>());
    return true;
  };
  try {
    return nlohmann::json::parse(text, limit);
  } catch (const nlohmann::json::parse_error& e) {
    throw config::ConfigError(fmt::format("{}: not valid JSON: {}", where, e.what()));
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond double's range
    std::string what = e.what();
    what = what.substr(what.find(']') + 1);  // drop "[json.exception.out_of_range.406]"
    throw config::ConfigError(fmt::format("{}: {}{}", where,
                                          key.empty() ? "" : "the value of '" + key + "':",
                                          config::shorten(what)));
  }
}


nlohmann::json read_config_json(const std::string& path) { return read_chain(path, 0, ""); }

void apply_override(nlohmann::json& j, const std::string& a) {
  const auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0)
    throw config::ConfigError("--set " + config::shorten(a) +
                              ": expected key=value, e.g. pe.timing.mul=3");
  const std::string key = a.substr(0, eq), text = a.substr(eq + 1);
  const std::string where = "--set " + config::shorten(a);
  if (!j.is_object()) throw config::ConfigError(where + ": the config is not a JSON object");
  nlohmann::json value;
  try {
    value = parse_config_text(text, where);
  } catch (const config::ConfigError& e) {
    // Not JSON: a bare word is a string. Deep nesting or a number out of range is an error.
    if (std::string(e.what()).find(": not valid JSON:") == std::string::npos) throw;
    value = text;
  }
  nlohmann::json* node = &j;
  std::size_t start = 0;
  for (std::size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1) {
    node = &(*node)[key.substr(start, dot - start)];
    if (!node->is_object() && !node->is_null())
      throw config::ConfigError(where + ": " + config::shorten(key.substr(0, dot)) +
                                " is not a group");
  }
  (*node)[key.substr(start)] = value;
}

MachineConfig parse_config(const nlohmann::json& j) {
  MachineConfig c;
  config::Reader r(j, "");
  c.visit(r);
  r.finish();
  c.validate();
  return c;
}

void MachineConfig::validate() const {
  network.validate(pes);
  const uint32_t fw = pe.threads.frame_words;
  if (fw & (fw - 1))
    throw config::ConfigError(fmt::format(
        "config key 'pe.threads.frame_words': must be a power of two (got {})", fw));
  if (pe.memory_bytes % 4096)
    throw config::ConfigError(fmt::format(
        "config key 'pe.memory_bytes': must be a multiple of 4096 (got {})", pe.memory_bytes));
  if (pe.reserved_bytes % 4 || pe.reserved_bytes + mem::kGuardBytes + 4096 > pe.memory_bytes)
    throw config::ConfigError(fmt::format(
        "config key 'pe.reserved_bytes': must be a multiple of 4 and leave room for a program "
        "in pe.memory_bytes ({}) (got {})", pe.memory_bytes, pe.reserved_bytes));
}

nlohmann::json to_json(const MachineConfig& c) {
  config::Writer w;
  MachineConfig copy = c;  // visitors take members by reference
  copy.visit(w);
  return w.out;
}

std::string config_markdown() {
  MachineConfig defaults;
  config::Documenter d;
  defaults.visit(d);
  std::string s =
      "# Configuration keys (generated)\n\nGenerated by `emx config --doc` from the typed config "
      "structs; do not edit by hand.\nA config file is JSON; `\"extends\": \"other.json\"` starts "
      "from another file, and\n`emx run --set key=value` overrides any key. Unknown keys, wrong "
      "types and values out\nof range are errors that name the key.\n\n"
      "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const auto& r : d.rows)
    s += fmt::format("| `{}` | {} | {} | {} | {} |\n", r.key, r.type,
                     r.def.empty() ? "" : "`" + r.def + "`", r.allowed, r.doc);
  return s;
}

}  // namespace emx::machine
