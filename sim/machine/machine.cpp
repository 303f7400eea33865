#include "machine.h"

#include <fmt/format.h>

#include "sim/pe/fault_report.h"

namespace emx::machine {

Machine::Machine(const MachineConfig& cfg, const loader::ElfImage& program,
                 const std::vector<std::string>& args, std::ostream& console)
    : cfg_(cfg), program_(program), host_(cfg.pes, console) {
  const uint32_t stack_top = cfg_.pe.memory_bytes - cfg_.pe.reserved_bytes;
  pe::PacketRouter& router = *this;
  pe::PeObserver& observer = *this;
  for (unsigned k = 0; k < cfg_.pes; ++k) {
    pes_.push_back(std::make_unique<pe::Pe>(fmt::format("pe{}", k).c_str(), k, cfg_, router, observer));
    pes_.back()->register_stats(stats_);
    if (cfg_.host.start == StartMode::pe0 && k > 0) continue;
    const auto s = host::Host::load(program, args, pes_.back()->memory(), stack_top);
    pes_.back()->start(program.code_base(), program.code_bytes(), program.entry(), s.sp,
                       static_cast<uint32_t>(args.size()), s.argv, 0);
    ++started_;
  }
}

Machine::~Machine() = default;

uint64_t Machine::instructions() const {
  uint64_t n = 0;
  for (const auto& p : pes_) n += p->hart().instret;
  return n;
}

void Machine::route(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data,
                    uint64_t& cycle) {
  if (type != isa::PacketType::host)
    throw iss::Trap{iss::FaultKind::machine, addr,
                    fmt::format("packet type '{}' needs the network, which this machine does not "
                                "have yet (only host packets are delivered)",
                                isa::packet_type_name(type))};
  try {
    host_.receive(src, addr, data, cycle, pes_[src]->memory());
  } catch (const std::runtime_error& e) {
    throw iss::Trap{iss::FaultKind::machine, addr, std::string("bad host packet: ") + e.what()};
  }
  // All started PEs exited: the program is over, whatever else is still running.
  if (host_.exited() == started_) {
    end_cycle_ = std::max(end_cycle_, cycle);
    stop();
  }
}

void Machine::pe_stopped(unsigned /*pe*/) {
  ++stopped_;
  check_done();
}

void Machine::pe_faulted(unsigned pe, const iss::Fault& fault) {
  if (!fault_report_) {
    const auto& p = *pes_[pe];
    fault_report_ = pe::fault_report(pe, p.hart(), fault, program_.symbols(), cfg_.clock_mhz,
                                     cfg_.sim.register_dump);
  }
  stop();
}

void Machine::stop() {
  if (stopping_) return;  // SystemC warns about a second sc_stop
  stopping_ = true;
  sc_core::sc_stop();
}

void Machine::check_done() {
  if (stopped_ == started_) stop();
}

Outcome Machine::run() {
  Outcome o;
  if (cfg_.sim.max_cycles)
    sc_core::sc_start(pes_[0]->time_of(cfg_.sim.max_cycles));
  else
    sc_core::sc_start();
  host_.flush();
  for (const auto& p : pes_) o.cycles = std::max(o.cycles, p->hart().cycles);
  if (fault_report_) {
    o.kind = Outcome::Kind::fault;
    o.report = *fault_report_;
    return o;
  }
  if (host_.exited() == started_) {
    o.cycles = end_cycle_;
    for (unsigned k = 0; k < cfg_.pes; ++k)
      if (auto c = host_.exit_code(k); c && *c != 0) {
        o.exit_code = *c;
        break;
      }
    return o;
  }
  if (stopped_ == started_) {
    o.kind = Outcome::Kind::stalled;
    std::string who;
    for (unsigned k = 0; k < cfg_.pes; ++k)
      if (pes_[k]->started() && !host_.exit_code(k)) who += fmt::format(" {}", k);
    o.report = fmt::format(
        "emx: the machine stopped at cycle {}: no thread is left to run, but the program did "
        "not exit on PE{}", o.cycles, who);
    return o;
  }
  o.kind = Outcome::Kind::time_limit;
  o.report = fmt::format("emx: time limit: sim.max_cycles = {} reached before the program exited",
                         cfg_.sim.max_cycles);
  return o;
}

}  // namespace emx::machine
