// The PEs' output ports: per PE, the packets sent but not yet in the network, in time
// order. Execution units run ahead of SystemC time (temporal decoupling) while memory
// units reply at SystemC time, so a PE's packets are produced out of time order; here
// they wait until SystemC time reaches them and enter the network in time order, merged.
// The network's injection queue plus this queue is the PE's output queue: a send that
// finds it full stalls (Machine::send).
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "network/fabric.h"

namespace emx::machine {

class OutputPorts {
 public:
  OutputPorts(net::Fabric& fabric, unsigned endpoints, uint32_t capacity)
      : fabric_(fabric),
        q_(endpoints),
        blocked_until_(endpoints, 0),
        scheduled_(endpoints, UINT64_MAX),
        capacity_(capacity) {}

  // Certainly room for one more packet of `ep` at any clock from now on: packets only
  // leave the output queue as time passes.
  bool surely_room(unsigned ep) const {
    return fabric_.injection_queue_length(ep) + q_[ep].size() < capacity_;
  }
  bool empty(unsigned ep) const { return q_[ep].size() == 0; }

  // A packet leaves `p.src` at clock t (not earlier than SystemC time), sent by the
  // execution unit or, `reply`, by the memory unit. At one clock the memory unit's
  // packets go first (its port has priority), whatever order the host produced them in.
  void push(const net::Packet& p, uint64_t t, bool reply);
  // Moves every packet due by clock `limit` into the network, in time order per PE; a
  // packet that finds the network's injection queue full waits for its slot.
  void flush(uint64_t limit);
  // The earliest clock at which flush has work (UINT64_MAX: none).
  uint64_t next_time() const {
    drop_stale();
    return due_.empty() ? UINT64_MAX : due_.top().first;
  }

 private:
  struct Entry {
    uint64_t t;
    net::Packet p;
    bool reply;
  };
  // A short FIFO in a vector that keeps its storage (a deque allocates per block): the
  // entries from `head` on; emptied whenever it drains, which it does all the time.
  struct Fifo {
    std::vector<Entry> items;
    size_t head = 0;
    size_t size() const { return items.size() - head; }
    Entry& front() { return items[head]; }
    void pop_front();
  };
  using Due = std::pair<uint64_t, unsigned>;  // (clock, endpoint)
  // Makes sure flush looks at `ep` at clock t: one entry per endpoint in due_ (its
  // earliest), not one per packet, keeps the heap as small as the number of PEs.
  void schedule(unsigned ep, uint64_t t) {
    if (t >= scheduled_[ep]) return;
    scheduled_[ep] = t;
    due_.push({t, ep});
  }
  // Entries superseded by an earlier one for the same endpoint (a cache: mutable).
  void drop_stale() const {
    while (!due_.empty() && due_.top().first != scheduled_[due_.top().second]) due_.pop();
  }
  net::Fabric& fabric_;
  std::vector<Fifo> q_;
  std::vector<uint64_t> blocked_until_;
  std::vector<uint64_t> scheduled_;  // by endpoint: its entry in due_, UINT64_MAX: none
  mutable std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  uint32_t capacity_;
};

}  // namespace emx::machine
