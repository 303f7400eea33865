// Execution traces: what a student watches. The machine calls a Tracer at thread
// start/end, packet send and arrival, and input-buffer changes; nothing per instruction,
// and nothing at all when tracing is off. Implementations: chrome_trace (JSON for
// Perfetto / chrome://tracing) and text_trace (a readable event log).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "network/packet.h"
#include "sim/pe/thread_token.h"

namespace emx::trace {

// What to record: a window of simulated time and a subset of PEs.
struct Filter {
  uint64_t from = 0, to = UINT64_MAX;  // clocks, [from, to)
  std::vector<bool> pes;               // empty: every PE
  bool pe(unsigned k) const { return pes.empty() || (k < pes.size() && pes[k]); }
  bool time(uint64_t c) const { return c >= from && c < to; }
};

class Tracer {
 public:
  virtual ~Tracer() = default;
  // `entry` is the code address the thread starts at, `name` its symbol.
  virtual void thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                            const pe::ThreadToken& t) = 0;
  virtual void thread_end(unsigned pe, uint64_t cycle) = 0;
  // `where` is the sending instruction's symbol (empty for memory-unit replies).
  virtual void packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) = 0;
  // Arrival at a PE (or the host, dst == PE count); the memory/matching unit serves it
  // from `start` to `done`; `effect` says what it did.
  virtual void packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                              const char* effect) = 0;
  virtual void input_buffer(unsigned pe, uint64_t cycle, std::size_t occupancy) = 0;
  // Network load over [from, to): busy fraction of all links (mean, max) and per
  // endpoint's ejection port.
  virtual void network_sample(uint64_t from, uint64_t to, double mean, double max,
                              const std::vector<double>& ejection) = 0;
  virtual void finish(uint64_t end_cycle) = 0;
};

}  // namespace emx::trace
