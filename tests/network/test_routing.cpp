// Routing tables: every pair reaches its destination by a shortest path, for every
// topology at 80 and 1024 PEs, and the tables build fast.
#include <gtest/gtest.h>

#include <chrono>

#include "fabric_driver.h"
#include "network/routing.h"

namespace emx::net {
namespace {

using test::all_distances;

class NetRoutingAllPairs : public testing::TestWithParam<std::tuple<TopologyKind, uint32_t>> {};

// Follows next_port from every endpoint to every endpoint: the walk must end at the
// destination's node after exactly the BFS distance, and hops()/route() must agree.
TEST_P(NetRoutingAllPairs, FollowsShortestPaths) {
  const auto [kind, pes] = GetParam();
  NetworkConfig cfg;
  cfg.topology = kind;
  const Topology topo(cfg, pes);
  const Routing routing(topo);
  const auto dist = all_distances(topo);
  uint32_t longest = 0;
  for (uint32_t src = 0; src < topo.endpoint_count(); ++src)
    for (uint32_t dst = 0; dst < topo.endpoint_count(); ++dst) {
      uint32_t node = topo.endpoint_node(src), steps = 0;
      for (uint8_t port; (port = routing.next_port(node, dst)) != Routing::kEject; ++steps) {
        ASSERT_LT(port, topo.out_degree(node));
        node = topo.link(topo.first_link(node) + port).to;
        ASSERT_LE(steps, topo.node_count()) << "routing loop " << src << " -> " << dst;
      }
      ASSERT_EQ(node, topo.endpoint_node(dst));
      const uint32_t expected = dist[topo.endpoint_node(src)][topo.endpoint_node(dst)];
      ASSERT_EQ(steps, expected) << src << " -> " << dst;
      ASSERT_EQ(routing.hops(src, dst), expected);
      ASSERT_EQ(routing.route(src, dst).size(), expected);
      longest = std::max(longest, steps);
    }
  EXPECT_EQ(routing.diameter(), longest);
}

INSTANTIATE_TEST_SUITE_P(
    Topologies, NetRoutingAllPairs,
    testing::Combine(testing::ValuesIn(test::kAllTopologies), testing::Values(80u, 1024u)),
    [](const auto& info) {
      return std::string(test::name_of(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param));
    });

TEST(NetRouting, Diameters) {
  auto diameter = [](TopologyKind kind, uint32_t pes) {
    NetworkConfig cfg;
    cfg.topology = kind;
    const Topology topo(cfg, pes);
    return Routing(topo).diameter();
  };
  EXPECT_EQ(diameter(TopologyKind::circular_omega, 80), 10u);
  EXPECT_EQ(diameter(TopologyKind::circular_omega, 1024), 15u);
  EXPECT_EQ(diameter(TopologyKind::ring, 80), 40u);     // 81 nodes, both directions
  EXPECT_EQ(diameter(TopologyKind::torus2d, 1024), 32u);
  EXPECT_EQ(diameter(TopologyKind::single_switch, 1024), 0u);
}

TEST(NetRouting, TieBreakPrefersTheLowerPort) {
  NetworkConfig cfg;
  cfg.topology = TopologyKind::ring;
  const Topology topo(cfg, 3);  // ring of 4 nodes: 0 -> 2 is 2 hops either way
  const Routing routing(topo);
  EXPECT_EQ(routing.next_port(0, 2), 0);  // port 0 = towards node 1
  EXPECT_EQ(routing.route(0, 2), (std::vector<uint32_t>{topo.first_link(0), topo.first_link(1)}));
}

TEST(NetRouting, TablesFor1025EndpointsBuildInUnderASecond) {
  for (TopologyKind kind : test::kAllTopologies) {
    NetworkConfig cfg;
    cfg.topology = kind;
    const auto start = std::chrono::steady_clock::now();
    const Topology topo(cfg, 1024);
    const Routing routing(topo);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0) << test::name_of(kind);
  }
}

TEST(NetRouting, HostReachesEveryPeAndBack) {
  for (TopologyKind kind : test::kAllTopologies) {
    NetworkConfig cfg;
    cfg.topology = kind;
    const Topology topo(cfg, 80);
    const Routing routing(topo);
    for (uint32_t pe = 0; pe < 80; ++pe) {
      EXPECT_LE(routing.hops(80, pe), routing.diameter());
      EXPECT_LE(routing.hops(pe, 80), routing.diameter());
    }
  }
}

}  // namespace
}  // namespace emx::net
