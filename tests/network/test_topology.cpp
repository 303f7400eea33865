// The graphs each topology builds.
#include <gtest/gtest.h>

#include <set>

#include "network/topology.h"

namespace emx::net {
namespace {

NetworkConfig with(TopologyKind kind) {
  NetworkConfig cfg;
  cfg.topology = kind;
  return cfg;
}

// The (from, to, kind) of every link, for comparisons.
std::multiset<std::tuple<uint32_t, uint32_t, LinkKind>> link_set(const Topology& t) {
  std::multiset<std::tuple<uint32_t, uint32_t, LinkKind>> s;
  for (const Link& l : t.links()) s.insert({l.from, l.to, l.kind});
  return s;
}

TEST(NetTopology, EmxCircularOmegaIs16GroupsOf5WithTheHostOnNode0sLink) {
  const Topology t(NetworkConfig{}, 80);
  EXPECT_EQ(t.omega().groups, 16u);
  EXPECT_EQ(t.omega().group_size, 5u);
  EXPECT_EQ(t.node_count(), 81u);
  EXPECT_EQ(t.endpoint_count(), 81u);
  EXPECT_EQ(t.host_node(), 80u);
  for (uint32_t pe = 0; pe < 80; ++pe) EXPECT_EQ(t.endpoint_node(pe), pe);
  // 3 ports per node: PE, ring, inter-group; the shuffle's fixed points 0 and 79 have no
  // useful inter-group link, except that node 0's carries the host: 0 -> host -> 0.
  for (uint32_t x = 0; x < 80; ++x) {
    const uint32_t expected = (x == 79) ? 1 : 2;
    EXPECT_EQ(t.out_degree(x), expected) << x;
  }
  EXPECT_EQ(t.out_degree(80), 1u);
  EXPECT_EQ(t.link(t.first_link(0) + 1).to, 80u);
  EXPECT_EQ(t.link(t.first_link(80)).to, 0u);
}

TEST(NetTopology, InterGroupLinksAreThePerfectShuffleOf16x5) {
  const Topology t(NetworkConfig{}, 80);
  std::set<uint32_t> targets;
  for (uint32_t x = 0; x < 80; ++x) {
    const uint32_t expected = (x % 16) * 5 + x / 16;  // x -> (x mod G)*k + floor(x / G)
    EXPECT_EQ(perfect_shuffle(x, t.omega()), expected);
    targets.insert(expected);
    // Port 0: the group ring; port 1: the shuffle link (through the host for node 0).
    const Link& ring = t.link(t.first_link(x));
    EXPECT_EQ(ring.kind, LinkKind::ring);
    EXPECT_EQ(ring.to, x / 5 * 5 + (x % 5 + 1) % 5);
    if (expected == x) continue;  // fixed point: no link but the host's at node 0
    const Link& shuffle = t.link(t.first_link(x) + 1);
    EXPECT_EQ(shuffle.kind, LinkKind::shuffle);
    EXPECT_EQ(shuffle.to, expected);
  }
  EXPECT_EQ(targets.size(), 80u);  // a permutation
  EXPECT_EQ(perfect_shuffle(17, t.omega()), 6u);
  EXPECT_EQ(perfect_shuffle(33, t.omega()), 7u);
}

TEST(NetTopology, HostLinkPicksTheLinkTheHostSitsOn) {
  NetworkConfig cfg;
  cfg.host_link = 17;  // 17 -> 6 becomes 17 -> host -> 6
  const Topology t(cfg, 80);
  const auto links = link_set(t);
  EXPECT_EQ(links.count({17, 80, LinkKind::host_in}), 1u);
  EXPECT_EQ(links.count({80, 6, LinkKind::host_out}), 1u);
  EXPECT_EQ(links.count({17, 6, LinkKind::shuffle}), 0u);
  EXPECT_EQ(links.count({0, 80, LinkKind::host_in}), 0u);  // 0's loop is not built now
}

TEST(NetTopology, PartlyFilledLastGroupKeepsSwitchOnlyNodes) {
  const Topology t(NetworkConfig{}, 83);  // 17 groups x 5 = 85 nodes, nodes 83 and 84 empty
  EXPECT_EQ(t.omega().groups, 17u);
  EXPECT_EQ(t.node_count(), 86u);
  EXPECT_EQ(t.host_node(), 85u);
  EXPECT_EQ(t.endpoint_count(), 84u);
}

TEST(NetTopology, SinglePeOmegaIsOneNodeAndTheHost) {
  const Topology t(NetworkConfig{}, 1);
  EXPECT_EQ(t.node_count(), 2u);
  EXPECT_EQ(link_set(t), (std::multiset<std::tuple<uint32_t, uint32_t, LinkKind>>{
                             {0, 1, LinkKind::host_in}, {1, 0, LinkKind::host_out}}));
}

TEST(NetTopology, RingHasTheHostAsNodeN) {
  const Topology t(with(TopologyKind::ring), 80);
  EXPECT_EQ(t.node_count(), 81u);
  EXPECT_EQ(t.host_node(), 80u);
  for (uint32_t x = 0; x < 81; ++x) {
    ASSERT_EQ(t.out_degree(x), 2u);
    EXPECT_EQ(t.link(t.first_link(x)).to, (x + 1) % 81);
    EXPECT_EQ(t.link(t.first_link(x) + 1).to, (x + 80) % 81);
  }
  NetworkConfig one_way = with(TopologyKind::ring);
  one_way.ring_bidirectional = false;
  EXPECT_EQ(Topology(one_way, 80).link_count(), 81u);
}

TEST(NetTopology, TorusIsWidthByHeightWithTheHostOnTheRow0WrapLink) {
  const Topology t(with(TopologyKind::torus2d), 80);  // 9 x 9, node 80 empty, host 81
  EXPECT_EQ(t.torus().width, 9u);
  EXPECT_EQ(t.torus().height, 9u);
  EXPECT_EQ(t.host_node(), 81u);
  const auto links = link_set(t);
  EXPECT_EQ(links.count({8, 81, LinkKind::host_in}), 1u);
  EXPECT_EQ(links.count({81, 0, LinkKind::host_out}), 1u);
  EXPECT_EQ(links.count({0, 81, LinkKind::host_in}), 1u);
  EXPECT_EQ(links.count({81, 8, LinkKind::host_out}), 1u);
  EXPECT_EQ(links.count({40, 41, LinkKind::east}), 1u);
  EXPECT_EQ(links.count({40, 49, LinkKind::south}), 1u);
  EXPECT_EQ(links.count({4, 76, LinkKind::north}), 1u);
  for (uint32_t x = 0; x < 81; ++x) EXPECT_EQ(t.out_degree(x), 4u) << x;
  EXPECT_EQ(t.out_degree(81), 2u);
}

// Buffer classes by dateline: one per directed ring of links (network/README.md).
TEST(NetTopology, RingAndTorusMarkOneDatelinePerDirectedRing) {
  const Topology ring(with(TopologyKind::ring), 80);
  EXPECT_EQ(ring.class_scheme(), ClassScheme::datelines);
  std::multiset<std::tuple<uint32_t, uint32_t, LinkKind>> datelines;
  for (const Link& l : ring.links())
    if (l.dateline) datelines.insert({l.from, l.to, l.kind});
  EXPECT_EQ(datelines, (std::multiset<std::tuple<uint32_t, uint32_t, LinkKind>>{
                           {80, 0, LinkKind::ring}, {0, 80, LinkKind::ring_back}}));

  const Topology torus(with(TopologyKind::torus2d), 80);  // 9 x 9, host 81
  EXPECT_EQ(torus.class_scheme(), ClassScheme::datelines);
  uint32_t count = 0;
  for (const Link& l : torus.links()) {
    const bool y = l.kind == LinkKind::south || l.kind == LinkKind::north;
    EXPECT_EQ(l.dimension, y ? 1 : 0);
    if (!l.dateline) continue;
    ++count;
    switch (l.kind) {  // the wrap-around links; row 0's runs through the host
      case LinkKind::east: EXPECT_EQ(l.from % 9, 8u); break;
      case LinkKind::west: EXPECT_EQ(l.from % 9, 0u); break;
      case LinkKind::south: EXPECT_EQ(l.from / 9, 8u); break;
      case LinkKind::north: EXPECT_EQ(l.from / 9, 0u); break;
      default: EXPECT_EQ(l.kind, LinkKind::host_out); break;
    }
  }
  EXPECT_EQ(count, 2u * 9 + 2u * 9);  // east and west per row, south and north per column
  EXPECT_EQ(Topology(NetworkConfig{}, 80).class_scheme(), ClassScheme::hops);
}

TEST(NetTopology, SingleSwitchAndCrossbarPutEveryEndpointOnOneNode) {
  for (TopologyKind kind : {TopologyKind::single_switch, TopologyKind::crossbar}) {
    const Topology t(with(kind), 80);
    EXPECT_EQ(t.node_count(), 1u);
    EXPECT_EQ(t.link_count(), 0u);
    for (uint32_t e = 0; e < 81; ++e) EXPECT_EQ(t.endpoint_node(e), 0u);
  }
}

}  // namespace
}  // namespace emx::net
