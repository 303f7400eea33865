#include "machine.h"

#include <fmt/format.h>

#include <cfenv>
#include <chrono>
#include <utility>

#include "isa/isa.h"

#include "sim/pe/fault_report.h"
#include "sim/pe/packet_unit.h"

namespace emx::machine {

const char* outcome_name(Outcome::Kind k) {
  switch (k) {
    case Outcome::Kind::exited: return "exited";
    case Outcome::Kind::fault: return "fault";
    case Outcome::Kind::error: return "error";
    case Outcome::Kind::deadlock: return "deadlock";
    case Outcome::Kind::time_limit: return "time_limit";
    case Outcome::Kind::host_time_limit: return "host_time_limit";
  }
  return "?";
}

// --- NetworkDriver -------------------------------------------------------------------

NetworkDriver::NetworkDriver(sc_core::sc_module_name name, net::Fabric& fabric, OutputPorts& ports,
                             const pe::KernelClock& clock,
                             const std::vector<std::unique_ptr<pe::Pe>>& pes,
                             const bool& stopping)
    : sc_module(name),
      fabric_(fabric),
      ports_(ports),
      clock_(clock),
      pes_(pes),
      stopping_(stopping) {
  SC_HAS_PROCESS(NetworkDriver);
  // A method: no stack to switch to at every network clock. Its own wake-ups go through
  // wake_ too (static sensitivity: cheaper than a timeout or-ed with the event at every
  // activation); an event keeps only its earliest pending notification.
  SC_METHOD(drive);
  sensitive << wake_;
}


void NetworkDriver::flush_send_stalls() {
  for (unsigned k = 0; k < pes_.size(); ++k)
    if (const uint64_t stall = ports_.untold_stall(k)) pes_[k]->floating_send_accepted(stall, false);
}

uint64_t NetworkDriver::process_through(uint64_t now) {
  // Packets due by now+1 enter first, so nothing is injected behind the fabric's clock.
  ports_.flush(now + 1);
  if (now + 1 > fabric_.now()) fabric_.advance_to(now + 1);
  ports_.resolve(now, [this](unsigned ep, uint64_t stall) {
    pes_[ep]->floating_send_accepted(stall, true);
  });
  if (after_advance) after_advance(now + 1);
  processed_ = std::max(processed_, now + 1);
  pushes_seen_ = ports_.pushes();
  next_ = next_time();
  return next_;
}

// While no other process is due, the network may run ahead of SystemC time: every PE
// waits, each until a clock W at or after the next pending activity (or for an event that
// only this processing can notify, which then is the next pending activity), and a PE
// resuming at W sends nothing stamped before W + 1. So the clocks up to that activity can
// be processed now, as the catch_up of the process that runs first at each clock would,
// without a SystemC activation per network clock. Bounded by run_ahead_limit (the
// simulation's end) and by a stop request. Only PE code (a delivery, an accepted floating
// send, an inline run) can schedule SystemC activity meanwhile, by a notification it
// counts in `activity`: the next process's clock is asked again only after one. Work
// after the present clock at or past slice_end is left to a later activation.
uint64_t NetworkDriver::run_ahead(uint64_t now, uint64_t next) {
  uint64_t due = 0, seen = UINT64_MAX;
  // Work at or past `end` is left (none, UINT64_MAX, among it): the limits are fixed
  // while we run.
  const uint64_t end = std::min(run_ahead_limit, std::max(slice_end, now + 1));
  for (;;) {
    const uint64_t w = agenda_clock();
    const uint64_t first = std::min(next, w);
    if (first >= end || stopping_) return first;
    if (activity != seen) {
      seen = activity;
      const sc_core::sc_time gap = sc_core::sc_time_to_pending_activity();
      if (gap == sc_core::SC_ZERO_TIME) {  // something runs at this time
        // A PE due now cannot wait for the next activation: it wakes as usual.
        while (agenda_clock() <= now) {
          const unsigned pe = agenda_pe();
          agenda_.pop();
          pes_[pe]->run_inline(now, true);
        }
        return std::min(next, agenda_clock());
      }
      due = now + gap.value() / clock_.period_ps();  // the next process's clock
    }
    if (first > due) return first;
    if (next <= w) {
      next = process_through(next);
      continue;
    }
    // The network has nothing left before w: a parked PE starts there, after the
    // catch-up its SystemC thread would make at w, unless another process runs at w too
    // (then its SystemC thread does, at w).
    const unsigned pe = agenda_pe();
    agenda_.pop();
    if (!(w < processed_ && ports_.pushes() == pushes_seen_)) next = process_through(w);
    if (activity != seen) {  // it woke a process?
      const sc_core::sc_time gap = sc_core::sc_time_to_pending_activity();
      due = now + gap.value() / clock_.period_ps();
    }
    pes_[pe]->run_inline(w, w >= due);
    next = std::min(next, next_time());
  }
}

void NetworkDriver::wake_at(uint64_t cycle) {
  if (cycle >= scheduled_) return;  // we wake by then anyway (SystemC notifies are costly)
  scheduled_ = cycle;
  wake_.notify(clock_.until(cycle));
}

void NetworkDriver::drive() {
  wake_.cancel();  // we run now: an earlier wake-up request is served
  scheduled_ = 0;  // while we run, injections need no wake-up
  const uint64_t now = clock_.clock();
  const uint64_t next = run_ahead(now, process_through(now));
  scheduled_ = next;
  if (next != UINT64_MAX) {
    const uint64_t at = next * clock_.period_ps(), ps = clock_.ps();
    wake_.notify(sc_core::sc_time::from_value(at > ps ? at - ps : clock_.period_ps()));
  }
}

// --- Machine -------------------------------------------------------------------------

Machine::Machine(const MachineConfig& cfg, const loader::ElfImage& program,
                 const std::vector<std::string>& args, std::ostream& console)
    : cfg_(cfg),
      program_(program),
      host_(cfg.pes, console,
            host::HostLink{cfg.clock_mhz, cfg.host.bandwidth_mb_s, cfg.host.file_root}),
      clock_(cfg.period_ps()) {
  fabric_ = std::make_unique<net::Fabric>(cfg_.network, cfg_.pes);
  fabric_->set_delivery(
      [](void* m, const net::Packet& p, uint64_t t) { static_cast<Machine*>(m)->deliver(p, t); },
      this);
  ports_ = std::make_unique<OutputPorts>(*fabric_, cfg_.pes + 1, cfg_.network.injection_queue_packets);
  driver_ = std::make_unique<NetworkDriver>("network", *fabric_, *ports_, clock_, pes_, stopping_);
  // A limit beyond SystemC's time range (2^64 ps) is as good as none: bound it there.
  cycle_limit_ = std::min(cfg_.sim.max_cycles, (UINT64_MAX - 1) / cfg_.period_ps());
  driver_->run_ahead_limit = cycle_limit_ ? cycle_limit_ : UINT64_MAX;

  pe::ThreadEntries entries;
  entries.thread_end = program.symbols().address_of("__emx_thread_end");
  entries.twrite_handler = program.symbols().address_of("__emx_handler_twrite");
  entries.tread_handler = program.symbols().address_of("__emx_handler_tread");
  // Loading through the host interface takes image bytes x PEs / bandwidth, if charged.
  uint64_t start_cycle = 0;
  const unsigned runs = cfg_.host.start == StartMode::pe0 ? 1 : cfg_.pes;
  if (cfg_.host.charge_load_time) {
    uint64_t bytes = 0;
    for (const auto& s : program.segments()) bytes += s.filesz;
    start_cycle = static_cast<uint64_t>(static_cast<double>(bytes * runs) /
                                        cfg_.host.bandwidth_mb_s * cfg_.clock_mhz);
  }
  pe::MachinePort& port = *this;
  pe::PeObserver& observer = *this;
  // The code's whole pages, alike on every PE (stores into code fault), are held once
  // on the host: at 1024 PEs a program's code copied into each memory was most of the
  // footprint of a small run. They are mapped before the program is copied, which then
  // skips them (copying them into every PE and replacing them was a third of an 80-PE
  // start-up's page faults).
  const uint32_t page = 4096;
  const uint32_t code_from = (program.code_base() + page - 1) / page * page;
  const uint32_t code_to = (program.code_base() + program.code_bytes()) / page * page;
  std::unique_ptr<mem::SharedPages> code_pages;
  direct_ = std::make_unique<DirectSender[]>(cfg_.pes);
  arrival_memory_ = std::make_unique<uint8_t*[]>(cfg_.pes);
  for (unsigned k = 0; k < cfg_.pes; ++k) {
    std::unique_ptr<pe::Pe> p;
    try {
      p = std::make_unique<pe::Pe>(fmt::format("pe{}", k).c_str(), k, cfg_, port, observer,
                                   alarms_, clock_);
    } catch (const mem::HostMemoryError& e) {
      throw std::runtime_error(fmt::format(
          "the host cannot reserve the local memory of {} PEs x {} KiB (pe.memory_bytes, plus "
          "a quarter of it for tag bits; pages are committed only when touched): at PE {}, {}. "
          "Use fewer PEs (--pes) or a smaller pe.memory_bytes, or raise the host's "
          "address-space limit (ulimit -v)",
          cfg_.pes, cfg_.pe.memory_bytes / 1024, k, e.what()));
    }
    // Every PE gets the code (packets may start threads anywhere); `runs` PEs run main.
    const bool mapped =
        code_pages && p->memory().map_shared(code_from, code_to - code_from, *code_pages);
    const auto s = host::Host::load(program, args, p->memory(), cfg_.stack_top(),
                                    mapped ? loader::Span{code_from, code_to}
                                           : loader::Span{});
    if (!code_pages && code_to > code_from && cfg_.pes > 1) {  // from the first PE's copy
      code_pages = std::make_unique<mem::SharedPages>(p->memory().bytes() + code_from,
                                                      code_to - code_from);
      p->memory().map_shared(code_from, code_to - code_from, *code_pages);
    }
    // One decoding of the code for all PEs: the same bytes, timing and features.
    p->load(program.code_base(), program.code_bytes(), entries,
            pes_.empty() ? nullptr : pes_.front()->hart().decoded_code());
    if (k < runs) {
      p->start(program.entry(), s.sp, static_cast<uint32_t>(args.size()), s.argv, start_cycle);
      ++started_;
    }
    direct_[k] = DirectSender{this, ports_.get(), p.get(), k};
    p->hart().set_direct_send(&Machine::direct_send, &direct_[k]);
    arrival_memory_[k] = p->memory().bytes();
    pes_.push_back(std::move(p));
  }
  if (cfg_.pes >= kArrivalHintPes) fabric_->set_arrival_hint(&Machine::prefetch_arrival, this);
  register_stats();
}

void Machine::prefetch_arrival(void* ctx, const net::Packet& p) {
  const Machine& m = *static_cast<const Machine*>(ctx);
  if (p.dst >= m.cfg_.pes) return;
  m.pes_[p.dst]->prefetch_arrival();
  // The word a remote access names (for other packets a frame's or structure's: a guess
  // within the memory).
  __builtin_prefetch(m.arrival_memory_[p.dst] +
                         std::min(pe::gaddr_local(p.addr), m.cfg_.pe.memory_bytes - 4), 1);
}

Machine::~Machine() = default;

uint64_t Machine::instructions() const {
  uint64_t n = 0;
  for (const auto& p : pes_) n += p->hart().instret;
  return n;
}

bool Machine::run_later(unsigned pe, uint64_t cycle) {
  // Beyond the agenda's keys (2^48 clocks) the PE wakes its thread as usual. (Its 2^16
  // PEs hold the 10-bit PE field's 1024: MachineConfig's limit.)
  static_assert(NetworkDriver::kPeBits >= 10);
  if (cycle >> (64 - NetworkDriver::kPeBits)) return false;
  driver_->run_later(pe, cycle);
  return true;
}

void Machine::enqueue(net::Packet& p, uint64_t cycle, bool reply) {
  p.seq = next_seq_++;
  ports_->push(p, cycle, reply);
  driver_->wake_at(cycle);
}

inline bool Machine::floats(unsigned src, uint64_t cycle, bool& room) const {
  room = false;
  if (ports_->deferred(src)) return true;  // (the usual case: then room does not matter)
  // A PE this far ahead of the network can be sure of nothing (no_unseen_reply and
  // accept_without_sync are false beyond now() + link_clocks): the next usual case.
  if (cycle > fabric_->now() + fabric_->link_clocks()) return pes_[src]->lazy_sends();
  room = ports_->surely_room(src) && no_unseen_reply(src, cycle);
  // (When it would be accepted without a sync, send's loop finds that clock again.)
  uint64_t at = cycle;
  return pes_[src]->lazy_sends() && !room && !accept_without_sync(src, at);
}

inline bool Machine::make_packet(unsigned src, isa::PacketType type, uint32_t addr,
                                 uint32_t data, uint32_t pc, net::Packet& p) const {
  p.addr = addr;
  p.data = data;
  p.type = static_cast<uint8_t>(type);
  p.src = static_cast<uint16_t>(src);
  p.src_pc = pc;
  const unsigned dst = type == isa::PacketType::host ? cfg_.pes  // the host interface's endpoint
                                                     : pe::gaddr_pe(addr);
  p.dst = static_cast<uint16_t>(dst);
  return type == isa::PacketType::host || dst < cfg_.pes;
}

// The usual send: behind other floating sends of its PE (so it floats, and its check is
// scheduled), to a PE, with room in the queue's record as it is. Only what that needs,
// without calls: it then needs fewer registers and no stack frame (a sixth of the calls'
// host instructions went to saving and restoring registers).
uint32_t Machine::direct_send(void* ctx, isa::PacketType type, uint32_t addr, uint32_t data,
                              uint32_t pc, uint64_t cycle) noexcept {
  const DirectSender& d = *static_cast<const DirectSender*>(ctx);
  // (First the test that sends the first floating send on, with the arguments as they
  // came: that way needs no registers saved.)
  if (d.ports->floating_count(d.src) - 1 >= pe::Pe::kMaxFloatingSends - 1)
    return direct_send_first(ctx, type, addr, data, pc, cycle);
  if (push_direct(d, type, addr, [&](Machine& m, unsigned dst) {
        return d.ports->push_behind<pe::Pe::kMaxFloatingSends>(d.src, cycle, m.next_seq_, addr, data,
                                                               pc, dst, static_cast<uint8_t>(type));
      }))
    return true;
  return direct_send_first(ctx, type, addr, data, pc, cycle);
}

// The next usual one: the first floating send of its PE, which floats because the PE's
// clock is provisional already or it is too far ahead of the network to be sure of
// anything (Machine::floats), whose check goes into the wheel's window at a clock the
// driver wakes by anyway.
uint32_t Machine::direct_send_first(void* ctx, isa::PacketType type, uint32_t addr,
                                    uint32_t data, uint32_t pc, uint64_t cycle) noexcept {
  const DirectSender& d = *static_cast<const DirectSender*>(ctx);
  if (push_direct(d, type, addr, [&](Machine& m, unsigned dst) {
        return (d.ports->shift(d.src) != 0 ||
                (cycle > m.fabric_->now() + m.fabric_->link_clocks() && d.pe->lazy_sends())) &&
               d.ports->push_first(d.src, cycle, m.next_seq_, addr, data, pc, dst,
                                   static_cast<uint8_t>(type), *m.driver_);
      }))
    return true;
  return direct_send_rest(ctx, type, addr, data, pc, cycle);
}

uint32_t Machine::direct_send_rest(void* ctx, isa::PacketType type, uint32_t addr,
                                   uint32_t data, uint32_t pc, uint64_t cycle) noexcept {
  const DirectSender& d = *static_cast<const DirectSender*>(ctx);
  Machine& m = *d.machine;
  // As Pe::send (no settling below the limit: fewer float) then send() (it floats).
  bool room;
  if (m.ports_->floating_count(d.src) >= pe::Pe::kMaxFloatingSends || !m.floats(d.src, cycle, room))
    return 0;
  net::Packet p;
  if (!m.make_packet(d.src, type, addr, data, pc, p)) return 0;  // send() faults
  try {
    m.push_floating(p, cycle);  // (its record may grow)
  } catch (...) {
    d.pe->hart().env_failed(pc);
    return 2;
  }
  d.pe->count_send();
  return 1;
}

void Machine::send(unsigned src, isa::PacketType type, uint32_t addr, uint32_t data,
                   uint32_t pc, uint64_t& cycle) {
  net::Packet p;
  if (!make_packet(src, type, addr, data, pc, p))
    throw iss::Trap{iss::FaultKind::machine, addr,
                    fmt::format("PE {} sends a {} packet to global address 0x{:08x}, which "
                                "names PE {}, but the machine has PEs 0..{}",
                                src, isa::packet_type_name(type), addr, p.dst, cfg_.pes - 1)};
  // The output queue may be full: find out exactly and stall until the network frees the
  // slot it frees first. We look at SystemC time = the clock the send executes in, one
  // before the packet leaves, so that nothing can still enter the network before it.
  pe::Pe& pe = *pes_[src];
  // Lazy stall accounting (OutputPorts::push_floating): the execution unit goes on and
  // takes its stall clocks later, unless the send is certainly accepted now.
  // Room now is room at the send's clock only if no memory-unit reply can still enter
  // the port before it (replies go first): with the PE ahead of the network, an arrival
  // not processed yet may bring some (a block read, many).
  bool room;
  if (floats(src, cycle, room)) {
    push_floating(p, cycle);
    return;
  }
  for (bool sure = room; !sure; sure = ports_->surely_room(src) && no_unseen_reply(src, cycle)) {
    if (accept_without_sync(src, cycle)) break;
    pe.sync_to(cycle - 1);
    catch_up();
    if (ports_->nothing_due_by(src, cycle) && fabric_->can_inject(src, cycle)) break;
    const uint64_t free = fabric_->earliest_slot_free(src, cycle);
    cycle = std::max(cycle + 1, free == UINT64_MAX ? cycle + 1 : free);
  }
  enqueue(p, cycle, false);
  if (tracer_) tracer_->packet_sent(p, cycle, program_.symbols().describe(pc));
}

// A send at `cycle` that finds its output queue full: whether the loop in send() would
// accept it at a clock we can already name, and then at which (into `cycle`), without
// waiting for SystemC time. The loop accepts at the first clock X it reaches (cycle, or
// the clock the network frees a slot) at which the output port is empty and the
// injection queue has room, looking at a network run up to X. With the port empty and
// the queue's room certain from F on (its head's transfer out is under way and ends at
// F: a transfer once started ends on time), X = max(cycle, F), and the answer is yes
// unless a packet enters the queue before X. Only this PE's memory-unit replies can:
// they follow arrivals here, and an arrival before X either is under way already or
// starts after now(), which ends no earlier than now() + link_clocks. So when X is
// within that, the one arrival under way decides: none, or one of a type that never
// replies (and no stall clocks for the execution unit to collect meanwhile) is a yes.
// The wait in SystemC time that this saves changes no simulated figure (syncs count
// host work).
bool Machine::accept_without_sync(unsigned src, uint64_t& cycle) const {
  const uint64_t frees = fabric_->injection_room_from(src);
  if (frees == UINT64_MAX) return false;
  const uint64_t x = std::max(cycle, frees);
  if (!ports_->nothing_due_by(src, x)) return false;
  if (x > fabric_->now() + fabric_->link_clocks()) return false;
  uint64_t at = 0;
  if (const net::Packet* a = fabric_->arriving(src, at); a && at < x) {
    if (cfg_.pe.memory_unit.exu_stall_clocks || pe::may_reply(*a)) return false;
  }
  cycle = x;
  return true;
}

// Whether no memory-unit reply of `src` can enter its output port at a clock <= `cycle`
// that the port does not hold yet: replies follow arrivals at src, and the network has
// processed those before now(); an arrival not under way yet ends at now() + link_clocks
// or later (Fabric::arriving), so only the one under way can, if it may reply.
bool Machine::no_unseen_reply(unsigned src, uint64_t cycle) const {
  if (cycle >= fabric_->now() + fabric_->link_clocks()) return false;
  uint64_t at = 0;
  const net::Packet* a = fabric_->arriving(src, at);
  return !a || at > cycle || !pe::may_reply(*a);
}

void Machine::reply(const net::Packet& p, uint64_t cycle) {
  net::Packet r = p;
  r.src_pc = 0;  // sent by the memory unit, not by an instruction
  enqueue(r, cycle, true);
  if (tracer_) tracer_->packet_sent(r, cycle, "");
}

void Machine::deliver(const net::Packet& p, uint64_t cycle) {
  last_delivery_ = cycle;  // in time order
  if (p.dst < cfg_.pes) {
    pes_[p.dst]->arrive(p, cycle);
    return;
  }
  deliver_to_host(p, cycle);
}

void Machine::deliver_to_host(const net::Packet& p, uint64_t cycle) {
  if (tracer_) tracer_->packet_arrived(p, cycle, cycle, cycle, "host I/O");
  // The host's timing computes in floating point: round to nearest, not as the PE whose
  // thread last ran does (the ISS puts its own mode back when it resumes).
  std::fesetround(FE_TONEAREST);
  try {
    if (const auto a = host_.receive(p.src, p.addr, p.data, cycle, pes_[p.src]->memory())) {
      // The host's answer: an I-structure write into the PE, from the host's endpoint.
      net::Packet r;
      r.addr = a->gaddr;
      r.data = a->value;
      r.type = static_cast<uint8_t>(isa::PacketType::iwrite);
      r.src = static_cast<uint16_t>(cfg_.pes);
      r.dst = p.src;
      r.src_pc = 0;
      enqueue(r, std::max(a->cycle, cycle), false);
      if (tracer_) tracer_->packet_sent(r, a->cycle, "host file answer");
    }
  } catch (const std::runtime_error& e) {
    pe_error(p.src, cycle, fmt::format("bad host packet: {}", e.what()), &p);
    return;
  }
  // Every PE that ran the program exited: the program is over, whatever else runs.
  if (host_.exited() == started_) stop(cycle);
}

bool Machine::first_failure(unsigned pe, uint64_t cycle) {
  if (failure_ && (cycle > failure_cycle_ || (cycle == failure_cycle_ && pe > failure_pe_)))
    return false;
  failure_cycle_ = cycle;
  failure_pe_ = pe;
  return true;
}

void Machine::pe_faulted(unsigned pe, const iss::Fault& fault) {
  if (first_failure(pe, pes_[pe]->hart().cycles)) {
    const auto& p = *pes_[pe];
    failure_ = pe::fault_report(pe, p.hart(), fault, program_.symbols(), cfg_.clock_mhz,
                                cfg_.sim.register_dump);
    failure_is_fault_ = true;
  }
  stop(pes_[pe]->hart().cycles);
}

// "sent by PE 0 at pc 0x1020 in f+0x8: send.syswr a1, a0": the packet's origin.
std::string Machine::sender_text(const net::Packet& p) const {
  if (p.src >= cfg_.pes) return fmt::format("sent by the host (endpoint {})", p.src);
  if (!p.src_pc) return fmt::format("sent by PE {}'s memory unit (a reply)", p.src);
  const std::string where = program_.symbols().describe(p.src_pc);
  const uint32_t word = pes_[p.src]->hart().insn_word(p.src_pc);
  return fmt::format("sent by PE {} at pc 0x{:08x}{}{}", p.src, p.src_pc,
                     where.empty() ? "" : " in " + where,
                     word ? ": " + isa::disassemble(word, p.src_pc) : "");
}

void Machine::pe_error(unsigned pe, uint64_t cycle, const std::string& what,
                       const net::Packet* cause) {
  if (first_failure(pe, cycle)) {
    failure_ = fmt::format("emx: error on PE {} at {:.4f} us (cycle {}): {}\n{}", pe,
                           static_cast<double>(cycle) / cfg_.clock_mhz, cycle, what,
                           cause ? "  " + sender_text(*cause) + "\n" : "");
    failure_is_fault_ = false;
  }
  stop(cycle);
}

void Machine::stop(uint64_t cycle) {
  if (stopping_) return;  // SystemC warns about a second sc_stop
  stopping_ = true;
  end_cycle_ = cycle;
  sc_core::sc_stop();
}

std::string Machine::deadlock_report(uint64_t cycle) const {
  std::string s = fmt::format(
      "emx: deadlock at {:.4f} us (cycle {}): no PE has a thread to run and the network is "
      "empty, but the program has not exited on every PE.\n",
      static_cast<double>(cycle) / cfg_.clock_mhz, cycle);
  unsigned shown = 0;
  for (unsigned k = 0; k < cfg_.pes; ++k) {
    const bool exited = host_.exit_code(k).has_value();
    const std::string w = pes_[k]->waiting_on();
    if (exited && w.find(';') == std::string::npos) continue;
    if (++shown > 16) {
      s += "  ...\n";
      break;
    }
    s += fmt::format("  PE {}: {}{}\n", k, exited ? "exited; " : "", w);
  }
  return s;
}

Outcome Machine::run(double max_host_seconds) {
  Outcome o;
  using sc_core::sc_time;
  const auto starvation = sc_core::SC_EXIT_ON_STARVATION;  // a deadlock ends the run then
  const uint64_t period = cfg_.period_ps();
  const uint64_t end = cycle_limit_ ? cycle_limit_ : UINT64_MAX / period;
  const uint64_t end_ps = end * period;
  bool host_limit = false;
  // In slices of simulated time, looking at the host's clock between them when there is
  // a host time limit (the slices change nothing simulated: every process just waits
  // on). With SC_EXIT_ON_STARVATION, sc_start returns at the last activity before the
  // slice's end, not at its end: the loop ends when nothing is pending at all (a
  // deadlock, or every PE at the cycle limit) or when the next activity lies past the
  // cycle limit (a PE that waits for a clock beyond it), and a slice always reaches the
  // next activity, so that no sc_start is called that cannot advance (SystemC's W571).
  const uint64_t slice_ps = (max_host_seconds > 0 ? uint64_t{1} << 18 : end) * period;
  const auto t0 = std::chrono::steady_clock::now();
  for (bool first = true;; first = false) {
    const uint64_t now_ps = sc_core::sc_time_stamp().value();
    uint64_t next_ps = now_ps;  // before the first sc_start nothing is pending yet
    if (!first) {
      if (stopping_ || !sc_core::sc_pending_activity()) break;
      next_ps += sc_core::sc_time_to_pending_activity().value();
      if (next_ps > end_ps || next_ps < now_ps) break;
    }
    const uint64_t to_ps = std::max(next_ps, end_ps - now_ps > slice_ps ? now_ps + slice_ps : end_ps);
    // The network driver may run PEs inline (Pe::run_inline), quantum after quantum for a
    // PE computing alone, without returning to the kernel: with a host time limit it
    // runs ahead no further than the slice's end, so that the slice ends and the host's
    // clock is looked at (stopping a run ahead earlier changes nothing simulated).
    if (max_host_seconds > 0) driver_->slice_end = (to_ps + period - 1) / period;
    sc_core::sc_start(sc_time::from_value(to_ps - now_ps), starvation);
    if (max_host_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >=
            max_host_seconds) {
      host_limit = !stopping_;
      break;
    }
  }
  host_.flush();
  driver_->flush_send_stalls();
  for (auto& p : pes_) p->finish_run();
  // A PE's thread may have stopped inside the ISS with its own rounding mode on the host
  // FPU: the statistics (means, utilisations) are computed rounding to nearest.
  std::fesetround(FE_TONEAREST);
  std::feclearexcept(FE_ALL_EXCEPT);
  const uint64_t now = sc_core::sc_time_stamp().value() / period;
  // Cut by the cycle limit: a PE ran to it, or something waits for a clock past it.
  bool at_limit = !host_limit && cycle_limit_ &&
                  (now >= cycle_limit_ || sc_core::sc_pending_activity());
  for (unsigned k = 0; k < cfg_.pes && cycle_limit_ && !at_limit && !host_limit; ++k)
    at_limit = pes_[k]->at_cycle_limit();
  // Nothing left to run (a deadlock): the machine went quiet at the last clock anything
  // happened, the network's last delivery and an idle PE's clock included (it idles without reaching it in SystemC time:
  // Pe::next_thread).
  uint64_t quiet = std::max(now, last_delivery_);
  if (!stopping_ && !at_limit && !host_limit)
    for (const auto& p : pes_)
      if (p->state() == pe::Pe::State::idle) quiet = std::max(quiet, p->hart().cycles);
  o.cycles = stopping_ ? end_cycle_ : at_limit ? cycle_limit_ : host_limit ? now : quiet;
  stats_end_cycle_ = o.cycles;
  if (tracer_) tracer_->finish(o.cycles);
  if (failure_) {
    o.kind = failure_is_fault_ ? Outcome::Kind::fault : Outcome::Kind::error;
    o.report = *failure_;
  } else if (host_.exited() == started_) {
    for (unsigned k = 0; k < cfg_.pes; ++k)
      if (auto c = host_.exit_code(k); c && *c != 0) {
        o.exit_code = *c;
        break;
      }
  } else if (host_limit) {
    o.kind = Outcome::Kind::host_time_limit;
  } else if (at_limit) {
    o.kind = Outcome::Kind::time_limit;
    o.report = fmt::format("emx: cycle limit: sim.max_cycles = {} reached before the program "
                           "exited\n", cfg_.sim.max_cycles);
  } else {
    o.kind = Outcome::Kind::deadlock;
    o.report = deadlock_report(quiet);
  }
  return o;
}

void Machine::set_tracer(std::unique_ptr<trace::Tracer> t) {
  tracer_ = std::move(t);
  for (auto& p : pes_) p->set_tracer(tracer_.get(), &program_.symbols());
  sampler_.links.assign(fabric_->stats().links.size(), 0);
  sampler_.ejection.assign(fabric_->stats().ejection.size(), 0);
  driver_->after_advance = [this](uint64_t now) { sample_network(now); };
  tracer_->network(fabric_->topology(), fabric_->link_clocks());
  fabric_->set_hop_hook([t = tracer_.get()](const net::Packet& p, uint32_t output, uint64_t start,
                                            uint64_t end) { t->packet_hop(p, output, start, end); });
}

// Network load per sampling period, from the links' busy clocks (trace counters).
void Machine::sample_network(uint64_t now) {
  auto& s = sampler_;
  while (now >= s.next + s.period) {
    const auto& st = fabric_->stats();
    double sum = 0, max = 0;
    for (std::size_t k = 0; k < st.links.size(); ++k) {
      const double b = static_cast<double>(st.links[k].busy_clocks - s.links[k]) / s.period;
      s.links[k] = st.links[k].busy_clocks;
      sum += b;
      max = std::max(max, b);
    }
    std::vector<double> ej(st.ejection.size());
    for (std::size_t k = 0; k < ej.size(); ++k) {
      ej[k] = static_cast<double>(st.ejection[k].busy_clocks - s.ejection[k]) / s.period;
      s.ejection[k] = st.ejection[k].busy_clocks;
    }
    tracer_->network_sample(s.next, s.next + s.period, st.links.empty() ? 0 : sum / st.links.size(),
                            max, ej);
    s.next += s.period;
    // An idle network needs no sample per period: jump over the quiet stretch.
    if (sum == 0 && now >= s.next + s.period) s.next = now / s.period * s.period;
  }
}

void Machine::register_stats() {
  for (auto& p : pes_) p->register_stats(stats_);
  const net::Fabric* f = fabric_.get();
  // Utilisations over the run's clocks (its end, not how far the network ran ahead).
  const uint64_t* end = &stats_end_cycle_;
  stats_.value("network", [f, end] { return net::to_json(f->stats(), f->topology(), *end ? *end : f->now()); },
               "network statistics (network/README.md)");
}

}  // namespace emx::machine
