// The network as a directed graph of switch nodes. Endpoints (PEs 0..N-1 and the host
// interface, endpoint N) attach to nodes through a local port each; nodes are joined by
// directed links. A node's outgoing links are its ports 0..out_degree-1, in a fixed order
// (the routing tie-break prefers lower ports). Which graph each topology builds:
// network/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "network/network_config.h"

namespace emx::net {

enum class LinkKind : uint8_t {
  ring,       // to the next node of a ring (a circular omega group, or the ring topology)
  ring_back,  // to the previous node of a bidirectional ring
  shuffle,    // circular omega inter-group link x -> shuffle(x)
  host_in,    // the first half of a link the host node is inserted on (towards the host)
  host_out,   // the second half (away from the host)
  east, west, south, north  // torus2d
};
const char* link_kind_name(LinkKind k);

struct Link {
  uint32_t from, to;  // nodes
  LinkKind kind;
  // For ClassScheme::datelines: the dimension the link moves in (ring: 0; torus: X = 0,
  // host links included as they sit on row 0's X rings, Y = 1), and whether it is the
  // dateline of its ring (each directed ring of links has exactly one).
  uint8_t dimension = 0;
  bool dateline = false;
};

// How the buffer class of each hop is chosen, for deadlock freedom (network/README.md,
// "Deadlock freedom"; Routing::next_class computes it).
enum class ClassScheme : uint8_t {
  hops,       // one class per hop taken: works for any shortest-path routing
  datelines,  // rings of links, each cut at its dateline: 2 classes per dimension round
};
// The scheme `buffer_classes` selects for `kind` (the config is validated: datelines only
// for ring and torus2d).
ClassScheme class_scheme_for(TopologyKind kind, BufferClasses buffer_classes);

class Topology {
 public:
  static constexpr uint32_t kNoNode = UINT32_MAX;

  Topology(const NetworkConfig& cfg, uint32_t pe_count);

  TopologyKind kind() const { return kind_; }
  // network.buffer_classes, resolved: auto = datelines for ring and torus2d, else hops.
  ClassScheme class_scheme() const { return scheme_; }
  uint32_t pe_count() const { return pe_count_; }
  uint32_t endpoint_count() const { return pe_count_ + 1; }  // PEs + host
  uint32_t host_endpoint() const { return pe_count_; }
  uint32_t node_count() const { return node_count_; }
  uint32_t link_count() const { return uint32_t(links_.size()); }

  uint32_t endpoint_node(uint32_t endpoint) const { return endpoint_node_[endpoint]; }
  uint32_t host_node() const { return endpoint_node_[pe_count_]; }
  const Link& link(uint32_t id) const { return links_[id]; }
  const std::vector<Link>& links() const { return links_; }
  // Outgoing links of a node are ids first_link(n) .. first_link(n+1)-1; port p = id - first.
  uint32_t first_link(uint32_t node) const { return first_link_[node]; }
  uint32_t out_degree(uint32_t node) const { return first_link_[node + 1] - first_link_[node]; }

  // The resolved shape (zero where it does not apply) and a one-line description.
  OmegaShape omega() const { return omega_; }
  TorusShape torus() const { return torus_; }
  std::string describe() const;

 private:
  // Collects links in port order, then freezes them into the per-node (CSR) layout.
  struct Builder;

  TopologyKind kind_;
  ClassScheme scheme_;
  uint32_t pe_count_;
  uint32_t node_count_ = 0;
  OmegaShape omega_{};
  TorusShape torus_{};
  std::vector<uint32_t> endpoint_node_;
  std::vector<uint32_t> first_link_;
  std::vector<Link> links_;
};

// The circular omega inter-group permutation: the perfect shuffle of G*k items.
inline uint32_t perfect_shuffle(uint32_t x, OmegaShape s) {
  return (x % s.groups) * s.group_size + x / s.groups;
}

}  // namespace emx::net
