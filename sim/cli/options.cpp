#include "options.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdint>
#include <optional>

namespace emx::cli {

const char* const kMainHelp = R"(emx - a cycle-approximate simulator of the EM-X parallel computer

usage: emx COMMAND [options]

commands:
  run PROGRAM [args]   run a program on the simulated machine (emx run --help)
  demo                 the default demonstration: `emx run demo` on the default machine
  config --doc         print every config key with its default and meaning (docs/config.md)
  config --show [--config FILE] [--set key=value ...] [--pes N]
                       print the effective configuration as JSON
  stats --doc          print every field of `emx run --stats` with unit and meaning
                       (docs/stats.md)
  isa --markdown       print the instruction-set page (docs/isa.md), generated from the table
  isa --disasm WORD [PC]
                       disassemble one instruction word (hex)
  serve                run the emx commands sent on the socket at fd 0, each in a forked
                       copy (no start-up per run): for scripts (python/emx/server.py)
  --help               this text

Exit status of `emx run`: statuses below 64 are the program's, 64 and above emx's own.
  0..63  the program's exit code (0 when every PE exited with 0, else the first non-zero
         code by PE number); any other code (70, 256, -1) gives 63 too: the summary
         and the statistics (exit_code) give the code itself
  64     a usage, config or program-file error (no simulation)
  70     a simulated PE faulted, or the machine met an error (a packet it cannot serve)
  71     a deadlock (no thread left to run and an empty network before the program exited)
  72     the cycle limit (sim.max_cycles, --max-cycles; 10^10 by default) was reached
  73     the host time limit (--max-time) was reached
  74     an output (--stats, --stats-text, --trace, --profile, the console on stdout)
         could not be written whole: the run's outcome is in the message before
)";

const char* const kRunHelp = R"(usage: emx run [options] PROGRAM [args...]

Runs PROGRAM on the simulated EM-X and prints its console output on stdout, then a
summary (simulated time in us and cycles, instructions, host time, simulated MIPS) on
stderr.

PROGRAM is the path of an ELF file (RV32IMF, ilp32f, linked with runtime/link/emx.ld) or
the name of a program of the build (build/programs/NAME.elf), e.g. `hello`. Arguments
after PROGRAM are passed to its main(argc, argv).

options:
  --config FILE     machine config (JSON); a bare name means configs/NAME.json.
                    Default: configs/emx80-16mhz.json
  --set KEY=VALUE   override one config key, e.g. --set pe.timing.mul=4 (repeatable);
                    VALUE is JSON (4, true, "text") or a bare word (a string)
  --pes N           number of PEs (same as --set pes=N)
  --files DIR       the program's files (fopen, open, remove) are those in DIR, read and
                    written through the host at host.bandwidth_mb_s; nothing outside DIR
                    is reachable (same as --set host.file_root=DIR; without it file
                    calls fail with EACCES)
  --stats FILE      write statistics as JSON: simulated_time_ns, cycles, instructions,
                    host_seconds (wall), host_cpu_seconds (the process's CPU time),
                    results (from emx_result), config (effective), stats
                    (every field with unit and meaning: docs/stats.md, emx stats --doc)
  --stats-text FILE write the same statistics (less the config) as a flat listing,
                    one line per field: name, value, then # meaning (unit)
  -q, --quiet       no summary
  --trace FILE      write a trace for Perfetto (ui.perfetto.dev) or chrome://tracing:
                    a track per PE with thread spans named by entry symbol, arrivals at
                    the memory unit, flow arrows from each send to its arrival, counters
                    for input-buffer occupancy and network load
  --trace-text      print a readable event log (thread start/end, send, arrival) on
                    stderr at the end of the run; for small runs
  --explore FILE    write the explorer: one HTML page (offline, no network) that shows
                    the run on the machine: packets crossing the network hop by hop,
                    each PE's input buffer, matching store, I-structure cells, memory
                    unit and threads, with time controls (docs/explorer.md);
                    --trace-window and --trace-pes choose what it records
  --trace-window FROM:TO
                    trace only this stretch of simulated time, in clocks, or in
                    microseconds with a "us" suffix (e.g. 0:5000, 100us:200us)
  --trace-pes LIST  trace only these PEs, e.g. 0,3,8-11
  --profile FILE    write an instruction profile at the end: clocks and instructions by
                    function, then the hottest instructions with their disassembly,
                    summed over the PEs; FILE "-" is stderr, a name ending in .json
                    gives JSON
  --profile-pes LIST  profile only these PEs, e.g. 0 or 0-3
  --profile-top N   how many of the hottest instructions the profile lists (default 30;
                    0: every instruction that ran)
  --max-cycles N    stop with a time-limit report after N clocks (sim.max_cycles;
                    default 10000000000, 0: no limit)
  --max-time T      stop when the host has spent T on the run: 30s, 5m, 2h (default: no
                    host limit); the summary shows the limits in force
  --help            this text
)";

