// The PEs' output ports: per PE, the packets sent but not yet in the network, in time
// order. Execution units run ahead of SystemC time (temporal decoupling) while memory
// units reply at SystemC time, so a PE's packets are produced out of time order; here
// they wait until SystemC time reaches them and enter the network in time order, merged.
// The network's injection queue plus this queue is the PE's output queue: a send that
// finds it full stalls (Machine::send).
#pragma once
#include <cstdint>
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "check_wheel.h"
#include "earliest_clock.h"
#include "network/fabric.h"
#include "sim/pe/fifo.h"

namespace emx::machine {

class OutputPorts {
 public:
  OutputPorts(net::Fabric& fabric, unsigned endpoints, uint32_t capacity)
      : fabric_(fabric),
        port_(endpoints),
        due_(endpoints),
        far_retry_(endpoints, 0),
        told_(endpoints, 0),
        checks_(PortLinks{port_.data()}),
        capacity_(capacity) {}

  // Certainly room for one more packet of `ep` at any clock from now on: packets only
  // leave the output queue as time passes.
  bool surely_room(unsigned ep) const {
    return fabric_.injection_queue_length(ep) + port_[ep].q.size() < capacity_;
  }
  bool empty(unsigned ep) const { return !port_[ep].holds; }
  // Nothing of `ep` is due by clock x (a memory-unit reply the port holds for a later
  // clock is not in the output queue yet: a send at x goes before it).
  bool nothing_due_by(unsigned ep, uint64_t x) const {
    return !port_[ep].holds || port_[ep].q.front().t > x;
  }

  // A packet leaves `p.src` at clock t (not earlier than SystemC time), sent by the
  // execution unit or, `reply`, by the memory unit. At one clock the memory unit's
  // packets go first (its port has priority), whatever order the host produced them in.
  void push(const net::Packet& p, uint64_t t, bool reply);
  // Moves every packet due by clock `limit` into the network, in time order per PE; a
  // packet that finds the network's injection queue full waits for its slot. (Called at
  // every network clock, mostly with nothing due: that test inline.)
  void flush(uint64_t limit) {
    if (due_.first_clock() <= limit) flush_due(limit);
  }
  // Counts the packets pushed (floating or not): unchanged, flush and resolve have no
  // more work up to the clocks they last ran to.
  uint64_t pushes() const { return pushes_; }
  // The earliest clock at which flush or resolve has work (UINT64_MAX: none).
  uint64_t next_time() const {
    return std::min(due_.first_clock(), next_check());
  }

