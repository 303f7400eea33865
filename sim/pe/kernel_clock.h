// SystemC time in the machine's clocks, shared by the PEs and the network driver.
// sc_time_stamp() is a call into the SystemC library, and a clock from it a 64-bit
// division: the glue of a message asks ~10 times (catch-ups, syncs, dispatches), mostly
// at a time already asked about. The kernel's own record of the time is read instead
// (the same value), and the last division is kept.
#pragma once
#include <systemc>

#include <cstdint>

namespace emx::pe {

class KernelClock {
 public:
  explicit KernelClock(uint64_t period_ps)
      : now_(&sc_core::sc_get_curr_simcontext()->time_stamp()), period_ps_(period_ps) {}
  KernelClock(const KernelClock&) = delete;
  KernelClock& operator=(const KernelClock&) = delete;

  uint64_t period_ps() const { return period_ps_; }
  uint64_t ps() const { return now_->value(); }  // sc_time_stamp().value()
  uint64_t clock() const {                       // sc_time_stamp() in clocks
    const uint64_t ps = now_->value();
    if (ps != ps_) {
      ps_ = ps;
      clock_ = ps / period_ps_;
    }
    return clock_;
  }
  // From now until clock `at` (zero if it has come).
  sc_core::sc_time until(uint64_t at) const {
    const uint64_t t = at * period_ps_, ps = now_->value();
    return sc_core::sc_time::from_value(t > ps ? t - ps : 0);
  }

 private:
  const sc_core::sc_time* now_;  // the simulation context's present time
  uint64_t period_ps_;
  mutable uint64_t ps_ = 0, clock_ = 0;  // the last clock() asked: ps_ / period_ps_
};

}  // namespace emx::pe
