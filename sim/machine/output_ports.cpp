#include "output_ports.h"

#include <algorithm>

namespace emx::machine {

void OutputPorts::push(const net::Packet& p, uint64_t t, bool reply) {
  auto& q = q_[p.src].items;
  // Execution-unit packets come in time order; a memory-unit reply may be earlier than
  // packets the execution unit sent ahead, or at the same clock: insert it before them.
  size_t at = q.size();
  while (at > q_[p.src].head && (q[at - 1].t > t || (reply && q[at - 1].t == t && !q[at - 1].reply)))
    --at;
  q.insert(q.begin() + std::ptrdiff_t(at), Entry{t, p, reply});
  schedule(p.src, std::max(t, blocked_until_[p.src]));
}

uint64_t OutputPorts::push_floating(const net::Packet& p, uint64_t provisional) {
  Fifo<Floating>& f = floating_[p.src];
  f.items.push_back(Floating::of(p, provisional));
  return f.size() == 1 ? check_at(p.src, provisional + shift_[p.src]) : UINT64_MAX;
}

void OutputPorts::flush(uint64_t limit) {
  // The endpoints in (clock, endpoint) order, each up to `limit`.
  while (due_.first_clock() <= limit && due_.first_clock() != UINT64_MAX) {
    const unsigned ep = due_.first();
    uint64_t next = UINT64_MAX;
    auto& q = q_[ep];
    while (q.size()) {
      const uint64_t at = std::max(q.front().t, blocked_until_[ep]);
      if (at > limit) {
        next = at;
        break;
      }
      if (!fabric_.can_inject(ep, at)) {  // the network's injection queue is full
        const uint64_t free = fabric_.earliest_slot_free(ep, at);
        blocked_until_[ep] = free == UINT64_MAX ? at + 1 : std::max(free, at + 1);
        next = blocked_until_[ep];
        break;
      }
      fabric_.inject(q.front().p, at);
      q.pop_front();
    }
    due_.set(ep, next);
  }
}

}  // namespace emx::machine