  // ---- Sends whose stall is settled later (lazy stall accounting) ----
  // An execution unit that finds its output queue full need not wait for the network to
  // learn how long it stalls: it goes on with a provisional clock, as if it had not
  // stalled, and its sends from then on are *floating*. Here each floating send, in
  // order, is accepted at the clock the execution unit's send would have been: the
  // first clock X >= its earliest (provisional clock + the stalls before it) at which
  // the port holds nothing else of this PE and the injection queue has room, looking at
  // the network at X - 1 (the rule of Machine::send). The execution unit takes the
  // stalls into its clock (take_shift) when it next does something whose effect depends
  // on its clock (ends a thread, reads the clock, a tag it must settle).
  bool floating(unsigned ep) const { return port_[ep].floating != 0; }
  size_t floating_count(unsigned ep) const { return port_[ep].floating; }
  // Floating sends, or stall clocks the execution unit has not taken yet: its clock is
  // provisional, so its next send floats too.
  bool deferred(unsigned ep) const { return floating(ep) || port_[ep].shift != 0; }
  // A send of the execution unit of `p.src` at provisional clock `provisional`. Returns
  // the clock at which resolve has new work for it, UINT64_MAX if none (its check is
  // scheduled already: the sends before it float).
  [[gnu::always_inline]] uint64_t push_floating(const net::Packet& p, uint64_t provisional) {
    ++pushes_;
    Port& port = port_[p.src];
    const Floating f = Floating::of(p, provisional);
    if (!port.float_in_place(f)) port.float_grown(f);
    return port.floating == 1 ? check_at(p.src, provisional + port.shift) : UINT64_MAX;
  }
  // push_floating of a send behind fewer than kMaxBehind others of ep, if its record needs
  // no growth (false: not done). Its check is scheduled already, and no other work is new:
  // not counted in pushes().
  template <size_t kMaxBehind>
  [[gnu::always_inline]] bool push_behind(unsigned ep, uint64_t provisional, uint64_t seq,
                                          uint32_t addr, uint32_t data, uint32_t pc,
                                          unsigned dst, uint8_t type) {
    Port& port = port_[ep];
    return port.floating - 1u < kMaxBehind - 1 &&
           port.float_behind_in_place(Floating{provisional, seq, addr, data, pc,
                                               static_cast<uint16_t>(dst), type, 0});
  }
  // push_floating of the first floating send of ep, if its check lies in the wheel's
  // window at a clock `driver` wakes by anyway (false: not done).
  template <class Driver>
  [[gnu::always_inline]] bool push_first(unsigned ep, uint64_t provisional, uint64_t seq,
                                         uint32_t addr, uint32_t data, uint32_t pc, unsigned dst,
                                         uint8_t type, const Driver& driver) {
    Port& port = port_[ep];
    const uint64_t check = provisional + port.shift - 1;
    if (port.floating != 0 || !checks_.in_window(check) || !driver.wakes_by(check)) return false;
    port.front = Floating{provisional, seq, addr, data, pc, static_cast<uint16_t>(dst), type, 0};
    port.floating = 1;
    ++pushes_;
    checks_.push_in_window(check, ep);
    return true;
  }
  uint64_t shift(unsigned ep) const { return port_[ep].shift; }
  // The network has run up to clock now + 1 (events < now + 1): accept the floating
  // sends whose turn is at now + 1. on_last(ep, stall clocks) when the last floating send
  // of ep is accepted: the stalls of its sends accepted since it was last told.
  template <class OnLast>
  void resolve(uint64_t now, OnLast&& on_last);
  // The stall clocks of ep's sends accepted since it was last told (on_last): now told.
  uint64_t untold_stall(unsigned ep) { return port_[ep].shift - std::exchange(told_[ep], port_[ep].shift); }
  // The clocks the execution unit of ep has stalled, not yet in its clock; resets them.
  // Only when nothing of ep floats.
  uint64_t take_shift(unsigned ep) {
    const uint64_t s = port_[ep].shift;
    port_[ep].shift = 0;
    told_[ep] = 0;
    return s;
  }

