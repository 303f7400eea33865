#include "trace_options.h"

#include <cmath>

#include "options.h"

namespace emx::cli {
namespace {

uint64_t parse_time(const std::string& t, double mhz, const std::string& all) {
  const bool us = t.size() > 2 && t.compare(t.size() - 2, 2, "us") == 0;
  const std::string num = us ? t.substr(0, t.size() - 2) : t;
  try {
    std::size_t used = 0;
    const double v = std::stod(num, &used);
    if (used != num.size() || v < 0) throw std::invalid_argument(t);
    return static_cast<uint64_t>(std::llround(us ? v * mhz : v));
  } catch (const std::exception&) {
    throw UsageError("--trace-window " + all +
                     ": expected FROM:TO in clocks or microseconds, e.g. 0:5000 or 10us:20us");
  }
}

}  // namespace

std::vector<bool> parse_pe_list(const std::string& option, const std::string& pes,
                                unsigned pe_count) {
  std::vector<bool> chosen(pe_count, false);
  std::size_t pos = 0;
  while (pos <= pes.size()) {
    const auto comma = std::min(pes.find(',', pos), pes.size());
    const std::string item = pes.substr(pos, comma - pos);
    const auto dash = item.find('-');
    try {
      std::size_t u1 = 0, u2 = 0;
      const unsigned long lo = std::stoul(item.substr(0, dash), &u1);
      const unsigned long hi = dash == std::string::npos ? lo : std::stoul(item.substr(dash + 1), &u2);
      if (u1 != (dash == std::string::npos ? item.size() : dash) || hi < lo || hi >= pe_count)
        throw std::out_of_range(item);
      for (unsigned long k = lo; k <= hi; ++k) chosen[k] = true;
    } catch (const std::exception&) {
      throw UsageError(option + " " + pes + ": expected PE numbers and ranges below " +
                       std::to_string(pe_count) + ", e.g. 0,3,8-11");
    }
    pos = comma + 1;
  }
  return chosen;
}

trace::Filter parse_trace_filter(const std::string& window, const std::string& pes,
                                 unsigned pe_count, double mhz) {
  trace::Filter f;
  if (!window.empty()) {
    const auto colon = window.find(':');
    if (colon == std::string::npos) parse_time("", mhz, window);  // throws the usage text
    f.from = parse_time(window.substr(0, colon), mhz, window);
    const std::string to = window.substr(colon + 1);
    f.to = to.empty() ? UINT64_MAX : parse_time(to, mhz, window);
    if (f.to <= f.from) throw UsageError("--trace-window " + window + ": TO must be after FROM");
  }
  if (!pes.empty()) f.pes = parse_pe_list("--trace-pes", pes, pe_count);
  return f;
}

}  // namespace emx::cli
