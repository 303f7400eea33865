// Turning --trace-window / --trace-pes into a trace::Filter.
#pragma once
#include <string>

#include "sim/trace/tracer.h"

namespace emx::cli {

// Throws UsageError with the accepted syntax.
trace::Filter parse_trace_filter(const std::string& window, const std::string& pes,
                                 unsigned pe_count, double clock_mhz);

}  // namespace emx::cli