 private:
  // A packet the port holds, with its clock: a line each (56 bytes unaligned straddled
  // two lines in most places of the ring).
  struct alignas(64) Entry {
    uint64_t t;
    net::Packet p;
    bool reply;
  };
  template <class T>
  using Fifo = pe::Fifo<T>;
  void flush_due(uint64_t limit);
  // push into a port that holds packets already (out of line: push then needs no frame).
  [[gnu::noinline]] void push_behind_others(const net::Packet& p, uint64_t t, bool reply);
  // Makes sure flush looks at `ep` at clock t.
  [[gnu::always_inline]] void schedule(unsigned ep, uint64_t t) {
    if (t < due_.at(ep)) due_.set(ep, t);
  }
  // What a floating send needs, packed (32 bytes, not a whole Packet and its clock): it
  // is written when sent and read back up to a quantum later, usually from memory.
  // (Aligned: never across two cache lines.)
  struct alignas(32) Floating {
    uint64_t provisional;
    uint64_t seq;
    uint32_t addr, data, src_pc;
    uint16_t dst;
    uint8_t type, data_tag;
    static Floating of(const net::Packet& p, uint64_t provisional) {
      return {provisional, p.seq, p.addr, p.data, p.src_pc, p.dst, p.type, p.data_tag};
    }
    // The packet's fields besides src, dst and injected_at (Fabric::inject_from's).
    void fill(net::Packet& p) const {
      p.addr = addr;
      p.data = data;
      p.type = type;
      p.data_tag = data_tag;
      p.seq = seq;
      p.src_pc = src_pc;
    }
  };
  static_assert(sizeof(Floating) == 32, "two per cache line");
  // The front floating send of ep tries clock x: the check runs at network time x - 1.
  // (A check is scheduled only when the previous one of ep has run: none goes stale.)
  [[gnu::always_inline]] uint64_t check_at(unsigned ep, uint64_t x) {
    checks_.push(x - 1, ep);
    return x - 1;
  }
  // check_at from a check that runs.
  [[gnu::always_inline]] void recheck_at(unsigned ep, uint64_t x) { checks_.push_while_running(x - 1, ep); }
  uint64_t next_check() const { return checks_.next_time(); }
  // An endpoint's port. Its first cache line holds all that the check of a floating send
  // reads and writes of the ports (the front floating send itself, the check wheel's link,
  // whether the port holds packets), so that a check touches one line of ours besides the
  // engine's records. (The front in a ring of its own and the link in an array of its own
  // took a line each besides: a third of the checks' misses of the host's L1 data cache
  // in the radix sorts.) The second line: the packets it holds.
  struct alignas(64) Port {
    Floating front{};  // the first floating send (while `floating`)
    // Those behind it: the k-th (from 1) at behind[(behind_base + k) & behind_mask], in a
    // ring of behind_mask + 1 (a power of 2; 0, behind_mask 0xffff: none yet) that grows
    // as needed. (So kept, a send behind others costs what a plain ring's push does.)
    std::unique_ptr<Floating[]> behind;
    uint64_t shift = 0;  // accepted - provisional clock, of the last floating send accepted
    uint32_t check_link = 0;  // CheckWheel's, while a check of the endpoint is pending
    // While the endpoint waits for watch_injection: its front tries again from clock
    // earliest() + retry on (kFarRetry: from OutputPorts::far_retry_).
    uint32_t retry = 0;
    uint16_t floating = 0;  // floating sends, the front included
    uint16_t behind_base = 0xffff, behind_mask = 0xffff;
    bool holds = false;  // q.size() != 0
    Fifo<Entry> q;  // (the second line)
    uint64_t blocked_until = 0;

