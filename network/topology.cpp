#include "network/topology.h"

#include <fmt/format.h>

namespace emx::net {

const char* link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::ring: return "ring";
    case LinkKind::ring_back: return "ring_back";
    case LinkKind::shuffle: return "shuffle";
    case LinkKind::host_in: return "host_in";
    case LinkKind::host_out: return "host_out";
    case LinkKind::east: return "east";
    case LinkKind::west: return "west";
    case LinkKind::south: return "south";
    case LinkKind::north: return "north";
  }
  return "?";
}

ClassScheme class_scheme_for(TopologyKind kind, BufferClasses buffer_classes) {
  switch (buffer_classes) {
    case BufferClasses::hops: return ClassScheme::hops;
    case BufferClasses::datelines: return ClassScheme::datelines;
    case BufferClasses::automatic: break;
  }
  return kind == TopologyKind::ring || kind == TopologyKind::torus2d ? ClassScheme::datelines
                                                                     : ClassScheme::hops;
}

struct Topology::Builder {
  explicit Builder(uint32_t nodes) : out(nodes) {}

  // Loops carry nothing a shortest route would use, so they are not built.
  void add(uint32_t from, uint32_t to, LinkKind kind) {
    if (from != to) out[from].push_back({from, to, kind});
  }
  // The link from -> to with the host node spliced in: from -> host -> to. A loop
  // (from == to) is kept this way: it becomes the host's pair of links to that node.
  void add_through_host(uint32_t from, uint32_t to, uint32_t host) {
    out[from].push_back({from, host, LinkKind::host_in});
    out[host].push_back({host, to, LinkKind::host_out});
  }

  void freeze(Topology& t) {
    t.node_count_ = uint32_t(out.size());
    t.first_link_.assign(1, 0);
    for (const auto& node_links : out) {
      t.links_.insert(t.links_.end(), node_links.begin(), node_links.end());
      t.first_link_.push_back(uint32_t(t.links_.size()));
    }
  }

  std::vector<std::vector<Link>> out;  // per node, in port order
};

Topology::Topology(const NetworkConfig& cfg, uint32_t pe_count)
    : kind_(cfg.topology),
      scheme_(class_scheme_for(cfg.topology, cfg.buffer_classes)),
      pe_count_(pe_count) {
  cfg.validate(pe_count);
  endpoint_node_.resize(endpoint_count());
  // PE p sits on node p in every topology with one PE per node; the host gets its own node.
  for (uint32_t p = 0; p < pe_count; ++p) endpoint_node_[p] = p;

  switch (kind_) {
    case TopologyKind::crossbar:
    case TopologyKind::single_switch: {
      // One switch; every endpoint has its own port (link in, link out) on it.
      Builder b(1);
      b.freeze(*this);
      endpoint_node_.assign(endpoint_count(), 0);
      break;
    }
    case TopologyKind::circular_omega: {
      omega_ = cfg.omega_shape(pe_count);
      const uint32_t k = omega_.group_size, nodes = omega_.groups * k, host = nodes;
      Builder b(nodes + 1);
      for (uint32_t x = 0; x < nodes; ++x) {
        const uint32_t group_base = x - x % k;
        b.add(x, group_base + (x % k + 1) % k, LinkKind::ring);  // port 0
        const uint32_t s = perfect_shuffle(x, omega_);           // port 1
        if (x == cfg.host_link)
          b.add_through_host(x, s, host);
        else
          b.add(x, s, LinkKind::shuffle);
      }
      b.freeze(*this);
      endpoint_node_[pe_count] = host;
      break;
    }
    case TopologyKind::ring: {
      // Nodes 0..N-1 hold the PEs, node N the host: a ring of N+1 nodes.
      const uint32_t n = pe_count + 1;
      Builder b(n);
      for (uint32_t i = 0; i < n; ++i) {
        b.add(i, (i + 1) % n, LinkKind::ring);
        if (cfg.ring_bidirectional) b.add(i, (i + n - 1) % n, LinkKind::ring_back);
      }
      // Two nodes joined twice in each direction would be parallel links: keep them, the
      // hardware would have both; routing uses the lower port.
      b.freeze(*this);
      endpoint_node_[pe_count] = pe_count;
      // Datelines: the forward ring is cut where it wraps (N -> 0), the backward one at 0 -> N.
      for (Link& l : links_) l.dateline = l.kind == LinkKind::ring ? l.from == n - 1 : l.from == 0;
      break;
    }
    case TopologyKind::torus2d: {
      torus_ = cfg.torus_shape(pe_count);
      const uint32_t w = torus_.width, h = torus_.height, nodes = w * h, host = nodes;
      Builder b(nodes + 1);
      for (uint32_t x = 0; x < nodes; ++x) {
        const uint32_t r = x / w, c = x % w;
        // The host sits on the row-0 wrap-around link, in both directions.
        const uint32_t east = r * w + (c + 1) % w;
        if (x == w - 1)
          b.add_through_host(x, east, host);
        else
          b.add(x, east, LinkKind::east);
        const uint32_t west = r * w + (c + w - 1) % w;
        if (x == 0)
          b.add_through_host(x, west, host);
        else
          b.add(x, west, LinkKind::west);
        b.add(x, (r + 1) % h * w + c, LinkKind::south);
        b.add(x, (r + h - 1) % h * w + c, LinkKind::north);
      }
      b.freeze(*this);
      endpoint_node_[pe_count] = host;
      // Every row and column is a pair of directed rings, cut at their wrap-around links;
      // row 0's wrap-around runs through the host, its rings are cut where they leave it.
      for (Link& l : links_) {
        const uint32_t r = l.from / w, c = l.from % w;
        switch (l.kind) {
          case LinkKind::east: l.dateline = c == w - 1; break;
          case LinkKind::west: l.dateline = c == 0; break;
          case LinkKind::host_out: l.dateline = true; break;
          case LinkKind::south: l.dateline = r == h - 1; break;
          case LinkKind::north: l.dateline = r == 0; break;
          default: break;
        }
        l.dimension = l.kind == LinkKind::south || l.kind == LinkKind::north ? 1 : 0;
      }
      break;
    }
  }
  for (uint32_t n = 0; n < node_count_; ++n)
    if (out_degree(n) >= 255)  // ports are bytes in the routing tables, 255 = eject
      throw config::ConfigError(fmt::format("network: node {} has too many links", n));
}

std::string Topology::describe() const {
  switch (kind_) {
    case TopologyKind::crossbar:
      return fmt::format("crossbar, {} endpoints", endpoint_count());
    case TopologyKind::single_switch:
      return fmt::format("single_switch, {} endpoints", endpoint_count());
    case TopologyKind::circular_omega:
      return fmt::format("circular_omega {} groups x {} nodes, {} PEs, host node {}",
                         omega_.groups, omega_.group_size, pe_count_, host_node());
    case TopologyKind::ring:
      return fmt::format("ring of {} nodes ({} PEs + host)", node_count_, pe_count_);
    case TopologyKind::torus2d:
      return fmt::format("torus2d {} x {}, {} PEs, host node {}", torus_.width, torus_.height,
                         pe_count_, host_node());
  }
  return "?";
}

}  // namespace emx::net
