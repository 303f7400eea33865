// The statistics of a run (emx run --stats FILE: JSON; --stats-text FILE: a flat
// "name value # meaning (unit)" listing) and their documentation (emx stats --doc,
// docs/stats.md). The fields written here are described in a table beside the writer;
// the components' counters in theirs (Pe::stat_counters, net::fabric_stat_docs).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/host/host.h"
#include "sim/stats/field_doc.h"

namespace emx::cli {

struct RunFacts {
  std::string program;  // the ELF file run
  std::string outcome;  // machine::outcome_name
  int exit_code = 0;
  uint64_t cycles = 0;
  double clock_mhz = 1;
  uint64_t instructions = 0;
  double host_seconds = 0, host_cpu_seconds = 0;
};

// The --stats JSON: the facts, the program's results, the effective config and the
// components' statistics (stats::Registry::dump).
nlohmann::json run_stats_json(const RunFacts& f, const std::vector<host::ResultRecord>& results,
                              nlohmann::json config, nlohmann::json stats);

// Every field of that JSON, in the order of docs/stats.md.
std::vector<stats::FieldDoc> stat_docs();
// docs/stats.md (emx stats --doc).
std::string stats_markdown();
// The --stats-text listing of a --stats JSON: one line per number or text, the config
// left out (emx config --show prints it).
std::string stats_text(const nlohmann::json& s);

}  // namespace emx::cli
