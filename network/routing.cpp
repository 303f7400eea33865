#include "network/routing.h"

#include <fmt/format.h>

namespace emx::net {

Routing::Routing(const Topology& topo)
    : topo_(topo), nodes_(topo.node_count()), scheme_(topo.class_scheme()) {
  constexpr uint32_t kUnreached = UINT32_MAX;
  const uint32_t endpoints = topo.endpoint_count();

  // One table row per node that has endpoints (several endpoints may share a node).
  std::vector<uint32_t> row_of_node(nodes_, kUnreached);
  std::vector<uint32_t> row_nodes;
  row_of_endpoint_.resize(endpoints);
  for (uint32_t e = 0; e < endpoints; ++e) {
    const uint32_t n = topo.endpoint_node(e);
    if (row_of_node[n] == kUnreached) {
      row_of_node[n] = uint32_t(row_nodes.size());
      row_nodes.push_back(n);
    }
    row_of_endpoint_[e] = row_of_node[n];
  }

  // Reversed adjacency (in-links per node), for searching backwards from a destination.
  std::vector<uint32_t> first_in(nodes_ + 1, 0), in_links(topo.link_count());
  for (const Link& l : topo.links()) ++first_in[l.to + 1];
  for (uint32_t n = 0; n < nodes_; ++n) first_in[n + 1] += first_in[n];
  {
    std::vector<uint32_t> fill(first_in.begin(), first_in.end() - 1);
    for (uint32_t id = 0; id < topo.link_count(); ++id) in_links[fill[topo.link(id).to]++] = id;
  }

  table_.assign(row_nodes.size() * nodes_, kEject);
  std::vector<uint32_t> dist(nodes_), frontier, turns(nodes_);
  uint32_t max_turns = 0;
  frontier.reserve(nodes_);
  for (uint32_t row = 0; row < row_nodes.size(); ++row) {
    const uint32_t dst = row_nodes[row];
    dist.assign(nodes_, kUnreached);
    dist[dst] = 0;
    frontier.assign(1, dst);
    for (size_t head = 0; head < frontier.size(); ++head) {
      const uint32_t v = frontier[head];
      for (uint32_t i = first_in[v]; i < first_in[v + 1]; ++i) {
        const uint32_t u = topo.link(in_links[i]).from;
        if (dist[u] == kUnreached) {
          dist[u] = dist[v] + 1;
          frontier.push_back(u);
        }
      }
    }
    uint8_t* ports = &table_[size_t(row) * nodes_];
    for (uint32_t u = 0; u < nodes_; ++u) {
      if (u == dst) continue;  // kEject
      if (dist[u] == kUnreached) continue;  // checked below when u holds an endpoint
      for (uint32_t p = 0; p < topo.out_degree(u); ++p)
        if (dist[topo.link(topo.first_link(u) + p).to] + 1 == dist[u]) {
          ports[u] = uint8_t(p);
          break;
        }
    }
    for (uint32_t src_node : row_nodes) {
      if (dist[src_node] == kUnreached)
        throw config::ConfigError(fmt::format(
            "network: {} cannot route from node {} to node {}", topo.describe(), src_node, dst));
      diameter_ = std::max(diameter_, dist[src_node]);
    }
    if (scheme_ == ClassScheme::datelines) {
      // turns[u]: turns to a lower dimension on the route from u to dst, which set the
      // number of classes. In BFS order, a node's next node comes before it.
      turns[dst] = 0;
      for (size_t i = 1; i < frontier.size(); ++i) {
        const uint32_t u = frontier[i];
        const Link& out = topo.link(topo.first_link(u) + ports[u]);
        turns[u] = turns[out.to];
        if (out.to != dst)
          turns[u] += topo.link(topo.first_link(out.to) + ports[out.to]).dimension < out.dimension;
        if (row_of_node[u] != kUnreached) max_turns = std::max(max_turns, turns[u]);
      }
    }
  }
  classes_ = scheme_ == ClassScheme::hops ? std::max(1u, diameter_) : 2 * (max_turns + 1);
}

uint32_t Routing::hops(uint32_t src, uint32_t dst) const {
  uint32_t n = topo_.endpoint_node(src), count = 0;
  for (uint32_t l; (l = next_link(n, dst)) != kNoLink; ++count) n = topo_.link(l).to;
  return count;
}

std::vector<uint32_t> Routing::route(uint32_t src, uint32_t dst) const {
  std::vector<uint32_t> links;
  uint32_t n = topo_.endpoint_node(src);
  for (uint32_t l; (l = next_link(n, dst)) != kNoLink;) {
    links.push_back(l);
    n = topo_.link(l).to;
  }
  return links;
}

}  // namespace emx::net
