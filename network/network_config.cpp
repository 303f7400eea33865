#include "network/network_config.h"

#include <fmt/format.h>

namespace emx::net {
namespace {

// Node tables are nodes x nodes; this bound keeps them a few MB.
constexpr uint32_t kMaxNodes = 2048;
// Boards of 5 PEs, as on EM-X [paper]; used when the config leaves the shape open.
constexpr uint32_t kDefaultGroupSize = 5;

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

[[noreturn]] void fail(const std::string& what) {
  throw config::ConfigError("network config: " + what);
}

void check_pe_count(uint32_t pe_count) {
  if (pe_count < 1 || pe_count > kMaxPes)
    fail(fmt::format("the PE count must be in [1, {}] (got {})", kMaxPes, pe_count));
}

}  // namespace

OmegaShape NetworkConfig::omega_shape(uint32_t pe_count) const {
  check_pe_count(pe_count);
  OmegaShape s{groups, group_size};
  if (s.groups == 0 && s.group_size == 0) {
    // EM-X scales by boards of 5; a machine of at most one board is a single ring.
    s.group_size = pe_count <= kDefaultGroupSize ? pe_count : kDefaultGroupSize;
    s.groups = ceil_div(pe_count, s.group_size);
  } else if (s.groups == 0) {
    s.groups = ceil_div(pe_count, s.group_size);
  } else if (s.group_size == 0) {
    s.group_size = ceil_div(pe_count, s.groups);
    if (s.groups > 1 && s.group_size < 2) s.group_size = 2;  // see the k >= 2 rule below
  }
  const uint64_t nodes = uint64_t(s.groups) * s.group_size;
  if (nodes < pe_count)
    fail(fmt::format("groups ({}) x group_size ({}) = {} nodes cannot hold {} PEs", s.groups,
                     s.group_size, nodes, pe_count));
  if (nodes > kMaxNodes)
    fail(fmt::format("groups ({}) x group_size ({}) = {} nodes, more than the {} allowed",
                     s.groups, s.group_size, nodes, kMaxNodes));
  // With one node per group every shuffle link x -> x is a loop: groups would be cut off.
  if (s.groups > 1 && s.group_size < 2)
    fail(fmt::format("group_size must be at least 2 when there are several groups (groups {})",
                     s.groups));
  if (host_link >= nodes)
    fail(fmt::format("host_link ({}) must name a node, 0..{}", host_link, nodes - 1));
  return s;
}

TorusShape NetworkConfig::torus_shape(uint32_t pe_count) const {
  check_pe_count(pe_count);
  TorusShape s;
  s.width = torus_width;
  if (s.width == 0)
    while (s.width * s.width < pe_count) ++s.width;  // ceil(sqrt(PEs)), exact in integers
  s.height = ceil_div(pe_count, s.width);
  return s;
}

void NetworkConfig::validate(uint32_t pe_count) const {
  check_pe_count(pe_count);
  if (topology == TopologyKind::circular_omega) omega_shape(pe_count);
  if (topology == TopologyKind::torus2d) torus_shape(pe_count);
  if (buffer_classes == BufferClasses::datelines && topology != TopologyKind::ring &&
      topology != TopologyKind::torus2d)
    throw config::ConfigError(fmt::format(
        "config key 'network.buffer_classes': \"datelines\" applies only to the ring and "
        "torus2d topologies, not to network.topology = \"{}\"; use \"auto\" or \"hops\"",
        topology_name(topology)));
}

const char* topology_name(TopologyKind k) {
  switch (k) {
    case TopologyKind::circular_omega: return "circular_omega";
    case TopologyKind::crossbar: return "crossbar";
    case TopologyKind::single_switch: return "single_switch";
    case TopologyKind::ring: return "ring";
    case TopologyKind::torus2d: return "torus2d";
  }
  return "?";
}

}  // namespace emx::net
