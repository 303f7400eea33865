// Shortest-path routing by table. At construction, one breadth-first search per
// destination node (over the reversed links) gives every node's distance to it; a node's
// next port towards it is the LOWEST-numbered out-link whose far end is one step closer.
// That deterministic tie-break makes every route a fixed path, so packets between one
// pair of endpoints stay in order. Tables: one byte per (destination node with an
// endpoint, node): about 1 MB for 1025 endpoints.
#pragma once
#include <cstdint>
#include <vector>

#include "network/topology.h"

namespace emx::net {

class Routing {
 public:
  static constexpr uint8_t kEject = 255;       // next_port: deliver to the local endpoint
  static constexpr uint32_t kNoLink = UINT32_MAX;

  // Throws config::ConfigError when some endpoint cannot reach another.
  explicit Routing(const Topology& topo);

  // Port of `node` a packet for `dst` (an endpoint) leaves by, or kEject at dst's node.
  uint8_t next_port(uint32_t node, uint32_t dst) const {
    return table_[size_t(row_of_endpoint_[dst]) * nodes_ + node];
  }
  // The row of next ports towards `dst`, indexed by node (the Fabric keeps it per packet,
  // to look its next port up with one load per hop).
  const uint8_t* ports_to(uint32_t dst) const {
    return &table_[size_t(row_of_endpoint_[dst]) * nodes_];
  }
  // The same as a link id, or kNoLink at the destination's node.
  uint32_t next_link(uint32_t node, uint32_t dst) const {
    const uint8_t p = next_port(node, dst);
    return p == kEject ? kNoLink : topo_.first_link(node) + p;
  }
  // Links traversed from endpoint src to endpoint dst (0 when they share a node).
  uint32_t hops(uint32_t src, uint32_t dst) const;
  // The links of that route, in order.
  std::vector<uint32_t> route(uint32_t src, uint32_t dst) const;
  // The largest hops() over all endpoint pairs.
  uint32_t diameter() const { return diameter_; }

  // Buffer classes, for deadlock freedom (network/README.md, "Deadlock freedom"): a packet
  // that crosses `link` enters the far end's buffer of class next_class(cls, from, link),
  // where cls is the class of the buffer it leaves and `from` the link it came in by
  // (kNoLink from its injection queue: cls is then ignored). classes() bounds them all.
  //   ClassScheme::hops:      the hop number - 1.
  //   ClassScheme::datelines: 2 x (turns so far to a lower dimension) + (crossed the
  //                           dateline of the ring it now travels on).
  uint32_t classes() const { return classes_; }
  ClassScheme scheme() const { return scheme_; }
  uint32_t next_class(uint32_t cls, uint32_t from, uint32_t link) const {
    if (from == kNoLink) return scheme_ == ClassScheme::hops ? 0 : topo_.link(link).dateline;
    if (scheme_ == ClassScheme::hops) return cls + 1;
    const Link &in = topo_.link(from), &out = topo_.link(link);
    // Consecutive links of one dimension in a shortest route stay in one directed ring.
    if (in.dimension == out.dimension) return cls | out.dateline;
    return (cls & ~1u) + (out.dimension < in.dimension ? 2 : 0) + out.dateline;
  }

  const Topology& topology() const { return topo_; }

 private:
  const Topology& topo_;
  uint32_t nodes_;
  std::vector<uint32_t> row_of_endpoint_;  // endpoint -> table row (one per endpoint node)
  std::vector<uint8_t> table_;             // [row][node] -> port
  uint32_t diameter_ = 0;
  ClassScheme scheme_;
  uint32_t classes_ = 1;
};

}  // namespace emx::net
