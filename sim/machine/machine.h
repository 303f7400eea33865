// The simulated machine: PEs, host interface and (with the network) their connections.
// Built at SystemC elaboration; run() simulates and says how the run ended.
#pragma once
#include <systemc>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "machine_config.h"
#include "sim/host/host.h"
#include "sim/loader/elf_image.h"
#include "sim/pe/pe.h"
#include "sim/stats/stats.h"

namespace emx::machine {

struct Outcome {
  enum class Kind { exited, fault, stalled, time_limit } kind = Kind::exited;
  int exit_code = 0;       // of the program (first non-zero over PEs), for Kind::exited
  std::string report;      // what went wrong, for the other kinds
  uint64_t cycles = 0;     // simulated clocks at the end
};

class Machine : private pe::PacketRouter, private pe::PeObserver {
 public:
  Machine(const MachineConfig& cfg, const loader::ElfImage& program,
          const std::vector<std::string>& args, std::ostream& console);
  ~Machine() override;

  Outcome run();

  const MachineConfig& config() const { return cfg_; }
  stats::Registry& stats() { return stats_; }
  const host::Host& host() const { return host_; }
  uint64_t instructions() const;

 private:
  void route(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data,
             uint64_t& cycle) override;
  void pe_stopped(unsigned pe) override;
  void pe_faulted(unsigned pe, const iss::Fault& fault) override;
  void check_done();
  void stop();

  MachineConfig cfg_;
  const loader::ElfImage& program_;
  host::Host host_;
  std::vector<std::unique_ptr<pe::Pe>> pes_;
  stats::Registry stats_;
  unsigned started_ = 0, stopped_ = 0;
  std::optional<std::string> fault_report_;
  uint64_t end_cycle_ = 0;
  bool stopping_ = false;
};

}  // namespace emx::machine
