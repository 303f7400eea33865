#include "network/channel_dependencies.h"

#include <bitset>
#include <stdexcept>

namespace emx::net {

ChannelDependencies channel_dependencies(const Routing& routing, bool with_classes) {
  const Topology& topo = routing.topology();
  const uint32_t classes = with_classes ? routing.classes() : 1;
  const size_t vertex_count = size_t(topo.link_count()) * classes;
  // The class of the buffer entered by crossing `link` after `from` (kNoLink: injected).
  auto next_class = [&](uint32_t cls, uint32_t from, uint32_t link) {
    const uint32_t c = with_classes ? routing.next_class(cls, from, link) : 0;
    if (c >= classes) throw std::logic_error("buffer class beyond Routing::classes()");
    return c;
  };
  // Vertex (link l, class c) = l * classes + c. Its successors are out-links of l's far
  // node, the class following from (c, l, successor): one bit per port there (degree < 32).
  constexpr uint32_t kMaxPorts = 32;
  for (uint32_t n = 0; n < topo.node_count(); ++n)
    if (topo.out_degree(n) > kMaxPorts) throw std::logic_error("node degree above 32");
  std::vector<uint32_t> next_ports(vertex_count, 0);
  std::vector<bool> used(vertex_count, false);

  // Towards one destination, the rest of a route depends only on the vertex it has
  // reached, so a walk stops at a vertex an earlier source's route already went through:
  // all pairs of a 1024-PE ring in a few million steps rather than 270 million.
  std::vector<uint32_t> walked_to(vertex_count, UINT32_MAX);  // destination, per vertex
  for (uint32_t dst = 0; dst < topo.endpoint_count(); ++dst)
    for (uint32_t src = 0; src < topo.endpoint_count(); ++src) {
      uint32_t node = topo.endpoint_node(src), prev = Routing::kNoLink, cls = 0;
      for (uint32_t l; (l = routing.next_link(node, dst)) != Routing::kNoLink;) {
        const uint32_t c = next_class(cls, prev, l);
        const size_t v = size_t(l) * classes + c;
        used[v] = true;
        if (prev != Routing::kNoLink)
          next_ports[size_t(prev) * classes + cls] |= 1u << (l - topo.first_link(node));
        if (walked_to[v] == dst) break;
        walked_to[v] = dst;
        prev = l;
        cls = c;
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
      const uint32_t link = uint32_t(f.v / classes), cls = uint32_t(f.v % classes);
      const uint32_t next_link = topo.first_link(topo.link(link).to) + port;
      const size_t w = size_t(next_link) * classes + next_class(cls, link, next_link);
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
