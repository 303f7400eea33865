// network.buffer_classes: "auto" keeps the per-topology scheme (hops for the circular
// omega, datelines for ring and torus2d), "hops" works on ring and torus2d too (one class
// per hop: acyclic dependency graph, all pairs delivered, saturation drains), "datelines"
// is rejected where there are no rings of links to cut.
#include <gtest/gtest.h>

#include <string>

#include "fabric_driver.h"
#include "network/channel_dependencies.h"

namespace emx::net {
namespace {

using test::Arrival;

NetworkConfig config(TopologyKind kind, BufferClasses classes) {
  NetworkConfig cfg;
  cfg.topology = kind;
  cfg.buffer_classes = classes;
  return cfg;
}

// Every endpoint sends `per_endpoint` packets to random endpoints as fast as its queue
// allows; all must arrive, once each.
std::vector<Arrival> saturate(const NetworkConfig& cfg, uint32_t pes, int per_endpoint) {
  Fabric f(cfg, pes);
  const uint32_t endpoints = pes + 1;
  std::vector<std::deque<Packet>> out(endpoints);
  uint64_t rng = 42;
  for (uint32_t e = 0; e < endpoints; ++e)
    for (int i = 0; i < per_endpoint; ++i) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      Packet p;
      p.dst = uint16_t((rng >> 33) % endpoints);
      out[e].push_back(p);
    }
  auto arrivals = test::run_traffic(f, out);
  EXPECT_EQ(arrivals.size(), size_t(endpoints) * per_endpoint);
  EXPECT_EQ(f.stats().delivered, size_t(endpoints) * per_endpoint);
  std::vector<int> seen(arrivals.size(), 0);
  for (const Arrival& a : arrivals) ++seen.at(a.packet.seq);
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_TRUE(f.idle());
  return arrivals;
}

class NetHopClasses : public testing::TestWithParam<std::tuple<TopologyKind, uint32_t>> {};

TEST_P(NetHopClasses, DependencyGraphIsAcyclic) {
  const auto [kind, pes] = GetParam();
  const Topology topo(config(kind, BufferClasses::hops), pes);
  EXPECT_EQ(topo.class_scheme(), ClassScheme::hops);
  const Routing routing(topo);
  EXPECT_EQ(routing.classes(), routing.diameter());
  EXPECT_TRUE(channel_dependencies(routing, true).acyclic);
  EXPECT_FALSE(channel_dependencies(routing, false).acyclic);
}

TEST_P(NetHopClasses, SaturatedTrafficDrains) {
  const auto [kind, pes] = GetParam();
  saturate(config(kind, BufferClasses::hops), pes, pes <= 80 ? 200 : 10);
}

INSTANTIATE_TEST_SUITE_P(
    RingAndTorus, NetHopClasses,
    testing::Combine(testing::Values(TopologyKind::ring, TopologyKind::torus2d),
                     testing::Values(16u, 80u, 1024u)),
    [](const auto& info) {
      return std::string(test::name_of(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param));
    });

// One packet for every (source, destination) pair, in one burst (16 and 80 PEs: the
// 1024-PE all-pairs burst is a quarter billion hops on the ring; the dependency graph
// covers all pairs there).
class NetHopClassesAllPairs : public NetHopClasses {};

TEST_P(NetHopClassesAllPairs, AllDelivered) {
  const auto [kind, pes] = GetParam();
  Fabric f(config(kind, BufferClasses::hops), pes);
  const uint32_t n = pes + 1;
  std::vector<std::deque<Packet>> out(n);
  for (uint32_t src = 0; src < n; ++src)
    for (uint32_t dst = 0; dst < n; ++dst) {
      Packet p;
      p.dst = uint16_t(dst);
      p.addr = src * n + dst;
      out[src].push_back(p);
    }
  const auto arrivals = test::run_traffic(f, out);
  std::vector<int> seen(size_t(n) * n, 0);
  for (const Arrival& a : arrivals) {
    ASSERT_EQ(a.packet.addr, a.packet.src * n + a.packet.dst);
    ++seen[a.packet.addr];
  }
  for (int k : seen) EXPECT_EQ(k, 1);
  EXPECT_TRUE(f.idle());
}

INSTANTIATE_TEST_SUITE_P(
    RingAndTorus, NetHopClassesAllPairs,
    testing::Combine(testing::Values(TopologyKind::ring, TopologyKind::torus2d),
                     testing::Values(16u, 80u)),
    [](const auto& info) {
      return std::string(test::name_of(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param));
    });

// "auto" is the behaviour from before the key: the same schemes and class counts.
TEST(NetBufferClasses, AutoKeepsThePerTopologyScheme) {
  EXPECT_EQ(NetworkConfig{}.buffer_classes, BufferClasses::automatic);
  struct Expect {
    TopologyKind kind;
    ClassScheme scheme;
    uint32_t classes;  // at 80 PEs
  };
  for (const Expect& e : {Expect{TopologyKind::circular_omega, ClassScheme::hops, 10},
                          Expect{TopologyKind::crossbar, ClassScheme::hops, 1},
                          Expect{TopologyKind::single_switch, ClassScheme::hops, 1},
                          Expect{TopologyKind::ring, ClassScheme::datelines, 2},
                          Expect{TopologyKind::torus2d, ClassScheme::datelines, 4}}) {
    const Topology topo(config(e.kind, BufferClasses::automatic), 80);
    EXPECT_EQ(topo.class_scheme(), e.scheme) << test::name_of(e.kind);
    const Routing routing(topo);
    EXPECT_EQ(routing.classes(), e.classes) << test::name_of(e.kind);
    if (e.scheme == ClassScheme::hops) {
      EXPECT_EQ(routing.classes(), std::max(1u, routing.diameter()));
    }
  }
  // 1024 PEs: circular omega = its diameter, 15; ring 2, torus 4.
  EXPECT_EQ(Routing(Topology(config(TopologyKind::circular_omega, BufferClasses::automatic), 1024))
                .classes(),
            15u);
  EXPECT_EQ(Routing(Topology(config(TopologyKind::ring, BufferClasses::automatic), 1024)).classes(),
            2u);
  EXPECT_EQ(
      Routing(Topology(config(TopologyKind::torus2d, BufferClasses::automatic), 1024)).classes(),
      4u);
}

// Naming the default scheme explicitly changes nothing, down to every arrival clock.
TEST(NetBufferClasses, ExplicitDefaultSchemeGivesIdenticalTraffic) {
  for (const auto& [kind, scheme] :
       {std::pair{TopologyKind::circular_omega, BufferClasses::hops},
        std::pair{TopologyKind::ring, BufferClasses::datelines},
        std::pair{TopologyKind::torus2d, BufferClasses::datelines}}) {
    const auto automatic = saturate(config(kind, BufferClasses::automatic), 80, 50);
    const auto named = saturate(config(kind, scheme), 80, 50);
    EXPECT_TRUE(automatic == named) << test::name_of(kind);
  }
}

// Hop classes hold more packets per port: a saturated 80-PE ring delivers the same
// packets sooner than with datelines (network/README.md, "Deadlock freedom").
TEST(NetBufferClasses, HopClassesDrainASaturatedRingSooner) {
  const auto hops = saturate(config(TopologyKind::ring, BufferClasses::hops), 80, 200);
  const auto datelines = saturate(config(TopologyKind::ring, BufferClasses::datelines), 80, 200);
  EXPECT_LT(hops.back().time, datelines.back().time);
}

TEST(NetBufferClasses, DatelinesNeedARingOrATorus) {
  for (TopologyKind kind :
       {TopologyKind::circular_omega, TopologyKind::crossbar, TopologyKind::single_switch}) {
    const NetworkConfig cfg = config(kind, BufferClasses::datelines);
    std::string message = "no error";
    try {
      cfg.validate(80);
    } catch (const config::ConfigError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("config key 'network.buffer_classes'"), std::string::npos) << message;
    EXPECT_NE(message.find("\"datelines\""), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("\"") + test::name_of(kind) + "\""), std::string::npos)
        << message;
    EXPECT_THROW(Topology(cfg, 80), config::ConfigError);
  }
  for (TopologyKind kind : {TopologyKind::ring, TopologyKind::torus2d})
    EXPECT_NO_THROW(config(kind, BufferClasses::datelines).validate(80));
  for (TopologyKind kind : test::kAllTopologies)
    EXPECT_NO_THROW(config(kind, BufferClasses::hops).validate(80));
}

TEST(NetBufferClasses, ReadsTheKeyFromJson) {
  auto read = [](const nlohmann::json& j) {
    NetworkConfig cfg;
    config::Reader r(j, "network");
    cfg.visit(r);
    r.finish();
    return cfg;
  };
  EXPECT_EQ(read({{"buffer_classes", "auto"}}).buffer_classes, BufferClasses::automatic);
  EXPECT_EQ(read({{"buffer_classes", "hops"}}).buffer_classes, BufferClasses::hops);
  EXPECT_EQ(read({{"buffer_classes", "datelines"}}).buffer_classes, BufferClasses::datelines);
  std::string message;
  try {
    read({{"buffer_classes", "virtual"}});
  } catch (const config::ConfigError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("config key 'network.buffer_classes': must be one of: auto, hops, "
                         "datelines"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace emx::net
