// Timing engine under traffic: all pairs delivered once, saturation without deadlock,
// determinism, the host endpoint.
#include <gtest/gtest.h>

#include <map>

#include "fabric_driver.h"

namespace emx::net {
namespace {

using test::Arrival;

class NetFabricLoad : public testing::TestWithParam<TopologyKind> {};

// Every (source, destination) pair, host included, in one burst: each packet arrives
// exactly once, and the links crossed add up to the BFS distances.
TEST_P(NetFabricLoad, AllPairsDeliveredExactlyOnce) {
  Fabric f(test::config_for(GetParam()), 80);
  const auto dist = test::all_distances(f.topology());
  std::vector<std::deque<Packet>> out(81);
  uint64_t expected_hops = 0;
  for (uint32_t src = 0; src < 81; ++src)
    for (uint32_t dst = 0; dst < 81; ++dst) {
      Packet p;
      p.dst = uint16_t(dst);
      p.addr = src * 81 + dst;
      out[src].push_back(p);
      expected_hops += dist[f.topology().endpoint_node(src)][f.topology().endpoint_node(dst)];
    }
  const auto arrivals = test::run_traffic(f, out);
  std::vector<int> seen(81 * 81, 0);
  for (const Arrival& a : arrivals) {
    ASSERT_EQ(a.packet.addr, a.packet.src * 81u + a.packet.dst);
    ++seen[a.packet.addr];
    EXPECT_GE(a.time - a.packet.injected_at, f.idle_latency(a.packet.src, a.packet.dst));
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_EQ(f.stats().delivered, 81u * 81);
  if (GetParam() != TopologyKind::crossbar) {
    EXPECT_EQ(f.stats().hops_sum, expected_hops);
  }
  EXPECT_TRUE(f.idle());
  EXPECT_EQ(f.next_event_time(), UINT64_MAX);
}

// hops_sum counts the links crossed by delivered packets only, also while others are on
// the way (with packed routes it is derived from the links' transfers and the routes
// the packets in flight have used, not counted per delivery).
TEST_P(NetFabricLoad, HopsOfDeliveredPacketsWhileOthersAreInFlight) {
  if (GetParam() == TopologyKind::crossbar) GTEST_SKIP() << "no links";
  Fabric f(test::config_for(GetParam()), 80);
  const auto dist = test::all_distances(f.topology());
  uint64_t delivered_hops = 0, delivered = 0;
  f.set_delivery([&](const Packet& p, uint64_t) {
    delivered_hops += dist[f.topology().endpoint_node(p.src)][f.topology().endpoint_node(p.dst)];
    ++delivered;
  });
  for (uint32_t src = 0; src < 80; ++src) {
    Packet p;
    p.src = uint16_t(src);
    p.dst = uint16_t(src % 4);  // (hot spots: the deliveries spread over many clocks)
    f.inject(p, 0);
  }
  bool checked_mid_flight = false;
  for (uint64_t t = 1; !f.idle(); ++t) {
    f.advance_to(t);
    EXPECT_EQ(f.stats().hops_sum, delivered_hops) << "clock " << t;
    checked_mid_flight |= delivered != 0 && !f.idle();
  }
  EXPECT_TRUE(checked_mid_flight);
  EXPECT_EQ(delivered, 80u);
}

// Each packet alone on the idle network: latency = the formula with the BFS distance,
// so each individual packet took a shortest path.
TEST_P(NetFabricLoad, AllPairsAloneTakeTheIdleLatency) {
  Fabric f(test::config_for(GetParam()), 80);
  const auto dist = test::all_distances(f.topology());
  const NetworkConfig& cfg = f.config();
  const uint64_t per_switch = cfg.routing_clocks + cfg.link_clocks();
  uint64_t arrival = 0;
  f.set_delivery([&](const Packet&, uint64_t t) { arrival = t; });
  uint64_t t = 0;
  for (uint32_t src = 0; src < 81; ++src)
    for (uint32_t dst = 0; dst < 81; ++dst) {
      Packet p;
      p.src = uint16_t(src);
      p.dst = uint16_t(dst);
      f.inject(p, t);
      while (!f.idle()) f.advance_to(f.next_event_time() + 1);
      const uint64_t hops = dist[f.topology().endpoint_node(src)][f.topology().endpoint_node(dst)];
      const uint64_t expected =
          GetParam() == TopologyKind::crossbar ? cfg.crossbar_latency : (hops + 1) * per_switch;
      ASSERT_EQ(arrival - t, expected) << src << " -> " << dst;
      t = f.now() + 1;
    }
}

INSTANTIATE_TEST_SUITE_P(Topologies, NetFabricLoad, testing::ValuesIn(test::kAllTopologies),
                         [](const auto& info) { return std::string(test::name_of(info.param)); });

// Random traffic, fixed seed: every endpoint (host included) sends `per_endpoint` packets
// to random endpoints as fast as its injection queue allows.
std::vector<Arrival> saturate(const NetworkConfig& cfg, uint32_t pes, int per_endpoint,
                              uint64_t seed) {
  Fabric f(cfg, pes);
  const uint32_t endpoints = pes + 1;
  std::vector<std::deque<Packet>> out(endpoints);
  uint64_t rng = seed;
  for (uint32_t e = 0; e < endpoints; ++e)
    for (int i = 0; i < per_endpoint; ++i) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      Packet p;
      p.dst = uint16_t((rng >> 33) % endpoints);
      p.data = uint32_t(rng);
      out[e].push_back(p);
    }
  auto arrivals = test::run_traffic(f, out);
  EXPECT_EQ(arrivals.size(), size_t(endpoints) * per_endpoint);
  EXPECT_EQ(f.stats().delivered, size_t(endpoints) * per_endpoint);
  EXPECT_TRUE(f.idle());
  // Delivered once each, FIFO per (source, destination).
  std::vector<int> seen(arrivals.size(), 0);
  std::map<std::pair<int, int>, uint64_t> last;
  for (const Arrival& a : arrivals) {
    ++seen.at(a.packet.seq);
    const auto key = std::make_pair(int(a.packet.src), int(a.packet.dst));
    auto it = last.find(key);
    if (it != last.end()) {
      EXPECT_GT(a.packet.seq, it->second);
    }
    last[key] = a.packet.seq;
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  return arrivals;
}

class NetFabricSaturation
    : public testing::TestWithParam<std::tuple<TopologyKind, uint32_t>> {};

TEST_P(NetFabricSaturation, AllDeliveredAndDeterministic) {
  const auto [kind, pes] = GetParam();
  const int per_endpoint = pes <= 80 ? 200 : 20;
  NetworkConfig cfg = test::config_for(kind);
  const auto first = saturate(cfg, pes, per_endpoint, 42);
  const auto second = saturate(cfg, pes, per_endpoint, 42);
  EXPECT_TRUE(first == second) << "two runs differ";
}

INSTANTIATE_TEST_SUITE_P(
    Topologies, NetFabricSaturation,
    testing::Combine(testing::ValuesIn(test::kAllTopologies), testing::Values(80u, 1024u)),
    [](const auto& info) {
      return std::string(test::name_of(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param));
    });

// The smallest buffers, cut-through, slow links: the classes still prevent deadlock.
TEST(NetFabricSaturationTight, OneSlotBuffersCutThrough) {
  NetworkConfig cfg;
  cfg.buffer_packets = 1;
  cfg.injection_queue_packets = 1;
  cfg.switching = Switching::cut_through;
  cfg.clocks_per_word = 2;
  saturate(cfg, 80, 300, 7);
  cfg.topology = TopologyKind::torus2d;
  saturate(cfg, 80, 300, 7);
  cfg.topology = TopologyKind::ring;
  cfg.ring_bidirectional = false;
  saturate(cfg, 80, 100, 7);
}

// earliest_slot_free stays a lower bound under saturation while the others keep sending:
// half the packets go to PE 0 (a long queue at its ejection port, counted by the bound),
// the rest anywhere (chains of full buffers ahead, followed by the bound on the ring and
// the torus). A sender that finds its injection queue full asks for the bound and must
// not find room before it; the bound must also often be well beyond the next event.
class NetFabricRetry : public testing::TestWithParam<TopologyKind> {};

TEST_P(NetFabricRetry, EarliestSlotFreeIsALowerBoundUnderSaturation) {
  Fabric f(test::config_for(GetParam()), 80);
  f.set_delivery([](const Packet&, uint64_t) {});
  std::vector<uint64_t> retry(81, 0);
  uint64_t rng = 99, refused = 0, far = 0;
  for (uint64_t t = 0; t < 4000; ++t) {
    f.advance_to(t);
    for (uint16_t e = 0; e <= 80; ++e) {
      if (f.can_inject(e, t)) {
        ASSERT_GE(t, retry[e]) << "endpoint " << e << " has room before its bound";
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        Packet p;
        p.src = e;
        p.dst = uint16_t((rng >> 40) % 2 ? 0 : (rng >> 33) % 81);
        f.inject(p, t);
      } else if (t >= retry[e]) {
        retry[e] = f.earliest_slot_free(e, t);
        ASSERT_GT(retry[e], t);
        ++refused;
        far += retry[e] > f.next_event_time() + 2 * f.config().link_clocks();
      }
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(far, refused / 10);
}

INSTANTIATE_TEST_SUITE_P(Topologies, NetFabricRetry,
                         testing::Values(TopologyKind::circular_omega, TopologyKind::single_switch,
                                         TopologyKind::ring, TopologyKind::torus2d),
                         [](const auto& info) { return std::string(test::name_of(info.param)); });

TEST(NetFabricHost, ReachesEveryPeAndEveryPeReachesIt) {
  for (TopologyKind kind : test::kAllTopologies) {
    Fabric f(test::config_for(kind), 80);
    std::vector<std::deque<Packet>> out(81);
    for (uint16_t pe = 0; pe < 80; ++pe) {
      Packet p;
      p.dst = pe;
      out[80].push_back(p);  // host -> PE
      p.dst = 80;
      out[pe].push_back(p);  // PE -> host
    }
    const auto arrivals = test::run_traffic(f, out);
    std::vector<int> to_pe(80, 0), from_pe(80, 0);
    for (const Arrival& a : arrivals) {
      if (a.packet.src == 80) ++to_pe.at(a.packet.dst);
      if (a.packet.dst == 80) ++from_pe.at(a.packet.src);
    }
    for (int pe = 0; pe < 80; ++pe) {
      EXPECT_EQ(to_pe[pe], 1) << test::name_of(kind) << " host -> " << pe;
      EXPECT_EQ(from_pe[pe], 1) << test::name_of(kind) << " " << pe << " -> host";
    }
  }
}

}  // namespace
}  // namespace emx::net
