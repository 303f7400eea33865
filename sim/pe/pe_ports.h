// What a PE module needs from the machine around it, as small interfaces so the PE can
// be built and tested with stand-ins.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "isa/isa.h"
#include "network/packet.h"
#include "sim/iss/fault.h"

namespace emx::pe {

class MachinePort {
 public:
  virtual ~MachinePort() = default;
  // The execution unit of PE `src` sends at its local clock `cycle` (after the send's own
  // clock). The machine may advance `cycle` (a stall while the output queue is full) and
  // may throw iss::Trap (e.g. an address naming a PE that does not exist).
  virtual void send(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data,
                    uint32_t pc, uint64_t& cycle) = 0;
  // The memory unit of a PE sends a reply at `cycle`.
  virtual void reply(const net::Packet& p, uint64_t cycle) = 0;
  // Bring the network up to the present SystemC time: every packet that has arrived by
  // now has been delivered. Any process may call it at any time.
  virtual void catch_up() = 0;
  // Lazy stall accounting (sim/machine/output_ports.h): how many sends of `pe` still
  // float (their stall is not known yet), and the stall clocks not yet taken into the
  // execution unit's clock (taking them resets them), or, while some float, kSendsFloat
  // (nothing taken: one call for both questions).
  virtual size_t floating_sends(unsigned pe) const = 0;
  static constexpr uint64_t kSendsFloat = UINT64_MAX;
  virtual uint64_t take_send_stall(unsigned pe) = 0;
  // An arrival readied a thread for `pe`, whose execution unit is parked (idle outside
  // the ISS) and may start it at clock `cycle` from the network's own process
  // (Pe::run_inline) rather than switch to its SystemC thread. False: it cannot, and the
  // PE wakes its thread as usual.
  virtual bool run_later(unsigned pe, uint64_t cycle) {
    (void)pe, (void)cycle;
    return false;
  }
  // PE code notified a SystemC event (it may have scheduled SystemC activity): the
  // network driver, running ahead of SystemC time, asks the kernel for its next activity
  // again only after one.
  virtual void activity_scheduled() {}
};

// Lifecycle events of a PE.
class PeObserver {
 public:
  virtual ~PeObserver() = default;
  virtual void pe_faulted(unsigned pe, const iss::Fault& fault) = 0;
  // A machine-level error at clock `cycle` (the event's: a packet's arrival, a thread's
  // dispatch), caused by packet `cause` when there is one (its sender is named).
  virtual void pe_error(unsigned pe, uint64_t cycle, const std::string& what,
                        const net::Packet* cause = nullptr) = 0;
};

}  // namespace emx::pe
