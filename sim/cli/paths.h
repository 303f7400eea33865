// Where configs and built programs are found: next to the emx binary in a build tree,
// or under EMX_HOME when set.
#pragma once
#include <string>

namespace emx::cli {

std::string resolve_config(const std::string& name_or_path);  // "" -> the default config
std::string resolve_program(const std::string& name_or_path);
// An output file `option` names can be written (its directory exists and is writable,
// it is no directory itself); "" and "-" (stderr) are fine. Throws UsageError.
void check_writable(const std::string& option, const std::string& path);

}  // namespace emx::cli
