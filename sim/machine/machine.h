// The simulated machine: PEs, the network (network/Fabric) and the host interface, as
// SystemC modules built at elaboration. run() simulates and says how the run ended.
#pragma once
#include <systemc>

#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <ostream>
#include <string>
#include <vector>

#include "agenda.h"
#include "machine_config.h"
#include "network/fabric.h"
#include "output_ports.h"
#include "sim/host/host.h"
#include "sim/loader/elf_image.h"
#include "sim/pe/pe.h"
#include "sim/stats/stats.h"
#include "sim/trace/tracer.h"

namespace emx::machine {

struct Outcome {
  enum class Kind { exited, fault, error, deadlock, time_limit, host_time_limit } kind = Kind::exited;
  int exit_code = 0;    // of the program (first non-zero over PEs), for Kind::exited
  std::string report;   // what went wrong, for the other kinds
  uint64_t cycles = 0;  // simulated clocks at the end
};
const char* outcome_name(Outcome::Kind k);

// Advances the network in SystemC time: the output ports and the fabric together.
// Every PE's local clock is at or past SystemC time and a send is stamped after its own
// clock, so no packet can still appear at a clock <= now: the network may process
// everything up to and including the present clock, and any process may ask it to.
class NetworkDriver : public sc_core::sc_module {
 public:
  // `pes` (once built): told when their floating sends are accepted; `stopping`: the
  // simulation is stopping (run ahead no further). Both outlive the driver.
  NetworkDriver(sc_core::sc_module_name name, net::Fabric& fabric, OutputPorts& ports,
                const pe::KernelClock& clock, const std::vector<std::unique_ptr<pe::Pe>>& pes,
                const bool& stopping);
  // Processes everything up to the present clock.
  void catch_up() {
    const uint64_t now = clock_.clock();
    // Most calls find the network processed through this clock already (another PE's
    // catch-up, or the driver running ahead) and no packet pushed since: nothing to do,
    // and the next work is what that processing found. (Inline: no call for them.)
    if (now < processed_ && ports_.pushes() == pushes_seen_) {
      wake_at(next_);
      return;
    }
    // Called from a PE, this may have given the network earlier work than the driver is
    // scheduled for: it must run then, or arrivals would be delivered late.
    wake_at(process_through(now));
  }
  // Hands the send stalls not yet told to the PEs to them: before their statistics are
  // read. (A PE is told (Pe::floating_send_accepted) when its last floating send is
  // accepted, which it may be waiting for; the stall only adds to its statistics.)
  void flush_send_stalls();
  // Called after the network advanced (for trace sampling); empty: nothing.
  std::function<void(uint64_t now)> after_advance;
  void wake_at(uint64_t cycle);  // make sure we run at this clock
  // Whether we run at this clock anyway (wake_at would do nothing).
  bool wakes_by(uint64_t cycle) const { return cycle >= scheduled_; }
  // Running ahead of SystemC time (run_ahead) stops before this clock.
  uint64_t run_ahead_limit = UINT64_MAX;
  // Nor past this clock, unless the work is due now (Machine::run's slice under a host
  // time limit: PEs run inline from here would otherwise never return to the kernel).
  uint64_t slice_end = UINT64_MAX;
  // SystemC notifications made by PE code (MachinePort::activity_scheduled): while it
  // stays the same, so does the kernel's next pending activity.
  uint64_t activity = 0;
  // Parked PEs to start at a clock from this process (Pe::run_inline), in time order.
  void run_later(unsigned pe, uint64_t cycle) {
    // (Usually the wake-up is set already and the key goes in place: no call.)
    if (cycle < scheduled_ || !agenda_.push_in_place(cycle << kPeBits | pe)) run_later_rest(pe, cycle);
  }
 private:
  void drive();  // SC_METHOD
  // Everything up to and including clock `now`; returns next_time() after it.
  uint64_t process_through(uint64_t now);
  // From clock `now` with the network's next work at `next`; returns the next work left.
  uint64_t run_ahead(uint64_t now, uint64_t next);
  uint64_t next_time() const { return std::min(fabric_.next_event_time(), ports_.next_time()); }
  [[gnu::noinline]] void run_later_rest(unsigned pe, uint64_t cycle) {
    agenda_.push(cycle << kPeBits | pe);
    wake_at(cycle);
  }
  net::Fabric& fabric_;
  OutputPorts& ports_;
  const pe::KernelClock& clock_;
  const std::vector<std::unique_ptr<pe::Pe>>& pes_;
  const bool& stopping_;
  sc_core::sc_event wake_;
  uint64_t scheduled_ = 0;  // the clock we will wake at for sure: no need to notify earlier
  // Every clock before processed_ has been processed; OutputPorts::pushes() and
  // next_time() after the last processing: while no packet is pushed, processing those
  // clocks again changes nothing (catch_up).
  uint64_t processed_ = 0, pushes_seen_ = 0, next_ = UINT64_MAX;
  // (clock, PE) of run_later, earliest first, as one key: clock << kPeBits | PE (the same
  // order as the pair).
  Agenda agenda_;
  uint64_t agenda_clock() const {
    const uint64_t k = agenda_.front();
    return k == UINT64_MAX ? k : k >> kPeBits;
  }
  unsigned agenda_pe() const { return static_cast<unsigned>(agenda_.front() & ((1u << kPeBits) - 1)); }

