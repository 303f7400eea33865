#include "output_ports.h"

#include <algorithm>
#include <stdexcept>

namespace emx::machine {

void OutputPorts::push(const net::Packet& p, uint64_t t, bool reply) {
  ++pushes_;
  Port& port = port_[p.src];
  auto& q = port.q;
  // Mostly the port holds nothing (its packets have left): no search.
  if (q.size() == 0 && q.push_back_in_place(Entry{t, p, reply})) {
    port.holds = true;
    schedule(p.src, std::max(t, port.blocked_until));
    return;
  }
  push_behind_others(p, t, reply);
}

void OutputPorts::push_behind_others(const net::Packet& p, uint64_t t, bool reply) {
  Port& port = port_[p.src];
  auto& q = port.q;
  // Execution-unit packets come in time order; a memory-unit reply may be earlier than
  // packets the execution unit sent ahead, or at the same clock: insert it before them.
  size_t at = q.size();
  while (at > 0 && (q[at - 1].t > t || (reply && q[at - 1].t == t && !q[at - 1].reply))) --at;
  // (Nearly always at the back: Fifo::insert would store the entry twice.)
  if (at == q.size())
    q.push_back(Entry{t, p, reply});
  else
    q.insert(at, Entry{t, p, reply});
  port.holds = true;
  schedule(p.src, std::max(t, port.blocked_until));
}

void OutputPorts::Port::float_grown(const Floating& f) {
  const uint32_t capacity = behind ? 2u * (behind_mask + 1u) : 8u;
  if (capacity > 0x8000) throw std::length_error("more than 32768 floating sends of one PE");
  std::unique_ptr<Floating[]> b(new Floating[capacity]);
  for (uint32_t k = 1; k < floating; ++k) b[k - 1] = behind[(behind_base + k) & behind_mask];
  behind = std::move(b);
  behind_mask = static_cast<uint16_t>(capacity - 1);
  behind_base = behind_mask;  // (the first at 0)
  float_in_place(f);
}

void OutputPorts::flush_due(uint64_t limit) {
  // The endpoints in (clock, endpoint) order, each up to `limit`.
  while (due_.first_clock() <= limit && due_.first_clock() != UINT64_MAX) {
    const unsigned ep = due_.first();
    uint64_t next = UINT64_MAX;
    Port& port = port_[ep];
    auto& q = port.q;
    while (q.size()) {
      const uint64_t at = std::max(q.front().t, port.blocked_until);
      if (at > limit) {
        next = at;
        break;
      }
      if (!fabric_.try_inject(q.front().p, at)) {  // the network's injection queue is full
        const uint64_t free = fabric_.earliest_slot_free(ep, at);
        port.blocked_until = free == UINT64_MAX ? at + 1 : std::max(free, at + 1);
        next = port.blocked_until;
        break;
      }
      q.pop_front();
    }
    port.q_changed();
    due_.set(ep, next);
  }
}

}  // namespace emx::machine
