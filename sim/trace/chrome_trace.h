// Chrome trace-event JSON (opens in Perfetto, ui.perfetto.dev, and chrome://tracing).
// One process per PE with two tracks, "execution unit" (thread spans named by their
// entry symbol) and "memory unit" (arrivals and what the matching/memory unit did),
// flow arrows from each send to its arrival labelled with the packet type, and counters
// for input-buffer occupancy and network load. Events are streamed to the file.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "tracer.h"

namespace emx::trace {

class ChromeTrace : public Tracer {
 public:
  ChromeTrace(const std::string& path, unsigned pes, double clock_mhz, Filter filter);
  ~ChromeTrace() override;

  void thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                    const pe::ThreadToken& t) override;
  void thread_end(unsigned pe, uint64_t cycle) override;
  void packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) override;
  void packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                      const char* effect) override;
  void input_buffer(unsigned pe, uint64_t cycle, std::size_t occupancy) override;
  void network_sample(uint64_t from, uint64_t to, double mean, double max,
                      const std::vector<double>& ejection) override;
  void finish(uint64_t end_cycle) override;
  // After finish: why the file is incomplete (a write or the close failed), or "".
  const std::string& write_error() const { return write_error_; }

 private:
  struct Open {
    bool open = false;
    uint64_t start = 0;
    std::string name, args;
  };
  void event(const std::string& json);
  double us(uint64_t cycle) const { return static_cast<double>(cycle) / mhz_; }
  bool packet_traced(const net::Packet& p, uint64_t cycle) const;

  std::FILE* f_;
  unsigned pes_;
  double mhz_;
  Filter filter_;
  bool first_ = true;
  std::vector<Open> threads_;
  std::string path_, write_error_;
};

}  // namespace emx::trace
