// Command-line parsing for `emx` (kept apart from main so the rules are testable).
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace emx::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::string config;  // path or short name ("em4" -> configs/em4.json); empty: default
  std::vector<std::string> sets;
  std::optional<unsigned> pes;
  std::string stats_file;
  bool quiet = false;
  std::string trace_file;      // Chrome/Perfetto JSON
  bool trace_text = false;     // event log on stderr
  std::string trace_window;    // "FROM:TO" in clocks, or with a "us" suffix
  std::string trace_pes;       // "0,3,8-11"
  std::string profile_file;    // instruction profile: "-" stderr, *.json JSON, else text
  std::string profile_pes;     // "0,3,8-11"; empty: every PE
  std::string program;
  std::vector<std::string> args;  // the program's own arguments
};

// Parses the words after `emx run`. Throws UsageError.
RunOptions parse_run_options(const std::vector<std::string>& words);

extern const char* const kMainHelp;
extern const char* const kRunHelp;

}  // namespace emx::cli
