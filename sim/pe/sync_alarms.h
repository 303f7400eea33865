// Timed wake-ups shared by the PEs' execution units. PEs that synchronise with SystemC
// time often wait for the same clock (at a quantum boundary, every running PE whose last
// instruction ended on it; in the MPI ring more than half of the waits share a clock):
// one timed notification of a shared event wakes them all, where a wait(time) each would
// cost a timed notification apiece (an allocation and a heap insertion and removal in
// the kernel's queue of timed events, which is then as long as there are PEs). The set
// of pending SystemC times, and so the simulated figures, stay the same.
#pragma once
#include <systemc>

#include <cstdint>
#include <memory>

namespace emx::pe {

class SyncAlarms {
 public:
  SyncAlarms()
      : at_(std::make_unique<uint64_t[]>(kSlots)),
        wake_(std::make_unique<sc_core::sc_event[]>(kSlots)) {}

  // From a SystemC thread: wait until SystemC time `at_ps` (> now_ps, the present time).
  void wait_until(uint64_t at_ps, uint64_t now_ps) {
    // A direct-mapped table by time; quantum boundaries are multiples of the quantum, so
    // the hash multiplies before it takes the high bits.
    const size_t k = (at_ps * 0x9e3779b97f4a7c15ull) >> (64 - kSlotBits);
    if (at_[k] != at_ps) {
      // A slot whose time has come is free (its notification has fired: SystemC triggers
      // the timed notifications of a time before any process runs at it).
      if (at_[k] > now_ps) {  // taken by another time: a wake-up of our own
        sc_core::wait(sc_core::sc_time::from_value(at_ps - now_ps));
        return;
      }
      at_[k] = at_ps;
      wake_[k].notify(sc_core::sc_time::from_value(at_ps - now_ps));
    }
    sc_core::wait(wake_[k]);
  }

 private:
  static constexpr unsigned kSlotBits = 7, kSlots = 1u << kSlotBits;
  // By slot: the SystemC time (ps) of its pending notification, if in the future, in
  // few cache lines (an sc_event takes 168 bytes), and its event.
  std::unique_ptr<uint64_t[]> at_;
  std::unique_ptr<sc_core::sc_event[]> wake_;
};

}  // namespace emx::pe
