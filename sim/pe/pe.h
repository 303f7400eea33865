// One EMC-Y processing element as a SystemC module: local memory and the execution unit
// (the ISS), driven with temporal decoupling — the ISS counts clocks in an integer and
// the module synchronises with SystemC time once per quantum or when it interacts.
#pragma once
#include <systemc>

#include <memory>

#include "pe_ports.h"
#include "sim/iss/hart.h"
#include "sim/machine/machine_config.h"
#include "sim/mem/local_memory.h"
#include "sim/stats/stats.h"

namespace emx::pe {

class Pe : public sc_core::sc_module, private iss::HartEnv {
 public:
  Pe(sc_core::sc_module_name name, unsigned id, const machine::MachineConfig& cfg,
     PacketRouter& router, PeObserver& observer);

  unsigned id() const { return id_; }
  mem::LocalMemory& memory() { return memory_; }
  iss::Hart& hart() { return hart_; }
  const iss::Hart& hart() const { return hart_; }

  // Set up the first thread: the program's entry with sp, a0 (argc), a1 (argv).
  void start(uint32_t code_base, uint32_t code_bytes, uint32_t entry, uint32_t sp, uint32_t a0,
             uint32_t a1, uint64_t at_cycle);
  bool started() const { return started_; }
  bool running() const { return running_; }

  void register_stats(stats::Registry& r);

  // Local clock -> SystemC time.
  sc_core::sc_time time_of(uint64_t cycle) const { return period_ * static_cast<double>(cycle); }

 private:
  void execute();  // SC_THREAD
  void sync();     // wait until SystemC time reaches the local clock

  // iss::HartEnv
  void send(iss::Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) override;
  void end_thread(iss::Hart& h) override;

  unsigned id_;
  const machine::MachineConfig& cfg_;
  PacketRouter& router_;
  PeObserver& observer_;
  mem::LocalMemory memory_;
  iss::Hart hart_;
  sc_core::sc_time period_;
  bool started_ = false, running_ = false;
  uint64_t packets_sent_ = 0, threads_ended_ = 0, quantum_syncs_ = 0;
};

}  // namespace emx::pe
