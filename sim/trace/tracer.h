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

namespace emx::net {
class Topology;
}

namespace emx::trace {

// A state change of one memory word that the matching or memory control unit made
// (Tracer::cell): a matching slot or an I-structure element.
enum class Cell : uint8_t {
  operand_waits,    // a 2-input operand stored in its matching slot: it waits for its partner
  operand_matched,  // the partner arrived: the slot is empty again, a thread is ready
  is_full,          // an I-structure element written (no reader waited)
  is_deferred,      // an I-structure read of an empty element: the reader's continuation waits there
  is_woken,         // written while a reader waited: the value goes to it, the element is empty
  is_taken,         // read while full: the value is sent, the element is empty (read-once)
};

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

  // Finer events, for the explorer (explore_trace.h); the other tracers ignore them.
  // The network's shape, once, before the run.
  virtual void network(const net::Topology&, uint32_t /*link_clocks*/) {}
  // The network started moving packet p over one of its outputs from `start` to `end`:
  // a link (output < link_count) or the ejection port into endpoint output - link_count.
  virtual void packet_hop(const net::Packet&, uint32_t /*output*/, uint64_t /*start*/,
                          uint64_t /*end*/) {}
  // The matching/memory unit changed the word at local byte address `addr` (at `cycle`,
  // when it served packet p).
  virtual void cell(unsigned /*pe*/, uint64_t /*cycle*/, uint32_t /*addr*/, Cell,
                    const net::Packet&) {}
  // A ready thread made from packet p entered the input buffer at `cycle` (through the
  // spill area in memory if `spilled`); the execution unit took the buffer's head at
  // `cycle` (pop). FIFO: the k-th pop of a PE takes its k-th push.
  virtual void buffer_push(unsigned /*pe*/, uint64_t /*cycle*/, const net::Packet&, bool /*spilled*/) {}
  virtual void buffer_pop(unsigned /*pe*/, uint64_t /*cycle*/) {}
};

}  // namespace emx::trace
