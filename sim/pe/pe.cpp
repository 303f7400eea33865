#include "pe.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "isa/csr_numbers.h"

namespace emx::pe {

Pe::Pe(sc_core::sc_module_name name, unsigned id, const machine::MachineConfig& cfg,
       MachinePort& machine, PeObserver& observer, SyncAlarms& alarms,
       const KernelClock& clock)
    : sc_module(name),
      stalls_threads_(cfg.pe.memory_unit.exu_stall_clocks != 0),
      syswr_clocks_(cfg.pe.memory_unit.syswr_clocks),
      memory_(cfg.pe.memory_bytes),
      packets_(id, cfg.pes, memory_, cfg.pe.memory_unit, cfg.pe.timing.memory_penalty),
      machine_(machine),
      id_(id),
      clock_(clock),
      cfg_(cfg),
      dispatcher_(id, cfg.pe.threads, cfg.stack_top(), cfg.pe.timing.memory_penalty),
      input_(cfg.pe.input_buffer, cfg.pe.reserved_bytes / 8, cfg.pe.timing.memory_penalty),
      hart_(memory_, cfg.pe.timing),
      alarms_(alarms),
      observer_(observer) {
  hart_.set_env(this);
  hart_.set_machine_info(id, cfg.pes, static_cast<uint32_t>(cfg.clock_mhz * 1000.0 + 0.5));
  hart_.features = (cfg.pe.memory_unit.direct_remote_access ? isa::csr::kFeatureDirectRemoteAccess : 0) |
                   (cfg.pe.isa.send_displacement ? isa::csr::kFeatureSendDisplacement : 0) |
                   (cfg.pe.isa.auto_increment ? isa::csr::kFeatureAutoIncrement : 0);
  hart_.frame_words = cfg.pe.threads.frame_words;
  hart_.translate = cfg.sim.iss.translate && iss::kTranslationBuilt;
  set_arrival_flags();
  SC_HAS_PROCESS(Pe);
  SC_THREAD(execute);
  SC_METHOD(fire_timers);
  sensitive << timer_due_;
  dont_initialize();
}

void Pe::set_arrival_flags() {
  traced_ = tracer_ != nullptr;
  net::Packet p{};
  p.type = static_cast<uint8_t>(isa::PacketType::syswr);
  written_alone_ = !tracer_ && packets_.writes_directly(p) && !cfg_.pe.memory_unit.exu_stall_clocks
                       ? p.type
                       : kNoType;
}

void Pe::arm_timer(iss::Hart& h, uint32_t cont, uint32_t clocks) {
  ++interactions_;
  const Timer t{h.cycles + clocks, cont};
  auto at = std::upper_bound(timers_.begin(), timers_.end(), t.at,
                             [](uint64_t c, const Timer& x) { return c < x.at; });
  timers_.insert(at, t);
  notify(timer_due_, clock_.until(timers_.front().at));
}

void Pe::fire_timers() {
  // Arrivals from the network up to now first, so the input buffer keeps arrival order.
  machine_.catch_up();
  const uint64_t now = now_cycles();
  size_t k = 0;
  for (; k < timers_.size() && timers_[k].at <= now; ++k) {
    net::Packet p;
    p.type = static_cast<uint8_t>(isa::PacketType::invoke1);
    p.addr = timers_[k].cont;
    p.src = p.dst = static_cast<uint16_t>(id_);
    ++timers_fired_;
    arrive(p, timers_[k].at);
  }
  timers_.erase(timers_.begin(), timers_.begin() + static_cast<std::ptrdiff_t>(k));
  if (!timers_.empty())
    notify(timer_due_, clock_.until(timers_.front().at));
}

void Pe::load(uint32_t code_base, uint32_t code_bytes, const ThreadEntries& entries,
              std::shared_ptr<const iss::Hart::DecodedCode> shared) {
  hart_.set_code(code_base, code_bytes, std::move(shared));
  dispatcher_.set_entries(entries);
}

void Pe::start(uint32_t entry, uint32_t sp, uint32_t a0, uint32_t a1, uint64_t at_cycle) {
  hart_.pc = entry;
  hart_.x[2] = sp;
  hart_.x[10] = a0;
  hart_.x[11] = a1;
  hart_.cycles = at_cycle;
  started_ = true;
}

uint64_t Pe::now_cycles() const { return clock_.clock(); }

void Pe::sync() { sync_to(hart_.cycles); }

void Pe::sync_to(uint64_t cycle) {
  // The memory unit may add stall clocks while we wait: wait until we really are there.
  for (;;) {
    const uint64_t target = std::min(cycle, hart_.cycles) * clock_.period_ps(), now = clock_.ps();
    if (target <= now) break;
    must_not_wait();
    alarms_.wait_until(target, now);
  }
  ++syncs_;
}

void Pe::execute() {
  // Decided once, when the simulation starts (tracer and profile are set up before it).
  // A time limit does not matter: the network delivers nothing past it, so a PE whose
  // provisional clock runs past it only executes a few instructions more.
  lazy_sends_ = !cfg_.pe.memory_unit.exu_stall_clocks && !tracer_ &&
                hart_.profile().count.empty();
  inline_ok_ = lazy_sends_;
  shortcuts_ok_ = !cfg_.pe.memory_unit.exu_stall_clocks && !tracer_;
  span_ = cfg_.sim.quantum_cycles;
  span_limit_ = cfg_.sim.max_cycles ? cfg_.sim.max_cycles : UINT64_MAX;
  const uint64_t margin = 2 * std::max(cfg_.sim.quantum_cycles, cfg_.sim.quantum_max_cycles);
  near_limit_from_ = !cfg_.sim.max_cycles ? UINT64_MAX
                     : cfg_.sim.max_cycles > margin ? cfg_.sim.max_cycles - margin
                                                    : 0;
  if (started_) {
    ++threads_;  // the loader's thread (main) is one of the PE's threads
    state_ = State::running;
    thread_started_at_ = hart_.cycles;
    trace_thread_begin(hart_.cycles, ThreadToken{});
  } else {
    end_thread(hart_);  // nothing to run yet: wait for the first packet
    if (state_ == State::stopped) return;
  }
  for (;;) {
    if (parked_) {
      wait(token_ready_);
      if (parked_) {
        const MidPark why = std::exchange(mid_park_, MidPark::none);
        if (why == MidPark::quantum) {  // at its quantum boundary, now in SystemC time too
          parked_ = false;
          resume_ = Resume::after_quantum;
        } else if (why == MidPark::thread_end) {  // its sends are accepted
          parked_ = false;
          resume_ = Resume::next_thread;
        } else if (why == MidPark::retry) {  // the rtag runs again, at this clock
          parked_ = false;
          synced_to_ = std::max(synced_to_, now_cycles());
        } else {
          wake(hart_, now_cycles());  // an arrival's wake-up
        }
      }
    }
    // What run_inline handed over, if anything.
    switch (std::exchange(resume_, Resume::none)) {
      case Resume::none: break;
      case Resume::after_sync:
        sync();
        machine_.catch_up();
        dispatching<&Pe::take_next<true>>(hart_);
        break;
      case Resume::take_next: dispatching<&Pe::take_next<false>>(hart_); break;
      case Resume::retry: break;  // the ISS executes the instruction again
      case Resume::after_quantum: sync(); break;
      case Resume::next_thread: dispatching<&Pe::next_thread>(hart_); break;
      case Resume::stop:
        if (!handle_stop(handed_stop_)) return;
        break;
    }
    if (state_ == State::stopped) return;
    if (parked_) continue;
    if (!handle_stop(run_span())) return;
  }
}

iss::Hart::Stop Pe::run_span() {
  // The adaptive quantum: q x 2^k up to the larger of q and sim.quantum_max_cycles (read
  // from the configuration, which the PEs share: no line of the PE's own), k growing while
  // the PE computes alone (its state then stays in the host's caches for longer: at 1024
  // PEs a quantum of 1000 clocks finds it cold every time), back to q at its first
  // interaction.
  // Quantum boundaries are multiples of the quantum, so runs do not depend on start
  // offsets; the last one is the cycle limit, whatever the quantum.
  const uint64_t interactions = interactions_;
  const iss::Hart::Stop stop =
      hart_.run(std::min((hart_.cycles / span_ + 1) * span_, span_limit_));
  const uint64_t q = cfg_.sim.quantum_cycles;
  span_ = interactions_ != interactions ? q : std::min(span_ * 2, std::max(q, cfg_.sim.quantum_max_cycles));
  return stop;
}

bool Pe::handle_stop(iss::Hart::Stop stop) {
  switch (stop) {
    case iss::Hart::Stop::limit:
      if (park_at_quantum()) return true;
      if (cfg_.sim.max_cycles && hart_.cycles >= cfg_.sim.max_cycles) {
        // The run ends here (Machine::run reports the cycle limit): no wake-up after it,
        // and none at it, which would run this loop again without advancing.
        at_cycle_limit_ = true;
        wait(never_);
      }
      sync();
      return true;
    case iss::Hart::Stop::stopped:  // parked, handed over, or the program's end
      return parked_ || resume_ != Resume::none;
    case iss::Hart::Stop::fault:
      settle_sends(hart_);
      state_ = State::stopped;
      sync();
      observer_.pe_faulted(id_, hart_.fault());
      return false;
  }
  return false;
}

void Pe::end_thread(iss::Hart& h) {
  ++interactions_;
  dispatching<&Pe::next_thread>(h);
}

template <void (Pe::*kStep)(iss::Hart&)>
void Pe::dispatching(iss::Hart& h) {
  try {
    (this->*kStep)(h);
  } catch (const std::runtime_error& e) {  // PacketError from the dispatcher
    state_ = State::stopped;
    observer_.pe_error(id_, h.cycles, e.what());
    h.request_stop();
  }
}

bool Pe::park_to_retry(iss::Hart& h, bool floating) {
  if (!floating && (near_cycle_limit(h.cycles) || !machine_.run_later(id_, h.cycles)))
    return false;
  ++interactions_;
  parked_ = true;
  mid_park_ = MidPark::retry;
  h.request_retry();
  return true;
}

void Pe::settle(iss::Hart& h) {
  const uint64_t stall = machine_.take_send_stall(id_);
  const bool floating = stall == MachinePort::kSendsFloat;
  if (!floating) {
    h.cycles += stall;  // its clock is exact
    if (h.cycles <= synced_to_) {  // the network has been processed through it
      ++interactions_;
      machine_.catch_up();
      return;
    }
  }
  if (inline_ok_ && park_to_retry(h, floating)) return;
  // It waits: not in run_inline (the SystemC thread executes the instruction again).
  if (inline_) return retry(h);
  // The clock with floating sends is provisional, a lower bound of the exact one: reach it
  // first, and by then the network has usually taken those sends, so that settling them
  // needs no wait of its own.
  ++interactions_;
  sync();
  settle_sends(h);
  sync();
  machine_.catch_up();
}

void Pe::clock_read(iss::Hart& h) {
  if (inline_ && machine_.floating_sends(id_)) return retry(h);
  ++interactions_;
  settle_sends(h);
}

bool Pe::park_at_quantum() {
  if (!inline_ok_ || near_cycle_limit(hart_.cycles) || !machine_.run_later(id_, hart_.cycles))
    return false;
  parked_ = true;
  mid_park_ = MidPark::quantum;
  return true;
}

void Pe::resume_settled() {
  // Its SystemC thread would wake now, in the next delta cycle (not at the cycle limit,
  // where the network driver runs nothing more).
  const uint64_t now = now_cycles();
  if (now >= span_limit_ || !machine_.run_later(id_, now))
    notify(token_ready_, sc_core::SC_ZERO_TIME);
}

void Pe::must_not_wait() const {
  if (inline_) throw std::logic_error(fmt::format("PE {}: a wait in run_inline", id_));
}

void Pe::settle_sends(iss::Hart& h) { h.cycles += settled_stall(); }

uint64_t Pe::settled_stall() {
  uint64_t stall;
  while ((stall = machine_.take_send_stall(id_)) == MachinePort::kSendsFloat) {
    must_not_wait();
    settling_ = true;
    wait(sends_settled_);
    settling_ = false;
  }
  return stall;
}

// The sends of a thread that ended at provisional clock `end` are settled after the
// execution unit waited past it (next_thread): its thread really ended at end + the
// stall clocks, which were busy clocks, not idle ones; the next thread starts at that
// clock or at the one it waited for, whichever is later, and sees every packet that
// arrived by then.
bool Pe::settle_late(iss::Hart& h, uint64_t end, uint64_t stall, bool caught_up) {
  late_end_ = kNoLateEnd;
  if (stall == MachinePort::kSendsFloat) {
    stall = settled_stall();
    caught_up = false;
  }
  busy_cycles_ += stall;
  idle_cycles_ -= std::min(stall, h.cycles - end);
  if (end + stall > h.cycles) {
    h.cycles = end + stall;
    if (inline_) return false;  // the SystemC thread syncs
    sync();
    caught_up = false;
  }
  if (!caught_up) machine_.catch_up();
  return true;
}

void Pe::finish_run() {
  // Idle with its last thread's sends settled late, which the network has accepted
  // since: the thread's end clock is exact now, as if it had waited for them.
  if (late_end_ == kNoLateEnd) return;
  const uint64_t stall = machine_.take_send_stall(id_);
  if (stall == MachinePort::kSendsFloat) return;
  busy_cycles_ += stall;
  hart_.cycles = std::max(hart_.cycles, late_end_ + stall);
  late_end_ = kNoLateEnd;
}

void Pe::set_tracer(trace::Tracer* t, const loader::SymbolTable* symbols) {
  tracer_ = t;
  set_arrival_flags();
  symbols_ = symbols;
  resume_entry_ = symbols->address_of("__emx_resume");
  resume_frame_entry_ = symbols->address_of("__emx_resume_frame");
  resume_ra_offset_ = symbols->address_of("__emx_ctx_ra_offset");
}

void Pe::trace_thread_begin(uint64_t cycle, const ThreadToken& t) {
  if (!tracer_) return;
  ThreadToken shown = t;  // show the registers the thread starts with (a1 of a handler)
  shown.op0 = hart_.x[10];
  shown.op1 = hart_.x[11];
  std::string name = symbols_->describe(hart_.pc);
  // A blocked computation of the runtime resumes through a stub (a context's, or a
  // collective frame's): name the span by the code it returns into (saved in the
  // context or frame, which tp points to, at the same offset).
  const uint32_t ra_at = hart_.x[4] + resume_ra_offset_;
  const bool stub = (resume_entry_ && hart_.pc == resume_entry_) ||
                    (resume_frame_entry_ && hart_.pc == resume_frame_entry_);
  if (stub && resume_ra_offset_ && memory_.valid(ra_at, 4))
    name = "resume " + symbols_->describe(memory_.read32(ra_at));
  tracer_->thread_begin(id_, cycle, hart_.pc, name, shown);
}

void Pe::next_thread(iss::Hart& h) {
  if (!input_.empty()) prefetch(dispatcher_.entry_word(memory_, input_.front()));  // the next
  // The next thread is the one the hardware takes once every packet that arrived by our
  // local clock is in the input buffer. A head that is ready by our clock is taken at
  // once: packets still on their way arrive after SystemC time, later than the head, and
  // queue behind it (the input buffer counts their occupancy at their own arrival
  // clocks). With no head at all, the execution unit idles until one is ready, at its
  // clock or later: it waits for the event an arrival notifies at that clock (arrive),
  // not for SystemC time to reach its clock first, a second wait (a SystemC thread
  // switch) that would see nothing the event misses. And while sends float, the thread's
  // end clock is provisional, a lower bound of the exact one: with no head ready by it,
  // the execution unit waits anyway (for the head's clock, or for a packet) and settles
  // the sends after that wait, when the network has usually accepted them — one wait
  // instead of two (settle_late). None of this when an arrival could stall a running
  // thread (memory_unit.exu_stall_clocks: the stall's place would move) or a tracer
  // samples the buffer, nor at the cycle limit (the run's end must find the execution
  // unit waiting for its clock, as a cut run does): then it settles, and reaches its
  // clock in SystemC time before it looks.
  const bool shortcuts = shortcuts_ok_ && h.cycles < span_limit_;
  const uint64_t end = h.cycles;  // provisional while sends float
  const uint64_t stall = machine_.take_send_stall(id_);  // (taken when none float)
  const bool floating = stall == MachinePort::kSendsFloat;
  const bool unsettled =
      shortcuts && floating && !(!input_.empty() && input_.front().ready_at <= end);
  if (!unsettled && floating && inline_ok_) {  // settling them waits: nothing done yet
    parked_ = true;
    mid_park_ = MidPark::thread_end;
    h.request_stop();
    return;
  }
  // The thread ends at its real clock (none floating: nothing to wait for).
  if (!unsettled) {
    if (floating) settle_sends(h);
    else h.cycles += stall;
  }
  late_end_ = unsettled ? end : kNoLateEnd;
  if (state_ == State::running) {
    busy_cycles_ += h.cycles - thread_started_at_;
    if (tracing()) tracer_->thread_end(id_, h.cycles);
  }
  const bool head_ready = shortcuts && !input_.empty() && input_.front().ready_at <= h.cycles;
  if (!head_ready && !(shortcuts && input_.empty())) {
    if (inline_) return hand_over(h, Resume::after_sync);
    sync();
  }
  machine_.catch_up();
  take_next<true>(h);
}

template <bool kCaughtUp>
void Pe::take_next(iss::Hart& h) {
  for (bool caught_up = kCaughtUp;; caught_up = true) {
    if (!input_.empty()) {
      const uint64_t ready = input_.front().ready_at;
      if (ready <= h.cycles) {
        if (late_end_ == kNoLateEnd) break;
        const uint64_t stall = machine_.take_send_stall(id_);
        if (inline_ && stall == MachinePort::kSendsFloat) return hand_over(h, Resume::take_next);
        if (!settle_late(h, late_end_, stall, caught_up)) return hand_over(h, Resume::after_sync);
        continue;
      }
      idle_cycles_ += ready - h.cycles;  // the matching unit is still at work on it
      h.cycles = ready;
      if (inline_) return hand_over(h, Resume::after_sync);
      sync();
      machine_.catch_up();
      continue;
    }
    state_ = State::idle;
    idle_since_ = h.cycles;
    if (inline_ok_) {
      // Parked: the SystemC thread waits outside the ISS (execute), and an arrival may
      // start the next thread from the network's process instead (run_inline).
      parked_ = true;
      wake_pending_ = false;
      h.request_stop();
      return;
    }
    wait(token_ready_);
    h.cycles = std::max(h.cycles, now_cycles());
    idle_cycles_ += h.cycles - idle_since_;
    machine_.catch_up();
  }
  state_ = State::running;
  ThreadToken t;
  uint32_t clocks = input_.pop(t, h.cycles, now_cycles());
  clocks += dispatcher_.start(h, t);
  thread_started_at_ = h.cycles;
  if (tracing()) {
    tracer_->buffer_pop(id_, h.cycles);
    trace_thread_begin(h.cycles, t);
    tracer_->input_buffer(id_, h.cycles, input_.size());
  }
  h.cycles += clocks;
  dispatch_cycles_ += clocks;
  ++threads_;
  if (!input_.empty()) prefetch(dispatcher_.frame_word(memory_, input_.front()));  // while it runs
}

void Pe::wake(iss::Hart& h, uint64_t at) {
  parked_ = false;
  wake_pending_ = false;
  h.cycles = std::max(h.cycles, at);
  idle_cycles_ += h.cycles - idle_since_;
  machine_.catch_up();
  dispatching<&Pe::take_next<true>>(h);
}

void Pe::run_inline(uint64_t at, bool by_event) {
  if (!parked_) return;
  if (by_event) {
    notify(token_ready_, clock_.until(at));
    return;
  }
  inline_ = true;
  const MidPark why = std::exchange(mid_park_, MidPark::none);
  if (why == MidPark::quantum) {  // its thread goes on from its quantum boundary, synchronised
    parked_ = false;
    ++syncs_;
  } else if (why == MidPark::thread_end) {  // its thread's end goes on, its sends accepted
    parked_ = false;
    dispatching<&Pe::next_thread>(hart_);
  } else if (why == MidPark::retry) {  // its rtag runs again, the network processed through `at`
    parked_ = false;
    synced_to_ = std::max(synced_to_, at);
    ++syncs_;
  } else {
    wake(hart_, at);
  }
  iss::Hart::Stop stop = iss::Hart::Stop::stopped;
  if (!parked_ && resume_ == Resume::none && state_ == State::running) stop = run_span();
  inline_ = false;
  if (parked_) return;  // idle again
  if (resume_ == Resume::none && stop == iss::Hart::Stop::limit && park_at_quantum()) return;
  if (resume_ == Resume::none) {
    resume_ = Resume::stop;
    handed_stop_ = stop;
  }
  notify(token_ready_, sc_core::SC_ZERO_TIME);  // its SystemC thread goes on from here
}

void Pe::send(iss::Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) {
  // A long stream without a thread end would let floating sends pile up (memory, and a
  // provisional clock lagging further and further): take their stalls now and then.
  if (machine_.floating_sends(id_) >= kMaxFloatingSends) {
    if (inline_) return retry(h);
    settle_sends(h);
  }
  count_send();
  const uint64_t before = h.cycles;
  machine_.send(id_, type, addr, data, h.pc, h.cycles);
  send_stall_cycles_ += h.cycles - before;
}

void Pe::arrive_served(const net::Packet& p, uint64_t cycle) {
  ++packets_received_;
  const uint64_t start = std::max(cycle, memory_unit_free_);
  try {
    if (!traced_) {  // the usual packets, served as below without a packet-effect record
      if (packets_.writes_directly(p)) return served_alone(start, packets_.remote_write(p));
      ThreadToken t;
      if (PacketUnit::starts_thread_alone(p, t)) {  // no memory-unit clocks
        t.ready_at = start;
        const uint64_t done = start + ready_thread(t, p, cycle);
        memory_unit_cycles_ += done - start;
        memory_unit_free_ = done;
        return;
      }
    }
    PacketEffect e = packets_.accept(p);
    uint64_t done = start + e.clocks;
    stall_running_thread(start, e.clocks, e.block ? e.block->words : 1);
    if (e.thread) {
      e.thread->ready_at = done;
      done += ready_thread(*e.thread, p, cycle);  // a spill keeps the memory unit busy
    }
    memory_unit_cycles_ += done - start;
    memory_unit_free_ = done;
    if (traced_) {
      tracer_->packet_arrived(p, cycle, start, done, effect_text(p, e));
      trace_cell(p, e, start);
      if (e.thread) tracer_->input_buffer(id_, e.thread->ready_at, input_.size());
    }
    if (e.reply) machine_.reply(*e.reply, done);
    if (e.block) send_block_read(*e.block, start);
  } catch (const std::runtime_error& e) {
    observer_.pe_error(id_, cycle, e.what(), &p);
  }
}

uint32_t Pe::ready_thread(const ThreadToken& t, const net::Packet& p, uint64_t cycle) {
  const uint32_t spill = input_.push(t, cycle);
  if (traced_) tracer_->buffer_push(id_, t.ready_at, p, spill != 0);
  // Only an idle execution unit waits for this event; a busy one looks at the input
  // buffer when its thread ends (a timed notification costs a heap operation).
  if (state_ == State::idle) {
    const uint64_t clock = std::max(t.ready_at, idle_since_);
    // A parked execution unit may be started by the network's process (run_inline),
    // once per wake-up: the first arrival's clock is the earliest (arrival order).
    if (!(parked_ && (wake_pending_ || (wake_pending_ = machine_.run_later(id_, clock))))) {
      notify(token_ready_, clock_.until(clock));
    }
  }
  return spill;
}

void Pe::send_block_read(const BlockRead& b, uint64_t start) {
  const MemoryUnitConfig& c = cfg_.pe.memory_unit;
  const uint32_t n = b.completion ? b.words + 1 : b.words;
  for (uint32_t k = 0; k < n; ++k)
    machine_.reply(block_read_reply(b, k, memory_, id_), start + block_read_reply_offset(b, k, c));
}

const char* Pe::effect_text(const net::Packet& p, const PacketEffect& e) const {
  using isa::PacketType;
  switch (static_cast<PacketType>(p.type)) {
    case PacketType::invoke2l:
    case PacketType::invoke2r:
      return e.thread ? "matched its partner: thread ready" : "operand stored, waits for its partner";
    case PacketType::iwrite:
      return e.reply ? "I-structure written, waiting reader answered" : "I-structure written";
    case PacketType::iread:
      return e.reply ? "I-structure read, value sent" : "I-structure read deferred";
    case PacketType::blockread:
      return "block read addresses latched";
    case PacketType::blockreadn:
      return "block read: words sent as SYSWR";
    case PacketType::blockreadf:
      return "block read: words sent as SYSWR, completion as SYSRD behind them";
    default:
      break;
  }
  if (e.thread) return "thread ready";
  if (e.reply) return "memory read, value sent";
  return "memory written";
}

void Pe::trace_cell(const net::Packet& p, const PacketEffect& e, uint64_t at) const {
  using isa::PacketType;
  using trace::Cell;
  Cell c;
  switch (static_cast<PacketType>(p.type)) {
    case PacketType::invoke2l:
    case PacketType::invoke2r: c = e.thread ? Cell::operand_matched : Cell::operand_waits; break;
    case PacketType::iwrite: c = e.reply ? Cell::is_woken : Cell::is_full; break;
    case PacketType::iread: c = e.reply ? Cell::is_taken : Cell::is_deferred; break;
    default: return;
  }
  tracer_->cell(id_, at, gaddr_local(p.addr), c, p);
}

std::string Pe::waiting_on() const {
  std::string s;
  switch (state_) {
    case State::idle: s = "idle, no thread ready"; break;
    case State::running: s = "running"; break;
    case State::stopped: s = "stopped"; break;
  }
  if (packets_.operands_waiting())
    s += fmt::format("; {} operand(s) wait in matching slots for their partner",
                     packets_.operands_waiting());
  if (packets_.readers_waiting())
    s += fmt::format("; {} reader(s) wait on empty I-structure elements", packets_.readers_waiting());
  return s;
}

const std::vector<Pe::StatCounter>& Pe::stat_counters() {
  static const std::vector<StatCounter> table = {
      {"cycles", "clocks", "the PE's local clock at the end of the run",
       [](const Pe& p) { return &p.hart_.cycles; }},
      {"instructions", "instructions", "instructions executed",
       [](const Pe& p) { return &p.hart_.instret; }},
      {"threads", "threads",
       "threads started: the loader's (main, one on every PE) and each one dispatched from "
       "the input buffer",
       [](const Pe& p) { return &p.threads_; }},
      {"busy_cycles", "clocks", "clocks the execution unit ran threads (dispatch included)",
       [](const Pe& p) { return &p.busy_cycles_; }},
      {"idle_cycles", "clocks",
       "clocks the execution unit waited with no thread ready (empty input buffer, or its "
       "head still in the matching unit)",
       [](const Pe& p) { return &p.idle_cycles_; }},
      {"dispatch_cycles", "clocks",
       "clocks spent starting threads from packets (input buffer pop and dispatch)",
       [](const Pe& p) { return &p.dispatch_cycles_; }},
      {"packets_sent", "packets", "packets sent by the execution unit's send instructions",
       [](const Pe& p) { return &p.packets_sent_; }},
      {"send_stall_cycles", "clocks", "clocks sends waited for room in a full output queue",
       [](const Pe& p) { return &p.send_stall_cycles_; }},
      {"packets_received", "packets", "packets that arrived at this PE (from PEs and the host)",
       [](const Pe& p) { return &p.packets_received_; }},
      {"memory_unit_cycles", "clocks",
       "clocks the matching/memory unit was busy serving arrivals",
       [](const Pe& p) { return &p.memory_unit_cycles_; }},
      {"exu_stall_cycles", "clocks",
       "clocks running threads lost to memory-unit accesses (pe.memory_unit.exu_stall_clocks)",
       [](const Pe& p) { return &p.exu_stall_cycles_; }},
      {"input_buffer.spills", "packets",
       "packets spilled from the on-chip input buffer to the buffer in memory",
       [](const Pe& p) { return p.input_.spills_counter(); }},
      {"input_buffer.refills", "packets", "packets brought back from the buffer in memory",
       [](const Pe& p) { return p.input_.refills_counter(); }},
      {"input_buffer.max_occupancy", "packets", "most thread packets waiting in the input buffer at once",
       [](const Pe& p) { return p.input_.max_counter(); }},
      {"timers", "invocations", "timer invocations delivered (CSR emx.timer_arm)",
       [](const Pe& p) { return &p.timers_fired_; }},
      {"syncs", "count",
       "synchronisations of the PE's local clock with SystemC time (a host-speed figure: "
       "fewer is faster; depends on sim.quantum_cycles)",
       [](const Pe& p) { return &p.syncs_; }},
      {"memory_unit.syswr", "packets", "SYSWR (remote write) packets served",
       [](const Pe& p) { return &p.packets_.syswr_count(); }},
      {"memory_unit.sysrd", "packets", "SYSRD (remote read) packets served",
       [](const Pe& p) { return &p.packets_.counters().sysrd; }},
      {"memory_unit.block_reads", "requests", "block remote reads served",
       [](const Pe& p) { return &p.packets_.counters().block_reads; }},
      {"memory_unit.block_words", "words", "words sent back by block remote reads",
       [](const Pe& p) { return &p.packets_.counters().block_words; }},
      {"matching.matched", "packets", "2-input packets that found their partner and fired a thread",
       [](const Pe& p) { return &p.packets_.counters().matched; }},
      {"matching.stored", "packets", "2-input packets stored to wait for their partner",
       [](const Pe& p) { return &p.packets_.counters().stored_operands; }},
      {"istructure.writes", "packets", "I-structure writes served",
       [](const Pe& p) { return &p.packets_.counters().iwrite; }},
      {"istructure.reads", "packets", "I-structure reads served",
       [](const Pe& p) { return &p.packets_.counters().iread; }},
      {"istructure.deferred", "packets",
       "I-structure reads of an empty element, deferred until it is written",
       [](const Pe& p) { return &p.packets_.counters().deferred_reads; }},
  };
  return table;
}

void Pe::register_stats(stats::Registry& r) {
  const std::string p = "pe." + std::to_string(id_) + ".";
  for (const StatCounter& c : stat_counters()) r.counter(p + c.name, c.of(*this));
}

}  // namespace emx::pe
