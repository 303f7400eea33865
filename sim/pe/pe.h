// One EMC-Y processing element as a SystemC module. Its units:
//   execution unit   the ISS, one SC_THREAD; runs a thread atomically to its `end`, then
//                    dispatches the next ready thread in FIFO order, or idles;
//   input buffer     ready threads (on-chip FIFO spilling to memory), input_buffer.h;
//   matching + memory control units   serve arriving packets without the execution unit
//                    (SYSWR, SYSRD, 2-input matching, I-structures), packet_unit.h, timed
//                    here as one FIFO server;
//   switching unit   the PE's network node, in network/ (the Fabric).
// Timing: the ISS counts clocks in an integer (temporal decoupling) and the module
// synchronises with SystemC time once per quantum and whenever it interacts with other
// PEs — at a thread's end (to see every packet that arrived by then) and when its output
// queue is full. docs/simulator.md explains why the figures do not depend on the quantum.
#pragma once
#include <systemc>

#include <string>

#include "dispatcher.h"
#include "input_buffer.h"
#include "packet_unit.h"
#include "pe_ports.h"
#include "kernel_clock.h"
#include "sync_alarms.h"
#include "sim/iss/hart.h"
#include "sim/machine/machine_config.h"
#include "sim/mem/local_memory.h"
#include "sim/loader/symbols.h"
#include "sim/stats/stats.h"
#include "sim/trace/tracer.h"

namespace emx::pe {

class Pe : public sc_core::sc_module, private iss::HartEnv {
 public:
  Pe(sc_core::sc_module_name name, unsigned id, const machine::MachineConfig& cfg,
     MachinePort& machine, PeObserver& observer, SyncAlarms& alarms,
     const KernelClock& clock);

  unsigned id() const { return id_; }
  mem::LocalMemory& memory() { return memory_; }
  const mem::LocalMemory& memory() const { return memory_; }
  // Starts fetching the host cache lines of this PE's state that an arriving packet
  // touches (arrive), ahead of it (Machine::prefetch_arrival); changes nothing.
  void prefetch_arrival() const {
    const char* p = reinterpret_cast<const char*>(&written_alone_);
    for (unsigned k = 0; k < kArrivalLines; ++k) __builtin_prefetch(p + 64 * k, 1);
  }
  iss::Hart& hart() { return hart_; }
  const iss::Hart& hart() const { return hart_; }

  // Before simulation: the program's code and the hardware's entry points; and, on PEs
  // that run it, the first thread (the program's entry with sp, a0 = argc, a1 = argv).
  // `shared`: the code as another PE of the machine decoded it (iss::Hart::set_code).
  void load(uint32_t code_base, uint32_t code_bytes, const ThreadEntries& entries,
            std::shared_ptr<const iss::Hart::DecodedCode> shared = {});
  void start(uint32_t entry, uint32_t sp, uint32_t a0, uint32_t a1, uint64_t at_cycle);

  // A packet for this PE has fully arrived (called by the network, in time order).
  // (Inline: the usual packet, a SYSWR the memory unit serves itself, written without a
  // call or a frame; arrive_served serves the rest, and a bad address's error.)
  void arrive(const net::Packet& p, uint64_t cycle) {
    if (__builtin_expect(p.type == written_alone_, 1) &&
        __builtin_expect(packets_.remote_write_valid(memory_, p), 1)) {
      ++packets_received_;
      // (served_alone, with no running thread to stall: written_alone_)
      occupy_memory_unit(std::max(cycle, memory_unit_free_), syswr_clocks_);
      return;
    }
    arrive_served(p, cycle);
  }

  enum class State : uint8_t { idle, running, stopped };
  State state() const { return state_; }
  // The execution unit ran its thread to sim.max_cycles and stopped there.
  bool at_cycle_limit() const { return at_cycle_limit_; }
  std::string waiting_on() const;  // for deadlock reports

  // Lazy stall accounting (Machine::send): whether this PE's sends may float (not when
  // a tracer records send clocks, a profile charges stalls to sends, or memory-unit work
  // stalls a running thread); a floating send was accepted
  // after `stall` clocks,
  // `last`: none floats any more.
  bool lazy_sends() const { return lazy_sends_; }
  // At most this many floating sends: a send that finds them settles them first (send).
  static constexpr size_t kMaxFloatingSends = 256;
  // A send of this PE's execution unit taken by the machine without send() (Hart's direct
  // send: a floating one, below kMaxFloatingSends): counted as send() counts it.
  void count_send() {
    ++packets_sent_;
    ++interactions_;
  }
  // (Inline: the network driver calls it for every floating send.)
  void floating_send_accepted(uint64_t stall, bool last) {
    send_stall_cycles_ += stall;
    if (!last) return;
    // Only settle_sends waits for it: a notification nobody waits for would still be
    // pending activity, which stops the network driver's run ahead.
    if (settling_) notify(sends_settled_, sc_core::SC_ZERO_TIME);
    else if (mid_park_ == MidPark::thread_end || mid_park_ == MidPark::retry) resume_settled();
  }

