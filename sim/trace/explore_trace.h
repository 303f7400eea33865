// The explorer (`emx run --explore run.html`): one self-contained HTML page that shows a
// run as it happened: the machine drawn as its network topology, packets crossing it hop by
// hop, each PE's units (input buffer, matching store, I-structure cells, memory unit,
// running thread) and a timeline of threads per PE. The events are collected in memory as
// the simulator makes them and written at the end as compact JSON into the page template
// (explorer.html, compiled into the binary); the page's own JavaScript draws everything,
// offline. docs/explorer.md describes the page and its data.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/loader/symbols.h"
#include "tracer.h"

namespace emx::trace {

class ExploreTrace : public Tracer {
 public:
  struct Run {
    std::string program;    // as given on the command line
    std::string elf;        // its file, for source lines (addr2line)
    std::string config;     // a one-line description of the machine
    std::vector<std::string> args;
  };
  // Throws std::runtime_error if `path` cannot be written (checked now, written at finish).
  ExploreTrace(std::string path, unsigned pes, double clock_mhz, Filter filter, Run run,
               const loader::SymbolTable& symbols);

  void thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                    const pe::ThreadToken& t) override;
  void thread_end(unsigned pe, uint64_t cycle) override;
  void packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) override;
  void packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                      const char* effect) override;
  void input_buffer(unsigned, uint64_t, std::size_t) override {}
  void network_sample(uint64_t, uint64_t, double, double, const std::vector<double>&) override {}
  void finish(uint64_t end_cycle) override;
  // After finish: why the page is incomplete (a write or the close failed), or "".
  const std::string& write_error() const { return write_error_; }

  void network(const net::Topology& t, uint32_t link_clocks) override;
  void packet_hop(const net::Packet& p, uint32_t output, uint64_t start, uint64_t end) override;
  void cell(unsigned pe, uint64_t cycle, uint32_t addr, Cell c, const net::Packet& p) override;
  void buffer_push(unsigned pe, uint64_t cycle, const net::Packet& p, bool spilled) override;
  void buffer_pop(unsigned pe, uint64_t cycle) override;

  // The page's data as JSON (the test of the writer reads it; finish embeds it).
  std::string data_json(uint64_t end_cycle);

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct Hop {
    uint32_t output;
    uint64_t start, end;
  };
  struct Pkt {
    uint64_t seq = 0;
    uint32_t addr = 0, data = 0, src_pc = 0;
    uint8_t type = 0, data_tag = 0;
    uint16_t src = 0, dst = 0;
    uint64_t sent = kNone, arrive = kNone, mu_start = 0, mu_done = 0;
    uint32_t where = 0, effect = 0;  // string ids
    std::vector<Hop> hops;
  };
  struct Thread {
    unsigned pe;
    uint64_t start, end;
    uint32_t name, entry, line_pc, a0, a1, cont;
    uint8_t kind;
    uint16_t src;
  };
  struct CellEvent {
    unsigned pe;
    uint64_t cycle, seq;
    uint32_t addr;
    Cell what;
  };
  struct BufferEvent {
    unsigned pe;
    uint64_t cycle, seq;  // seq: kNone for a pop
    bool spilled;
  };

  uint32_t str(const std::string& s);
  bool pe_kept(unsigned endpoint) const { return endpoint >= pes_ || filter_.pe(endpoint); }
  Pkt& packet(const net::Packet& p);
  void retire(uint64_t seq);  // arrived: keep it if the window and PEs want it, else drop
  std::string source_lines_json();

  std::string path_, write_error_;
  unsigned pes_;
  double mhz_;
  Filter filter_;
  Run run_;
  const loader::SymbolTable& symbols_;
  std::string topology_json_ = "null";
  uint32_t link_clocks_ = 0;

  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> string_ids_;
  std::unordered_map<uint64_t, Pkt> in_flight_;
  std::vector<Pkt> packets_;
  std::vector<Thread> threads_;
  std::vector<Thread> open_;  // per PE; start == kNone: none
  std::vector<CellEvent> cells_;
  std::vector<BufferEvent> buffer_;
  std::vector<uint32_t> pcs_;  // code addresses to resolve to source lines
  uint64_t left_out_packets_ = 0, left_out_threads_ = 0;
};

// The page template with its data placeholder (explorer_page.cpp, generated from
// explorer.html by the build).
extern const char* const kExplorerPage;

}  // namespace emx::trace
