// Test helpers: a Fabric driver that sends per-endpoint packet lists as fast as the
// injection queues allow, and an independent BFS to check routing against.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <ostream>
#include <vector>

#include "network/fabric.h"

namespace emx::net::test {

struct Arrival {
  Packet packet;
  uint64_t time;
  bool operator==(const Arrival& o) const {
    return packet.seq == o.packet.seq && packet.src == o.packet.src &&
           packet.dst == o.packet.dst && time == o.time;
  }
};

inline NetworkConfig config_for(TopologyKind kind) {
  NetworkConfig cfg;
  cfg.topology = kind;
  return cfg;
}

inline const char* name_of(TopologyKind kind) { return topology_name(kind); }

}  // namespace emx::net::test

namespace emx::net {
// Names in gtest's parameter printouts.
inline void PrintTo(TopologyKind kind, std::ostream* os) { *os << test::name_of(kind); }
}  // namespace emx::net

namespace emx::net::test {

inline constexpr TopologyKind kAllTopologies[] = {
    TopologyKind::circular_omega, TopologyKind::crossbar, TopologyKind::single_switch,
    TopologyKind::ring, TopologyKind::torus2d};

// Sends outbox[e] from endpoint e, one packet per clock at most, whenever can_inject
// allows, starting at clock `start`; runs until everything is delivered. Packets get
// seq = their global send order. Returns the arrivals in delivery order.
inline std::vector<Arrival> run_traffic(Fabric& fabric, std::vector<std::deque<Packet>> outbox,
                                        uint64_t start = 0) {
  std::vector<Arrival> arrivals;
  fabric.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  size_t pending = 0;
  for (const auto& q : outbox) pending += q.size();
  uint64_t seq = 0;
  for (uint64_t t = start; pending > 0 || !fabric.idle(); ++t) {
    fabric.advance_to(t);
    for (uint32_t e = 0; e < outbox.size(); ++e)
      if (!outbox[e].empty() && fabric.can_inject(e, t)) {
        Packet p = outbox[e].front();
        outbox[e].pop_front();
        p.src = uint16_t(e);
        p.seq = seq++;
        fabric.inject(p, t);
        --pending;
      }
    if (t > start + 100000000) {
      ADD_FAILURE() << "traffic did not drain";
      break;
    }
  }
  return arrivals;
}

// Hop distance from every node to every node, by a plain forward BFS per source.
inline std::vector<std::vector<uint32_t>> all_distances(const Topology& topo) {
  const uint32_t n = topo.node_count();
  std::vector<std::vector<uint32_t>> dist(n, std::vector<uint32_t>(n, UINT32_MAX));
  for (uint32_t s = 0; s < n; ++s) {
    std::vector<uint32_t> frontier{s};
    dist[s][s] = 0;
    for (size_t i = 0; i < frontier.size(); ++i) {
      const uint32_t v = frontier[i];
      for (uint32_t l = topo.first_link(v); l < topo.first_link(v + 1); ++l) {
        const uint32_t w = topo.link(l).to;
        if (dist[s][w] == UINT32_MAX) {
          dist[s][w] = dist[s][v] + 1;
          frontier.push_back(w);
        }
      }
    }
  }
  return dist;
}

}  // namespace emx::net::test
