// The output ports' floating sends: whatever the bursts (the sends behind the front in a
// ring that wraps round and grows while it holds sends), each PE's floating sends enter
// the network once each, in the order sent, with all their fields, none before its
// provisional clock plus the stalls before it, the stalls growing as the injection queue
// fills; the stalls told when a PE's last floating send is accepted add up to its shift.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "sim/machine/output_ports.h"

namespace emx::machine {
namespace {

struct Sent {
  net::Packet p;
  uint64_t provisional;
  bool after_take;  // the PE took its stalls (take_shift) before this send: none before it
};

TEST(OutputPorts, FloatingSendsEnterInOrderWithTheirFieldsAndStalls) {
  constexpr unsigned kPes = 4;
  net::NetworkConfig cfg;
  net::Fabric fabric(cfg, kPes);
  OutputPorts ports(fabric, kPes + 1, cfg.injection_queue_packets);
  std::map<unsigned, std::vector<net::Packet>> arrived;  // by source
  fabric.set_delivery([&](const net::Packet& p, uint64_t) { arrived[p.src].push_back(p); });

  std::mt19937_64 rng(7);
  std::map<unsigned, std::vector<Sent>> sent;  // by source: PEs 0 and 2, both to PE 1
  std::map<unsigned, uint64_t> told, last_provisional;
  std::map<unsigned, bool> taken;
  uint64_t seq = 0, stalls = 0;
  for (uint64_t now = 0; now < 30000; ++now) {
    ports.flush(now + 1);
    if (now + 1 > fabric.now()) fabric.advance_to(now + 1);
    ports.resolve(now, [&](unsigned ep, uint64_t stall) {
      EXPECT_FALSE(ports.floating(ep));
      told[ep] += stall;
    });
    for (unsigned src : {0u, 2u}) {
      // Nothing floats: the PE takes its stalls, all of which it has been told.
      if (!ports.floating(src) && rng() % 4 == 0) {
        const uint64_t shift = ports.take_shift(src);
        EXPECT_EQ(told[src], shift) << "PE " << src << " at " << now;
        stalls += shift;
        told[src] = 0;
        last_provisional[src] += shift;  // (its clock)
        taken[src] = true;
      }
      if (now >= 15000 || rng() % 150) continue;
      // A burst at the same or later clocks, as an execution unit sends.
      uint64_t& at = last_provisional[src];
      at = std::max(at, now + 2 + rng() % 5);
      for (unsigned k = unsigned(rng() % 40); k > 0; --k) {
        at += rng() % 2;
        net::Packet p;
        p.src = uint16_t(src);
        p.dst = 1;
        p.addr = uint32_t(rng());
        p.data = uint32_t(rng());
        p.type = uint8_t(rng() % 64);
        p.src_pc = uint32_t(rng());
        p.seq = seq++;
        if (!ports.floating(src) ||
            !ports.push_behind<256>(src, at, p.seq, p.addr, p.data, p.src_pc, p.dst, p.type))
          ports.push_floating(p, at);
        sent[src].push_back({p, at, taken[src]});
        taken[src] = false;
      }
    }
  }
  EXPECT_TRUE(fabric.idle());
  for (unsigned src : {0u, 2u}) {
    EXPECT_FALSE(ports.floating(src));
    stalls += ports.take_shift(src);
    const std::vector<Sent>& s = sent[src];
    const std::vector<net::Packet>& a = arrived[src];
    ASSERT_GT(s.size(), 100u);
    ASSERT_EQ(a.size(), s.size());
    uint64_t shift = 0;
    for (size_t k = 0; k < s.size(); ++k) {
      EXPECT_EQ(a[k].seq, s[k].p.seq);
      EXPECT_EQ(a[k].addr, s[k].p.addr);
      EXPECT_EQ(a[k].data, s[k].p.data);
      EXPECT_EQ(a[k].type, s[k].p.type);
      EXPECT_EQ(a[k].src_pc, s[k].p.src_pc);
      EXPECT_EQ(a[k].dst, 1);
      // Accepted at its earliest clock or later (its stall: the shift grows).
      if (s[k].after_take) shift = 0;
      ASSERT_GE(a[k].injected_at, s[k].provisional + shift) << "send " << k;
      shift = a[k].injected_at - s[k].provisional;
    }
  }
  EXPECT_GT(stalls, 0u);  // the injection queue filled: sends stalled
}

}  // namespace
}  // namespace emx::machine