  void register_stats(stats::Registry& r);
  // What register_stats registers (as stats.pe.N.NAME), with unit and meaning: the one
  // table behind the statistics and their documentation (emx stats --doc).
  struct StatCounter {
    const char* name;
    const char* unit;
    const char* meaning;
    const uint64_t* (*of)(const Pe&);
  };
  static const std::vector<StatCounter>& stat_counters();
  // Record thread spans, arrivals and input-buffer occupancy (nullptr: off).
  void set_tracer(trace::Tracer* t, const loader::SymbolTable* symbols);
  // Wait until SystemC time reaches the local clock, or an earlier clock (from the
  // execution unit's process).
  void sync();
  void sync_to(uint64_t cycle);
  // The run is over (Machine::run): an idle execution unit whose last thread's sends
  // were still to settle (next_thread) takes their stall clocks, if they are known.
  void finish_run();
  // From the network driver's process (MachinePort::run_later), with the network
  // processed through clock `at` and nothing else due by then in SystemC time: the
  // parked execution unit starts its next thread at `at` and runs as its own SystemC
  // thread would, until it parks again; where that thread would have to wait, it stops
  // and hands over to its SystemC thread, which goes on from there. `by_event`: something
  // else is due at `at` in SystemC time: wake the SystemC thread then, as usual.
  void run_inline(uint64_t at, bool by_event);

 private:
  void execute();  // SC_THREAD: the execution unit
  // (Inline: at every thread end, end_thread.)
  [[gnu::always_inline]] inline void next_thread(iss::Hart& h);
  // The rest of next_thread, from where the input buffer's head is looked at: takes the
  // next thread, or parks the execution unit when nothing is in the buffer. kCaughtUp:
  // the network was just caught up with SystemC time (MachinePort::catch_up), nothing
  // pushed since. (Inline: at every thread end and wake-up.)
  template <bool kCaughtUp>
  [[gnu::always_inline]] inline void take_next(iss::Hart& h);
  // Runs next_thread or take_next, a dispatch error (PacketError) reported as the PE's.
  template <void (Pe::*kStep)(iss::Hart&)>
  [[gnu::always_inline]] inline void dispatching(iss::Hart& h);
  // A parked execution unit woken at clock `at` by an arrival.
  // (Inline: into run_inline.)
  [[gnu::always_inline]] inline void wake(iss::Hart& h, uint64_t at);
  // The ISS up to the next quantum boundary (the adaptive quantum: execute).
  // (Inline: at every entry into the ISS, from run_inline and execute.)
  [[gnu::always_inline]] inline iss::Hart::Stop run_span();
  // What the SystemC thread does after the ISS stopped; false: the thread ends.
  bool handle_stop(iss::Hart::Stop stop);
  // In run_inline, where the SystemC thread would wait: it stops there (the ISS at an
  // instruction boundary) and says what the SystemC thread does to go on.
  enum class Resume : uint8_t {
    none, after_sync, take_next, retry, stop, after_quantum, next_thread
  };
  void hand_over(iss::Hart& h, Resume r) {
    resume_ = r;
    h.request_stop();
  }
  // An environment call that would wait, in run_inline: the instruction is given up.
  void retry(iss::Hart& h) {
    resume_ = Resume::retry;
    h.request_retry();
  }
  // The ISS stopped at a quantum boundary (short of sim.max_cycles), where the execution
  // unit synchronises with SystemC time: with inline runs allowed, rather than wait for
  // SystemC time to reach its clock, it parks mid-thread and the network driver goes on
  // with it at that clock (run_inline: the network is processed through it and nothing
  // else is due then, as after the wait) or, when another process is due then too, wakes
  // its SystemC thread at it; the synchronisation is counted then (syncs). False: it
  // cannot (no inline runs, or the clock is beyond the driver's agenda), and it waits.
  bool park_at_quantum();
  // A thread ended with sends still floating and the next thread ready (next_thread):
  // rather than wait for the network to accept those sends in its SystemC thread, the
  // execution unit parks, and when the last one is accepted (floating_send_accepted) the
  // network driver goes on with it at the present clock, where that thread would wake
  // (run_inline), or wakes its SystemC thread then.
  [[gnu::noinline]] void resume_settled();
  // An rtag of an absent element settles (settle): rather than wait in its SystemC
  // thread, the execution unit gives the instruction up and parks until its floating
  // sends are accepted (resume_settled), or, none floating, until its clock, where the
  // network driver goes on with it (as after a quantum); the rtag then runs again and
  // finds the network processed through its clock (synced_to_). False: it waits.
  [[gnu::always_inline]] inline bool park_to_retry(iss::Hart& h, bool floating);
  // Parking at `clock` instead of a timed wait moves how far the network is processed
  // when a cut run stops: not within two maximum quanta of sim.max_cycles.
  bool near_cycle_limit(uint64_t clock) const { return clock >= near_limit_from_; }
  void must_not_wait() const;  // a wait in run_inline is a bug
  uint64_t now_cycles() const;
  static void prefetch(const void* host_address) {
    if (host_address) __builtin_prefetch(host_address);
  }
  void trace_thread_begin(uint64_t cycle, const ThreadToken& t);
  const char* effect_text(const net::Packet& p, const PacketEffect& e) const;
  // The matching-slot or I-structure change that serving p made, for the tracer.
  void trace_cell(const net::Packet& p, const PacketEffect& e, uint64_t at) const;
  // A running thread loses clocks to memory-port conflicts with the memory unit, which
  // serves an arrival from clock `start` for `clocks` (a block read: one per word read).
  void stall_running_thread(uint64_t start, uint32_t clocks, uint32_t words) {
    if (clocks && stalls_threads_ && state_ == State::running &&
        start < hart_.cycles) {
      const uint64_t stall = uint64_t{cfg_.pe.memory_unit.exu_stall_clocks} * words;
      hart_.cycles += stall;
      exu_stall_cycles_ += stall;
    }
  }
  [[gnu::noinline]] void arrive_served(const net::Packet& p, uint64_t cycle);
  // The memory unit served a one-word access alone, from clock `start` for `clocks`.
  void served_alone(uint64_t start, uint32_t clocks) {
    stall_running_thread(start, clocks, 1);
    occupy_memory_unit(start, clocks);
  }
  void occupy_memory_unit(uint64_t start, uint32_t clocks) {
    memory_unit_cycles_ += clocks;
    memory_unit_free_ = start + clocks;
  }
  // A thread made ready by packet p (arrived at `cycle`) enters the input buffer, and an
  // idle execution unit is woken for it; returns the memory-unit clocks of a spill.
  // (Inline: into arrive_served, whose frame it shares.)
  [[gnu::always_inline]] inline uint32_t ready_thread(const ThreadToken& t, const net::Packet& p,
                                                      uint64_t cycle);
  // The replies of a block read whose request the memory unit starts at `start`.
  void send_block_read(const BlockRead& b, uint64_t start);

