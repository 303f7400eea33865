// A readable event log for small runs: one line per thread start/end, send and arrival,
// sorted by simulated time when the run ends (PEs run ahead of each other in host time).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "tracer.h"

namespace emx::trace {

class TextTrace : public Tracer {
 public:
  TextTrace(std::ostream& out, unsigned pes, double clock_mhz, Filter filter)
      : out_(out), pes_(pes), mhz_(clock_mhz), filter_(std::move(filter)) {}

  void thread_begin(unsigned pe, uint64_t cycle, uint32_t entry, const std::string& name,
                    const pe::ThreadToken& t) override;
  void thread_end(unsigned pe, uint64_t cycle) override;
  void packet_sent(const net::Packet& p, uint64_t cycle, const std::string& where) override;
  void packet_arrived(const net::Packet& p, uint64_t cycle, uint64_t start, uint64_t done,
                      const char* effect) override;
  void input_buffer(unsigned, uint64_t, std::size_t) override {}
  void network_sample(uint64_t, uint64_t, double, double, const std::vector<double>&) override {}
  void finish(uint64_t end_cycle) override;

 private:
  void line(unsigned pe, uint64_t cycle, std::string text);
  struct Line {
    uint64_t cycle, order;
    std::string text;
  };
  std::ostream& out_;
  unsigned pes_;
  double mhz_;
  Filter filter_;
  std::vector<Line> lines_;
};

}  // namespace emx::trace