 public:
  static constexpr unsigned kPeBits = Agenda::kPeBits;
};

class Machine : private pe::MachinePort, private pe::PeObserver {
 public:
  Machine(const MachineConfig& cfg, const loader::ElfImage& program,
          const std::vector<std::string>& args, std::ostream& console);
  ~Machine() override;

  // Record a trace of the run (before run()).
  void set_tracer(std::unique_ptr<trace::Tracer> t);
  // Simulates until the program exits, fails, deadlocks or reaches sim.max_cycles, or
  // (when max_host_seconds > 0) the host has spent that long on it.
  Outcome run(double max_host_seconds = 0);
  // The cycle limit the run obeys: sim.max_cycles, bounded so that it is a SystemC time
  // (0: none).
  uint64_t cycle_limit() const { return cycle_limit_; }

  stats::Registry& stats() { return stats_; }
  const host::Host& host() const { return host_; }
  host::Host& host() { return host_; }
  uint64_t instructions() const;
  unsigned pe_count() const { return static_cast<unsigned>(pes_.size()); }
  const pe::Pe& pe(unsigned i) const { return *pes_[i]; }
  pe::Pe& pe(unsigned i) { return *pes_[i]; }

 private:
  // pe::MachinePort
  void send(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data, uint32_t pc,
            uint64_t& cycle) override;
  void reply(const net::Packet& p, uint64_t cycle) override;
  void catch_up() override { driver_->catch_up(); }
  size_t floating_sends(unsigned pe) const override { return ports_->floating_count(pe); }
  uint64_t take_send_stall(unsigned pe) override {
    return ports_->floating(pe) ? kSendsFloat : ports_->take_shift(pe);
  }
  bool run_later(unsigned pe, uint64_t cycle) override;
  void activity_scheduled() override { ++driver_->activity; }
  // pe::PeObserver
  void pe_faulted(unsigned pe, const iss::Fault& fault) override;
  void pe_error(unsigned pe, uint64_t cycle, const std::string& what,
                const net::Packet* cause) override;
  std::string sender_text(const net::Packet& p) const;