  // iss::HartEnv
  void send(iss::Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) override;
  void end_thread(iss::Hart& h) override;
  void settle(iss::Hart& h) override;
  void clock_read(iss::Hart& h) override;
  // The timer (docs/pe.md): CSR emx.timer_arm. Each armed timer is a pending 1-input
  // invocation; fire_timers (an SC_METHOD) delivers the due ones as arrivals.
  void arm_timer(iss::Hart& h, uint32_t cont, uint32_t clocks) override;
  void fire_timers();
  // Wait until no send floats, then take the stall clocks into the local clock.
  void settle_sends(iss::Hart& h);
  // Wait until no send floats, then take the stall clocks (MachinePort::take_send_stall).
  uint64_t settled_stall();
  // False: in run_inline, the rest (a sync, a catch-up) is the SystemC thread's.
  // `stall`: take_send_stall's answer; `caught_up`: as take_next's (then no catch-up
  // again unless a wait moved SystemC time).
  bool settle_late(iss::Hart& h, uint64_t end, uint64_t stall, bool caught_up);
  static constexpr uint64_t kNoLateEnd = UINT64_MAX;

  // The PE's state by what touches it, each group from the start of a host cache line:
  // at 64 PEs and more the host's L1 cache loses a PE's state between two of its
  // packets, so every line a packet, a send or a wake-up touches is a miss.
  // 1. An arriving SYSWR that the memory unit serves itself (arrive) touches this line
  //    alone besides the word it writes: 64 bytes, the packet unit's SYSWR counter last.
  static constexpr unsigned kArrivalLines = 1;
  // The packet type arrive writes without a call (a SYSWR the memory unit serves itself,
  // no tracer, no stall of a running thread by memory-unit work), or none (kNoType): one
  // comparison for all that. (set_arrival_flags)
  static constexpr uint16_t kNoType = 0x100;
  alignas(64) uint16_t written_alone_ = kNoType;
  bool traced_ = false;            // tracer_ is set (the arrivals' paths ask here)
  bool stalls_threads_;            // pe.memory_unit.exu_stall_clocks is not 0
  uint32_t syswr_clocks_;          // the memory unit's per SYSWR (pe.memory_unit)
  uint64_t memory_unit_free_ = 0;  // the memory/matching unit is busy until this clock
  uint64_t packets_received_ = 0, memory_unit_cycles_ = 0;  // statistics
  mem::LocalMemory memory_;
  PacketUnit packets_;  // (its SYSWR counter first; its other packets' state after)
  void set_arrival_flags();  // written_alone_ and traced_
  // 2. What sends, their acceptance, parks, wake-ups and syncs touch: one line.
  alignas(64) MachinePort& machine_;
  unsigned id_;
  State state_ = State::idle;
  // Parked: idle outside the ISS, its SystemC thread waiting for token_ready_ in
  // execute(), so that the network driver may run it (run_inline).
  bool parked_ = false;
  bool inline_ = false;        // in run_inline
  bool inline_ok_ = false;     // run_inline allowed (with lazy sends only)
  bool wake_pending_ = false;  // parked, and a wake-up is on its way (event or driver)
  // Why a running execution unit parked (parked_ with state_ running): at a quantum
  // boundary (park_at_quantum), at a thread's end for its floating sends (next_thread),
  // or with an rtag given up, for its sends or its clock (park_to_retry).
  enum class MidPark : uint8_t { none, quantum, thread_end, retry };
  MidPark mid_park_ = MidPark::none;
  Resume resume_ = Resume::none;
  iss::Hart::Stop handed_stop_ = iss::Hart::Stop::limit;
  bool settling_ = false;      // settle_sends waits for sends_settled_
  bool lazy_sends_ = false;    // lazy_sends(), fixed when the simulation starts
  // Fixed when the simulation starts (execute): whether next_thread may take its
  // shortcuts (no memory-unit stalls of running threads, no tracer).
  bool shortcuts_ok_ = false;
  uint64_t interactions_ = 0;  // environment calls (the adaptive quantum: Pe::execute)
  uint64_t synced_to_ = 0;     // the network has been processed through this clock for it
  uint64_t packets_sent_ = 0, send_stall_cycles_ = 0, syncs_ = 0;  // statistics
  // 3. Their clocks: one line.
  const KernelClock& clock_;  // SystemC time's, shared by the machine's PEs
  const machine::MachineConfig& cfg_;
  uint64_t span_ = 0;         // the adaptive quantum's present span (execute)
  // Fixed when the simulation starts (execute): the last limit of a run (sim.max_cycles,
  // or none).
  uint64_t span_limit_ = UINT64_MAX;
  uint64_t near_limit_from_ = UINT64_MAX;  // near_cycle_limit from this clock on
  uint64_t idle_since_ = 0;  // the clock the execution unit went idle at (next_thread)
  uint64_t thread_started_at_ = 0;
  uint64_t late_end_ = kNoLateEnd;  // idle, the sends of the thread that ended then unsettled
  // 4. A thread's start and end: what they count, and the dispatcher (32 bytes).
  uint64_t threads_ = 0, busy_cycles_ = 0, dispatch_cycles_ = 0, idle_cycles_ = 0;
  Dispatcher dispatcher_;
  // Every SystemC notification of PE code goes through here (MachinePort::activity_scheduled).
  void notify(sc_core::sc_event& e, const sc_core::sc_time& in) {
    e.notify(in);
    machine_.activity_scheduled();
  }
  // 5. The input buffer (a thread-starting packet's too; its first line what a push and a
  // pop touch), the ISS (from a line's start, as its own layout counts: the registers a
  // dispatch sets in its first line, its clock and program counter together, its blocks'
  // fields together).
  alignas(64) InputBuffer input_;
  alignas(64) iss::Hart hart_;
  // Seldom touched.
  trace::Tracer* tracer_ = nullptr;
  // Whether a tracer records, where a thread starts or ends: shortcuts_ok_ (in a line
  // those touch) is false while one does, so tracer_ is read only then.
  bool tracing() const { return !shortcuts_ok_ && tracer_; }
  uint64_t exu_stall_cycles_ = 0;
  SyncAlarms& alarms_;  // shared by the machine's PEs
  PeObserver& observer_;
  bool started_ = false;
  bool at_cycle_limit_ = false;
  sc_core::sc_event token_ready_;
  sc_core::sc_event sends_settled_;  // the last floating send was accepted
  sc_core::sc_event never_;          // waited for at the cycle limit, never notified
  struct Timer {
    uint64_t at;    // the clock of delivery
    uint32_t cont;  // the continuation it invokes
  };
  std::vector<Timer> timers_;  // armed, by clock (few: usually one)
  sc_core::sc_event timer_due_;
  uint64_t timers_fired_ = 0;
  const loader::SymbolTable* symbols_ = nullptr;
  uint32_t resume_entry_ = 0, resume_ra_offset_ = 0;  // the runtime's context resumption
  uint32_t resume_frame_entry_ = 0;                    // and its collective frame's
};

}  // namespace emx::pe
