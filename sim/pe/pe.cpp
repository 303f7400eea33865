#include "pe.h"

namespace emx::pe {

Pe::Pe(sc_core::sc_module_name name, unsigned id, const machine::MachineConfig& cfg,
       PacketRouter& router, PeObserver& observer)
    : sc_module(name),
      id_(id),
      cfg_(cfg),
      router_(router),
      observer_(observer),
      memory_(cfg.pe.memory_bytes),
      hart_(memory_, cfg.pe.timing),
      period_(1.0 / cfg.clock_mhz, sc_core::SC_US) {
  hart_.set_env(this);
  hart_.set_machine_info(id, cfg.pes, static_cast<uint32_t>(cfg.clock_mhz * 1000.0 + 0.5));
  SC_HAS_PROCESS(Pe);
  SC_THREAD(execute);
}

void Pe::start(uint32_t code_base, uint32_t code_bytes, uint32_t entry, uint32_t sp, uint32_t a0,
               uint32_t a1, uint64_t at_cycle) {
  hart_.set_code(code_base, code_bytes);
  hart_.pc = entry;
  hart_.x[2] = sp;
  hart_.x[10] = a0;
  hart_.x[11] = a1;
  hart_.cycles = at_cycle;
  started_ = running_ = true;
}

void Pe::sync() {
  const sc_core::sc_time local = time_of(hart_.cycles);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (local > now) wait(local - now);
  ++quantum_syncs_;
}

void Pe::execute() {
  if (!started_) return;
  const uint64_t q = cfg_.sim.quantum_cycles;
  for (;;) {
    // Quantum boundaries are multiples of q, so runs are independent of start offsets.
    const uint64_t limit = (hart_.cycles / q + 1) * q;
    switch (hart_.run(limit)) {
      case iss::Hart::Stop::limit:
        sync();
        break;
      case iss::Hart::Stop::stopped:
        running_ = false;
        sync();
        observer_.pe_stopped(id_);
        return;
      case iss::Hart::Stop::fault:
        running_ = false;
        sync();
        observer_.pe_faulted(id_, hart_.fault());
        return;
    }
  }
}

void Pe::send(iss::Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) {
  ++packets_sent_;
  router_.route(id_, type, addr, data, h.cycles);
}

void Pe::end_thread(iss::Hart& h) {
  ++threads_ended_;
  // No input buffer yet: the first thread ending leaves nothing to run.
  h.request_stop();
}

void Pe::register_stats(stats::Registry& r) {
  const std::string p = "pe." + std::to_string(id_) + ".";
  r.counter(p + "cycles", &hart_.cycles, "local clock at the end of the run");
  r.counter(p + "instructions", &hart_.instret, "instructions executed");
  r.counter(p + "packets_sent", &packets_sent_, "packets sent by the execution unit");
  r.counter(p + "threads_ended", &threads_ended_, "threads (strongly connected blocks) ended");
  r.counter(p + "syncs", &quantum_syncs_, "synchronisations with SystemC time");
}

}  // namespace emx::pe
