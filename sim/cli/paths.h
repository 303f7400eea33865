// Where configs and built programs are found: next to the emx binary in a build tree,
// or under EMX_HOME when set.
#pragma once
#include <string>

namespace emx::cli {

std::string resolve_config(const std::string& name_or_path);  // "" -> the default config
std::string resolve_program(const std::string& name_or_path);

}  // namespace emx::cli