namespace {
std::string quoted(const std::string& text);

// The run options (kRunHelp describes them), one row each: the parser and the warning
// about an option after the program both read this table.
using Setter = void (*)(RunOptions& o, const std::string& name, const std::string& value);
struct RunOption {
  const char* name;
  bool takes_value;
  Setter set;
};
const RunOption kRunOptions[] = {
    {"--config", true, [](RunOptions& o, const std::string&, const std::string& v) { o.config = v; }},
    {"--set", true, [](RunOptions& o, const std::string&, const std::string& v) { o.sets.push_back(v); }},
    {"--stats", true, [](RunOptions& o, const std::string&, const std::string& v) { o.stats_file = v; }},
    {"--stats-text", true,
     [](RunOptions& o, const std::string&, const std::string& v) { o.stats_text_file = v; }},
    {"--files", true,
     [](RunOptions& o, const std::string&, const std::string& v) {
       o.sets.push_back("host.file_root=" + nlohmann::json(v).dump());
     }},
    {"-q", false, [](RunOptions& o, const std::string&, const std::string&) { o.quiet = true; }},
    {"--quiet", false, [](RunOptions& o, const std::string&, const std::string&) { o.quiet = true; }},
    {"--trace", true, [](RunOptions& o, const std::string&, const std::string& v) { o.trace_file = v; }},
    {"--trace-text", false,
     [](RunOptions& o, const std::string&, const std::string&) { o.trace_text = true; }},
    {"--trace-window", true,
     [](RunOptions& o, const std::string&, const std::string& v) { o.trace_window = v; }},
    {"--trace-pes", true, [](RunOptions& o, const std::string&, const std::string& v) { o.trace_pes = v; }},
    {"--explore", true,
     [](RunOptions& o, const std::string&, const std::string& v) { o.explore_file = v; }},
    {"--profile", true,
     [](RunOptions& o, const std::string&, const std::string& v) { o.profile_file = v; }},
    {"--profile-pes", true,
     [](RunOptions& o, const std::string&, const std::string& v) { o.profile_pes = v; }},
    {"--profile-top", true,
     [](RunOptions& o, const std::string& n, const std::string& v) {
       o.profile_top = parse_count(n, v);
     }},
    {"--pes", true, [](RunOptions& o, const std::string&, const std::string& v) { o.pes = parse_pes(v); }},
    {"--max-cycles", true,
     [](RunOptions& o, const std::string& n, const std::string& v) { o.max_cycles = parse_count(n, v); }},
    {"--max-time", true,
     [](RunOptions& o, const std::string& n, const std::string& v) {
       o.max_time_text = v;
       o.max_host_seconds = parse_duration(n, v);
     }},
};
const RunOption* find_run_option(const std::string& name) {
  for (const RunOption& r : kRunOptions)
    if (name == r.name) return &r;
  return nullptr;
}
}  // namespace

RunOptions parse_run_options(const std::vector<std::string>& w) {
  RunOptions o;
  for (std::size_t k = 0; k < w.size(); ++k) {
    const std::string& a = w[k];
    if (const RunOption* r = find_run_option(a)) {
      if (r->takes_value && k + 1 >= w.size())
        throw UsageError(a + " needs a value (see emx run --help)");
      r->set(o, a, r->takes_value ? w[++k] : std::string());
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError("unknown option " + a + " (see emx run --help)");
    } else {
      o.program = a;
      o.args.assign(w.begin() + static_cast<long>(k) + 1, w.end());
      // Options after the program are the program's; one of emx's own there is most
      // likely meant for emx, so say where it went.
      for (const std::string& arg : o.args)
        if (find_run_option(arg))
          o.warnings.push_back("warning: " + arg + " comes after the program " + quoted(a) +
                               " and is passed to it, not to emx; emx's options go before "
                               "the program");
      return o;
    }
  }
  throw UsageError("no program given (see emx run --help)");
}

namespace {
std::string quoted(const std::string& text) {
  return "'" + (text.size() > 40 ? text.substr(0, 40) + "..." : text) + "'";
}
// The whole text as an unsigned number in `base`, or nothing.
std::optional<uint64_t> whole_number(const std::string& text, int base) {
  if (text.empty() || text[0] == '-' || text[0] == '+' || std::isspace(uint8_t(text[0])))
    return std::nullopt;
  try {
    std::size_t used = 0;
    const unsigned long long n = std::stoull(text, &used, base);
    if (used != text.size()) return std::nullopt;
    return n;
  } catch (const std::exception&) {  // no digits, or beyond 64 bits
    return std::nullopt;
  }
}
}  // namespace

unsigned parse_pes(const std::string& v) {
  const auto n = whole_number(v, 10);
  if (!n || *n < 1 || *n > 1024)
    throw UsageError("--pes takes a number of PEs from 1 to 1024 (got " + quoted(v) + ")");
  return static_cast<unsigned>(*n);
}

uint64_t parse_count(const std::string& option, const std::string& v) {
  const auto n = whole_number(v, 10);
  if (!n) throw UsageError(option + " takes a whole number (got " + quoted(v) + ")");
  return *n;
}

uint32_t parse_hex32(const std::string& option, const std::string& v) {
  const std::string digits = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')
                                 ? v.substr(2) : v;
  const auto n = whole_number(digits, 16);
  if (!n) throw UsageError(option + " takes a hexadecimal number (got " + quoted(v) + ")");
  if (*n > UINT32_MAX)
    throw UsageError(option + " takes a word of 32 bits (got " + quoted(v) + ")");
  return static_cast<uint32_t>(*n);
}

double parse_duration(const std::string& option, const std::string& v) {
  const std::size_t digits = v.find_first_not_of("0123456789.");
  const std::string unit = digits == std::string::npos ? "s" : v.substr(digits);
  const double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  double x = 0;
  try {
    std::size_t used = 0;
    x = digits == 0 ? -1 : std::stod(v.substr(0, digits), &used);
    if (used != v.substr(0, digits).size()) x = -1;
  } catch (const std::exception&) {
    x = -1;
  }
  if (scale == 0 || !(x > 0) || x * scale > 1e9)
    throw UsageError(option + " takes a host time such as 30s, 5m or 2h (got " + quoted(v) + ")");
  return x * scale;
}

}  // namespace emx::cli
