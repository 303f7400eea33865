// NetworkConfig: keys, defaults, JSON reading, shape derivation and validation.
#include <gtest/gtest.h>

#include "network/network_config.h"
#include "network/routing.h"

namespace emx::net {
namespace {

NetworkConfig read(const nlohmann::json& j) {
  NetworkConfig cfg;
  config::Reader r(j, "network");
  cfg.visit(r);
  r.finish();
  return cfg;
}

TEST(NetConfig, DefaultsAreTheDocumentedOnes) {
  const NetworkConfig cfg;
  EXPECT_EQ(cfg.topology, TopologyKind::circular_omega);
  EXPECT_EQ(cfg.switching, Switching::store_and_forward);
  EXPECT_EQ(cfg.clocks_per_word, 1u);
  EXPECT_EQ(cfg.link_clocks(), 2u);
  EXPECT_EQ(cfg.routing_clocks, 1u);
  EXPECT_EQ(cfg.buffer_packets, 2u);
  EXPECT_EQ(cfg.buffer_classes, BufferClasses::automatic);
  EXPECT_EQ(cfg.injection_queue_packets, 4u);
  EXPECT_EQ(cfg.crossbar_latency, 4u);
  EXPECT_EQ(cfg.host_link, 0u);
  EXPECT_TRUE(cfg.ring_bidirectional);
}

TEST(NetConfig, ReadsEveryKeyAndWritesItBack) {
  const nlohmann::json j = {{"topology", "torus2d"},
                            {"groups", 8},
                            {"group_size", 10},
                            {"host_link", 3},
                            {"torus_width", 7},
                            {"ring_bidirectional", false},
                            {"switching", "cut_through"},
                            {"clocks_per_word", 2},
                            {"routing_clocks", 3},
                            {"buffer_packets", 5},
                            {"buffer_classes", "datelines"},
                            {"injection_queue_packets", 6},
                            {"crossbar_latency", 9}};
  NetworkConfig cfg = read(j);
  EXPECT_EQ(cfg.topology, TopologyKind::torus2d);
  EXPECT_EQ(cfg.switching, Switching::cut_through);
  EXPECT_EQ(cfg.link_clocks(), 4u);
  config::Writer w;
  cfg.visit(w);
  EXPECT_EQ(w.out, j);
}

TEST(NetConfig, DocumentsEveryKey) {
  NetworkConfig cfg;
  config::Documenter d("network");
  cfg.visit(d);
  EXPECT_EQ(d.rows.size(), 13u);
  for (const auto& row : d.rows) EXPECT_FALSE(row.doc.empty()) << row.key;
}

TEST(NetConfig, RejectsBadValuesWithTheKeyName) {
  auto message = [](const nlohmann::json& j) {
    try {
      read(j);
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"topology", "hypercube"}}).find("network.topology"), std::string::npos);
  EXPECT_NE(message({{"routing_clocks", 0}}).find("network.routing_clocks"), std::string::npos);
  EXPECT_NE(message({{"buffer_packets", 0}}).find("must be in [1, 255]"), std::string::npos);
  EXPECT_NE(message({{"words_per_packet", 3}}).find("unknown key"), std::string::npos);
}

TEST(NetConfig, DerivesTheOmegaShape) {
  NetworkConfig cfg;
  EXPECT_EQ(cfg.omega_shape(80).groups, 16u);  // EM-X: 16 boards of 5
  EXPECT_EQ(cfg.omega_shape(80).group_size, 5u);
  EXPECT_EQ(cfg.omega_shape(1024).groups, 205u);
  EXPECT_EQ(cfg.omega_shape(3).groups, 1u);
  EXPECT_EQ(cfg.omega_shape(3).group_size, 3u);
  cfg.groups = 8;
  EXPECT_EQ(cfg.omega_shape(80).group_size, 10u);
  EXPECT_EQ(cfg.omega_shape(3).group_size, 2u);  // at least 2 nodes per group
  cfg.groups = 0;
  cfg.group_size = 4;
  EXPECT_EQ(cfg.omega_shape(81).groups, 21u);
}

TEST(NetConfig, DerivedShapesAreValidForEveryPeCount) {
  NetworkConfig cfg;
  for (uint32_t n = 1; n <= kMaxPes; ++n) {
    const OmegaShape o = cfg.omega_shape(n);
    EXPECT_GE(o.groups * o.group_size, n);
    EXPECT_LT(o.groups * o.group_size, n + 5) << n;  // at most a partly filled last board
    const TorusShape t = cfg.torus_shape(n);
    EXPECT_GE(t.width * t.height, n);
    EXPECT_LT(t.width * t.height, n + t.width);
  }
}

TEST(NetConfig, ValidatesTheShapeAgainstThePeCount) {
  NetworkConfig cfg;
  cfg.groups = 4;
  cfg.group_size = 5;
  EXPECT_THROW(cfg.validate(80), config::ConfigError);  // 20 nodes for 80 PEs
  cfg.groups = 80;
  cfg.group_size = 1;
  EXPECT_THROW(cfg.validate(80), config::ConfigError);  // groups cut off from each other
  cfg.groups = 16;
  cfg.group_size = 5;
  cfg.host_link = 80;
  EXPECT_THROW(cfg.validate(80), config::ConfigError);  // no node 80
  cfg.host_link = 79;
  EXPECT_NO_THROW(cfg.validate(80));
  EXPECT_THROW(cfg.validate(0), config::ConfigError);
  EXPECT_THROW(cfg.validate(1025), config::ConfigError);
  try {
    cfg.host_link = 0;
    cfg.groups = 4;
    cfg.validate(80);
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "network config: groups (4) x group_size (5) = 20 nodes cannot hold 80 PEs");
  }
}

// Every PE count builds a connected network for the tricky sizes: 1, primes, one more
// than a multiple of the board size, the maximum.
TEST(NetConfig, OddPeCountsBuildConnectedNetworks) {
  for (TopologyKind kind : {TopologyKind::circular_omega, TopologyKind::ring,
                            TopologyKind::torus2d, TopologyKind::single_switch}) {
    NetworkConfig cfg;
    cfg.topology = kind;
    for (uint32_t n :
         {1u, 2u, 3u, 4u, 5u, 6u, 7u, 11u, 13u, 31u, 79u, 81u, 97u, 127u, 509u, 1021u}) {
      SCOPED_TRACE(testing::Message() << "topology " << int(kind) << ", " << n << " PEs");
      Topology topo(cfg, n);
      Routing routing(topo);  // throws if some endpoint cannot reach another
      for (uint32_t pe = 0; pe < n; ++pe) {
        EXPECT_LE(routing.hops(pe, n), routing.diameter());
        EXPECT_LE(routing.hops(n, pe), routing.diameter());
      }
    }
  }
}

}  // namespace
}  // namespace emx::net
