// Command-line parsing for `emx` (kept apart from main so the rules are testable).
#pragma once
#include <cstdint>
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
  std::string stats_text_file;  // flat "name value # meaning (unit)" listing
  bool quiet = false;
  std::string trace_file;      // Chrome/Perfetto JSON
  bool trace_text = false;     // event log on stderr
  std::string trace_window;    // "FROM:TO" in clocks, or with a "us" suffix
  std::string trace_pes;       // "0,3,8-11"
  std::string explore_file;    // the explorer page (HTML)
  std::string profile_file;    // instruction profile: "-" stderr, *.json JSON, else text
  std::string profile_pes;     // "0,3,8-11"; empty: every PE
  std::optional<uint64_t> profile_top;  // hottest instructions listed; 0: every one that ran
  std::optional<uint64_t> max_cycles;  // --max-cycles: sim.max_cycles
  double max_host_seconds = 0;         // --max-time: host wall time (0: none)
  std::string max_time_text;           // as given, for the report
  std::string program;
  std::vector<std::string> args;  // the program's own arguments
  std::vector<std::string> warnings;  // for stderr: emx options among the program's arguments
};

// Parses the words after `emx run`. Throws UsageError.
RunOptions parse_run_options(const std::vector<std::string>& words);

// Numbers on the command line; errors name the option and the text.
unsigned parse_pes(const std::string& text);                        // --pes: 1..1024
uint64_t parse_count(const std::string& option, const std::string& text);  // decimal
uint32_t parse_hex32(const std::string& option, const std::string& text);
double parse_duration(const std::string& option, const std::string& text);  // 10s, 2m, 1h

// Exit statuses of `emx run` (kMainHelp): the simulator's own are 64 and above, the
// program's exit code passes when it is 0..63 (MPI error codes, test verdicts); other
// codes give kExitProgramOther (the summary and statistics hold the code itself).
constexpr int kExitUsage = 64, kExitFault = 70, kExitDeadlock = 71, kExitTimeLimit = 72,
              kExitHostTimeLimit = 73, kExitOutput = 74, kExitProgramOther = 63;
constexpr int program_status(int code) {
  return code >= 0 && code <= 63 ? code : kExitProgramOther;
}

extern const char* const kMainHelp;
extern const char* const kRunHelp;

}  // namespace emx::cli
