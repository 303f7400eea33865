// What a PE module needs from the machine around it, as small interfaces so the PE can
// be built and tested with stand-ins.
#pragma once
#include <cstdint>

#include "isa/isa.h"
#include "sim/iss/fault.h"

namespace emx::pe {

// Where packets go when a PE sends them.
class PacketRouter {
 public:
  virtual ~PacketRouter() = default;
  // PE `src` sends at its local clock `cycle` (after the send's own clock). The router may
  // advance `cycle` (a stall while the output queue is full) and may throw iss::Trap.
  virtual void route(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data,
                     uint64_t& cycle) = 0;
};

// Lifecycle events of a PE.
class PeObserver {
 public:
  virtual ~PeObserver() = default;
  virtual void pe_stopped(unsigned pe) = 0;  // no thread left to run
  virtual void pe_faulted(unsigned pe, const iss::Fault& fault) = 0;
};

}  // namespace emx::pe
