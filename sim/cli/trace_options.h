// Turning --trace-window / --trace-pes (and --profile-pes) into what they choose.
#pragma once
#include <string>
#include <vector>

#include "sim/trace/tracer.h"

namespace emx::cli {

// "0,3,8-11" -> chosen[k] for k < pe_count. Throws UsageError naming `option`.
std::vector<bool> parse_pe_list(const std::string& option, const std::string& pes,
                                unsigned pe_count);

// Throws UsageError with the accepted syntax.
trace::Filter parse_trace_filter(const std::string& window, const std::string& pes,
                                 unsigned pe_count, double clock_mhz);

}  // namespace emx::cli
