#include "network/channel_dependencies.h"

#include <bitset>
#include <stdexcept>

namespace emx::net {

ChannelDependencies channel_dependencies(const Routing& routing, bool with_hop_classes) {
  const Topology& topo = routing.topology();
  const uint32_t classes = with_hop_classes ? std::max(1u, routing.diameter()) : 1;
  const size_t vertex_count = size_t(topo.link_count()) * classes;
  // Vertex (link l, class c) = l * classes + c, class c meaning hop c+1 of a route. Its
  // successors are out-links of l's far node: one bit per port there (degree < 32).
  constexpr uint32_t kMaxPorts = 32;
  for (uint32_t n = 0; n < topo.node_count(); ++n)
    if (topo.out_degree(n) > kMaxPorts) throw std::logic_error("node degree above 32");
  std::vector<uint32_t> next_ports(vertex_count, 0);
  std::vector<bool> used(vertex_count, false);

  auto vertex = [&](uint32_t link, uint32_t hop) {
    return size_t(link) * classes + (with_hop_classes ? hop : 0);
  };
  for (uint32_t src = 0; src < topo.endpoint_count(); ++src)
    for (uint32_t dst = 0; dst < topo.endpoint_count(); ++dst) {
      uint32_t node = topo.endpoint_node(src), prev = Routing::kNoLink, hop = 0;
      for (uint32_t l; (l = routing.next_link(node, dst)) != Routing::kNoLink; ++hop) {
        used[vertex(l, hop)] = true;
        if (prev != Routing::kNoLink)
          next_ports[vertex(prev, hop - 1)] |= 1u << (l - topo.first_link(node));
        prev = l;
        node = topo.link(l).to;
      }
    }

  ChannelDependencies result;
  for (size_t v = 0; v < vertex_count; ++v) {
    result.vertices += used[v];
    result.edges += std::bitset<32>(next_ports[v]).count();
  }

  // Iterative depth-first search; a grey successor closes a cycle.
  enum : uint8_t { white, grey, black };
  std::vector<uint8_t> colour(vertex_count, white);
  struct Frame {
    size_t v;
    uint32_t ports_left;
  };
  std::vector<Frame> stack;
  for (size_t root = 0; root < vertex_count && result.acyclic; ++root) {
    if (colour[root] != white || !next_ports[root]) continue;
    colour[root] = grey;
    stack.push_back({root, next_ports[root]});
    while (!stack.empty() && result.acyclic) {
      Frame& f = stack.back();
      if (!f.ports_left) {
        colour[f.v] = black;
        stack.pop_back();
        continue;
      }
      const uint32_t port = uint32_t(__builtin_ctz(f.ports_left));
      f.ports_left &= f.ports_left - 1;
      const uint32_t link = uint32_t(f.v / classes), hop = uint32_t(f.v % classes);
      const uint32_t next_link = topo.first_link(topo.link(link).to) + port;
      const size_t w = vertex(next_link, hop + 1);
      if (colour[w] == grey) result.acyclic = false;
      if (colour[w] == white) {
        colour[w] = grey;
        stack.push_back({w, next_ports[w]});
      }
    }
  }
  return result;
}

}  // namespace emx::net
