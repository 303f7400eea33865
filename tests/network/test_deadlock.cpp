// Deadlock freedom: the (link, buffer class) dependency graph of all routes is acyclic,
// while the plain link dependency graph of the cyclic topologies is not (so the classes
// are what makes the difference).
#include <gtest/gtest.h>

#include "network/channel_dependencies.h"

namespace emx::net {
namespace {

struct Case {
  TopologyKind kind;
  uint32_t pes;
  const char* name;
};

class NetDeadlock : public testing::TestWithParam<Case> {};

TEST_P(NetDeadlock, HopClassesMakeTheDependencyGraphAcyclic) {
  NetworkConfig cfg;
  cfg.topology = GetParam().kind;
  const Topology topo(cfg, GetParam().pes);
  const Routing routing(topo);
  const ChannelDependencies with_classes = channel_dependencies(routing, true);
  EXPECT_TRUE(with_classes.acyclic);
  EXPECT_GT(with_classes.edges, 0u);
  const ChannelDependencies links_only = channel_dependencies(routing, false);
  EXPECT_FALSE(links_only.acyclic) << "expected the cyclic topology to need buffer classes";
}

INSTANTIATE_TEST_SUITE_P(Topologies, NetDeadlock,
                         testing::Values(Case{TopologyKind::circular_omega, 80, "omega_80"},
                                         Case{TopologyKind::circular_omega, 1024, "omega_1024"},
                                         Case{TopologyKind::ring, 80, "ring_80"},
                                         Case{TopologyKind::torus2d, 80, "torus_80"},
                                         Case{TopologyKind::torus2d, 1024, "torus_1024"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(NetDeadlockCheck, FindsACycleOnAOneWayRing) {
  NetworkConfig cfg;
  cfg.topology = TopologyKind::ring;
  cfg.ring_bidirectional = false;
  const Topology topo(cfg, 4);  // 5 nodes one way: every link waits for the next
  const Routing routing(topo);
  const ChannelDependencies deps = channel_dependencies(routing, false);
  EXPECT_FALSE(deps.acyclic);
  EXPECT_EQ(deps.vertices, 5u);
  EXPECT_EQ(deps.edges, 5u);
  EXPECT_TRUE(channel_dependencies(routing, true).acyclic);
}

}  // namespace
}  // namespace emx::net
