// Reading a machine config: a JSON file (which may "extends" another, relative to it),
// then --set overrides, then validation into the typed MachineConfig.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "machine_config.h"

namespace emx::machine {

// Config documents nest at most this deep (the keys nest 3 levels): deeper input is an
// error at parse time, so no later recursion over the document can overflow the stack.
constexpr int kMaxConfigDepth = 64;
// A config file (or "extends" base) is a regular file of at most this size (the committed
// ones are a few KiB): /dev/urandom, a FIFO or a huge file is an error, not read on.
constexpr std::size_t kMaxConfigBytes = 4u << 20;
// Parses JSON text; errors (bad JSON, nesting, numbers out of range) name `where`.
nlohmann::json parse_config_text(const std::string& text, const std::string& where);
// The JSON of `path` with its "extends" chain merged in (the file's own keys win).
nlohmann::json read_config_json(const std::string& path);
// Applies "a.b.c=value"; value is JSON (number, true, "text") or else a bare string.
void apply_override(nlohmann::json& j, const std::string& assignment);
// JSON -> typed config; throws config::ConfigError naming the key.
MachineConfig parse_config(const nlohmann::json& j);
nlohmann::json to_json(const MachineConfig& c);
// Markdown table of every key (docs/config.md).
std::string config_markdown();

}  // namespace emx::machine