  // Hart::DirectSend for PE `src` (ctx: its DirectSender): a send that floats (below,
  // and fewer than Pe::kMaxFloatingSends float already; a PE address in range) is pushed
  // as Pe::send and send() would push it; any other is left to them.
  struct DirectSender {
    Machine* machine;
    OutputPorts* ports;  // the machine's, and the PE: one load fewer each for the
    pe::Pe* pe;          // usual send (fewer registers)
    unsigned src;
  };
  // (Translated blocks call it directly: noexcept, and the rest's errors go to the hart,
  // Hart::env_failed.)
  static uint32_t direct_send(void* ctx, isa::PacketType type, uint32_t addr, uint32_t data,
                              uint32_t pc, uint64_t cycle) noexcept;
  // direct_send for the sends other than the usual one: the first floating one of its PE
  // on a path of its own, the rest out of line, so that neither of the two usual ones needs
  // a stack frame.
  [[gnu::noinline]] static uint32_t direct_send_first(void* ctx, isa::PacketType type,
                                                      uint32_t addr, uint32_t data, uint32_t pc,
                                                      uint64_t cycle) noexcept;
  [[gnu::noinline]] static uint32_t direct_send_rest(void* ctx, isa::PacketType type,
                                                     uint32_t addr, uint32_t data, uint32_t pc,
                                                     uint64_t cycle) noexcept;
  // The two usual paths' common part: a send to a PE whose record push(machine, dst) writes
  // (false: it did not), counted as send() counts it, with the next sequence number.
  template <class Push>
  [[gnu::always_inline]] static bool push_direct(const DirectSender& d, isa::PacketType type,
                                                 uint32_t addr, Push&& push) {
    Machine& m = *d.machine;
    const unsigned dst = pe::gaddr_pe(addr);
    if (type == isa::PacketType::host || dst >= m.cfg_.pes || !push(m, dst)) return false;
    ++m.next_seq_;
    d.pe->count_send();
    return true;
  }
  // Whether a send of `src` at `cycle` floats (lazy stall accounting: its port defers
  // already, or it may have to wait and is not accepted without a sync); `room`: the
  // output queue surely has room for it now (then it does not float).
  bool floats(unsigned src, uint64_t cycle, bool& room) const;
  // A send's packet (its destination endpoint; false: the address names no PE).
  bool make_packet(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data,
                   uint32_t pc, net::Packet& p) const;
  [[gnu::always_inline]] void push_floating(net::Packet& p, uint64_t cycle) {
    p.seq = next_seq_++;
    // Earlier work of the ports has its wake-up already: only a new check needs one.
    driver_->wake_at(ports_->push_floating(p, cycle));
  }
  bool accept_without_sync(unsigned src, uint64_t& cycle) const;
  bool no_unseen_reply(unsigned src, uint64_t cycle) const;
  void deliver(const net::Packet& p, uint64_t cycle);
  // (Out of line: a PE's arrival, once per packet, then needs no frame.)
  [[gnu::noinline]] void deliver_to_host(const net::Packet& p, uint64_t cycle);
  void enqueue(net::Packet& p, uint64_t cycle, bool reply);
  void sample_network(uint64_t now);
  void stop(uint64_t cycle);
  std::string deadlock_report(uint64_t cycle) const;
  void register_stats();

  MachineConfig cfg_;
  const loader::ElfImage& program_;
  host::Host host_;
  std::unique_ptr<net::Fabric> fabric_;
  std::unique_ptr<OutputPorts> ports_;
  std::unique_ptr<NetworkDriver> driver_;
  pe::SyncAlarms alarms_;  // the PEs' timed wake-ups (before pes_: they use it)
  pe::KernelClock clock_;  // SystemC time, for the PEs and the driver (before both)
  std::vector<std::unique_ptr<pe::Pe>> pes_;
  std::unique_ptr<DirectSender[]> direct_;  // by PE
  // From this many PEs on, the destination PE's arrival lines and the word a packet
  // names are fetched into the host's caches while the packet's last transfer is under
  // way (net::Fabric::set_arrival_hint): from about 512 PEs on they are cold by then (a
  // streaming 1024-PE machine: -3 to -6 % CPU on a quiet host, -14 to -20 % on a loaded
  // one; 256 PEs: neither gain nor loss). Fewer PEs' state stays in the caches, and the
  // hint would only add its instructions to every packet.
  static constexpr unsigned kArrivalHintPes = 256;
  static void prefetch_arrival(void* ctx, const net::Packet& p);
  // By PE, its local memory's bytes: dense, so that the hint's one load is warm (the PE's
  // own record is what it fetches).
  std::unique_ptr<uint8_t*[]> arrival_memory_;
  stats::Registry stats_;
  unsigned started_ = 0;
  uint64_t next_seq_ = 0;
  // The report of the first fault or error: the earliest clock, then the lowest PE (a PE
  // reports once its clock is SystemC time, so an earlier one has stopped the run; of the
  // PEs failing at one clock, those that run in the delta stop() finishes are compared).
  std::optional<std::string> failure_;
  bool failure_is_fault_ = false;
  uint64_t failure_cycle_ = 0;
  unsigned failure_pe_ = 0;
  bool first_failure(unsigned pe, uint64_t cycle);  // whether pe's failure then is the one
  bool stopping_ = false;
  uint64_t end_cycle_ = 0;
  uint64_t last_delivery_ = 0;  // the clock of the network's last delivery
  uint64_t cycle_limit_ = 0;
  uint64_t stats_end_cycle_ = 0;  // the run's end, for the statistics (0: not run yet)
  std::unique_ptr<trace::Tracer> tracer_;
  struct Sampler {
    uint64_t next = 0, period = 1000;
    std::vector<uint64_t> links, ejection;  // busy clocks at the last sample
  } sampler_;
};

}  // namespace emx::machine