    // The front's earliest clock: its provisional clock + the stalls before it.
    uint64_t earliest() const { return front.provisional + shift; }
    // A floating send at the back, if that needs no growth (false: nothing done).
    [[gnu::always_inline]] bool float_in_place(const Floating& f) {
      if (floating == 0) {
        front = f;
        floating = 1;
        return true;
      }
      return float_behind_in_place(f);
    }
    // float_in_place behind others.
    [[gnu::always_inline]] bool float_behind_in_place(const Floating& f) {
      if (uint16_t(floating - 2) == behind_mask) return false;  // (floating - 1 == capacity)
      behind[(behind_base + floating) & behind_mask] = f;
      ++floating;
      return true;
    }
    // float_in_place after the ring grows. (Out of line: rare.)
    [[gnu::noinline]] void float_grown(const Floating& f);
    // The front leaves; the next takes its place.
    [[gnu::always_inline]] void pop_floating() {
      if (--floating == 0) return;
      behind_base = (behind_base + 1) & behind_mask;
      front = behind[behind_base];
    }
    void q_changed() { holds = q.size() != 0; }
  };
  static_assert(sizeof(Port) == 128, "the check's line, then the packets held");
  // The check wheel's links in the ports (their first line).
  struct PortLinks {
    Port* ports;
    uint32_t& link(uint32_t ep) const { return ports[ep].check_link; }
  };
  net::Fabric& fabric_;
  std::vector<Port> port_;
  EarliestClock due_;  // by endpoint: the clock flush looks at it next
  // While an endpoint waits for watch_injection: the clock its front tries again from (the
  // one after the clock it tried last), in its port or, for a front that has waited 2^32
  // clocks, here.
  static constexpr uint32_t kFarRetry = UINT32_MAX;
  std::vector<uint64_t> far_retry_;
  void set_retry(unsigned ep, uint64_t from) {
    Port& port = port_[ep];
    const uint64_t d = from - port.earliest();
    port.retry = d < kFarRetry ? static_cast<uint32_t>(d) : kFarRetry;
    if (d >= kFarRetry) [[unlikely]] far_retry_[ep] = from;
  }
  uint64_t retry_from(unsigned ep) const {
    const Port& port = port_[ep];
    return port.retry != kFarRetry ? port.earliest() + port.retry : far_retry_[ep];
  }
  // By endpoint: its Port::shift when its stalls were last told. The stall of a floating
  // send is the growth of the shift it makes (x - earliest = the shift after it - the
  // shift before it): the stalls since then add up to shift - told.
  std::vector<uint64_t> told_;
  // At x - 1: the endpoints whose front tries clock x. A PE sends up to a quantum (1000
  // clocks by default) ahead of the network, so a first check is often that far off: a
  // wheel of 1024 clocks takes it directly (with 128, 7 % of the checks went through the
  // far heap and back, ~500 host instructions each: ~1 % of the MPI ring's).
  CheckWheel<PortLinks> checks_;
  uint32_t capacity_;
  uint64_t pushes_ = 0;
};

template <class OnLast>
void OutputPorts::resolve(uint64_t now, OnLast&& on_last) {
  // A front that waited for its injection queue's head to leave: its room is certain from
  // the end of that transfer (the clock it tried last is earlier).
  fabric_.take_injection_starts([this](uint32_t ep) {
    check_at(ep, std::max(retry_from(ep), fabric_.injection_room_from(ep)));
  });
  for (uint64_t t = next_check(); t <= now; t = next_check()) {
    checks_.run_clock(t, [&](const unsigned ep) {
      const uint64_t x = t + 1;
      Port& port = port_[ep];
      const Floating& front = port.front;
      // Accepted if the port is empty and the injection queue has room at x = the
      // network's clock: the packet then enters it now, as flush would at x.
      net::Packet* packet = nothing_due_by(ep, x)
                                ? fabric_.try_inject_from(static_cast<uint16_t>(ep), front.dst, x)
                                : nullptr;
      if (!packet) {
        // Not every clock while the injection queue is full: its room is certain from
        // the end of its head's transfer out. Until that has started (the clock the room
        // comes depends on traffic) the front waits for it, remembering x; it cannot
        // be accepted before (it would only fail here again), and is tried then
        // (take_injection_starts, above), at the clock it would have been accepted
        // trying again every transfer.
        const uint64_t from = fabric_.injection_room_from(ep);
        if (from == UINT64_MAX) {
          set_retry(ep, x + 1);
          fabric_.watch_injection(ep);
        } else {
          recheck_at(ep, std::max(x + 1, from));
        }
        return;
      }
      port.shift = x - front.provisional;
      front.fill(*packet);
      port.pop_floating();
      if (port.floating) {
        const uint64_t next = port.front.provisional + port.shift;  // >= x
        if (fabric_.injection_room_from(ep) == UINT64_MAX) {
          // It filled the queue, whose head has not started leaving: the next one's
          // check would fail and wait for that start (above), which then tries
          // max(next, the end of that transfer): wait for it now, one check fewer per
          // packet where a PE's sends saturate the network (a block send, radix_coarse).
          port.retry = 0;  // (from next)
          fabric_.watch_injection(ep);
        } else {
          recheck_at(ep, next);
        }
      } else {
        on_last(ep, untold_stall(ep));
      }
    });
  }
}

}  // namespace emx::machine
