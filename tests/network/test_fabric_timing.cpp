// Timing engine, exact clocks: idle latency formulas, serialization on a shared link,
// FIFO order, back-pressure, out-of-order injection times.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fabric_driver.h"

namespace emx::net {
namespace {

using test::Arrival;

// Sends one packet on an idle fabric and returns its arrival clock.
uint64_t lone_packet(Fabric& f, uint32_t src, uint32_t dst, uint64_t t) {
  uint64_t arrival = UINT64_MAX;
  f.set_delivery([&](const Packet&, uint64_t at) { arrival = at; });
  Packet p;
  p.src = uint16_t(src);
  p.dst = uint16_t(dst);
  f.advance_to(t);
  EXPECT_TRUE(f.can_inject(src, t));
  f.inject(p, t);
  while (!f.idle()) f.advance_to(f.next_event_time() + 1);
  return arrival;
}

TEST(NetFabricTiming, IdleLatencyStoreAndForward) {
  NetworkConfig cfg;
  Fabric f(cfg, 80);
  const uint64_t link = 2, routing = 1;  // defaults: 2 words x 1 clock, 1 routing clock
  uint64_t t = 100;
  for (uint32_t src : {0u, 7u, 79u, 80u})
    for (uint32_t dst : {0u, 3u, 42u, 79u, 80u}) {
      const uint64_t hops = f.routing().hops(src, dst);
      // Each switch on the way (hops + 1 of them) routes, then moves the whole packet.
      const uint64_t expected = (hops + 1) * (routing + link);
      EXPECT_EQ(lone_packet(f, src, dst, t) - t, expected) << src << " -> " << dst;
      EXPECT_EQ(f.idle_latency(src, dst), expected);
      t += 1000;
    }
}

TEST(NetFabricTiming, IdleLatencyCutThroughAndSlowLinks) {
  NetworkConfig cfg;
  cfg.switching = Switching::cut_through;
  cfg.clocks_per_word = 3;
  cfg.routing_clocks = 2;
  Fabric f(cfg, 80);
  uint64_t t = 10;
  for (uint32_t dst : {0u, 1u, 42u, 80u}) {
    const uint64_t hops = f.routing().hops(5, dst);
    // The head word moves on after one word time; the last switch delivers whole packets.
    const uint64_t expected = hops * (2 + 3) + 2 + 6;
    EXPECT_EQ(lone_packet(f, 5, dst, t) - t, expected) << dst;
    EXPECT_EQ(f.idle_latency(5, dst), expected);
    t += 1000;
  }
}

TEST(NetFabricTiming, IdleLatencyOfEveryTopology) {
  for (TopologyKind kind : test::kAllTopologies) {
    Fabric f(test::config_for(kind), 80);
    const uint64_t hops = f.routing().hops(3, 77);
    const uint64_t expected = kind == TopologyKind::crossbar ? 4 : (hops + 1) * 3;
    EXPECT_EQ(lone_packet(f, 3, 77, 0), expected) << test::name_of(kind);
  }
}

// A one-way ring 0 -> 1 -> 2 -> 3: packet A (0 -> 2) and packet B (1 -> 3) both need link
// 1 -> 2 and are ready for it at the same clock. B (the injection queue, lower queue id)
// wins and arrives as if alone; A is one transfer (2 clocks) later than if alone. They
// share no ejection port.
TEST(NetFabricTiming, TwoPacketsOnOneLinkAreSerialized) {
  NetworkConfig cfg;
  cfg.topology = TopologyKind::ring;
  cfg.ring_bidirectional = false;
  Fabric f(cfg, 8);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  Packet a, b;
  a.src = 0, a.dst = 2, a.seq = 1;
  b.src = 1, b.dst = 3, b.seq = 2;
  f.inject(a, 0);  // at node 1 from clock 0 + 3 (routed, moved), ready at 4
  f.inject(b, 3);  // ready at 3 + 1 = 4
  while (!f.idle()) f.advance_to(f.next_event_time() + 1);
  ASSERT_EQ(arrivals.size(), 2u);
  const Arrival& first_a = arrivals[0].packet.seq == 1 ? arrivals[0] : arrivals[1];
  const Arrival& then_b = arrivals[0].packet.seq == 1 ? arrivals[1] : arrivals[0];
  EXPECT_EQ(then_b.time, 3 + f.idle_latency(1, 3));  // 3 + (2 + 1) x 3 = 12
  EXPECT_EQ(first_a.time, 0 + f.idle_latency(0, 2) + 2);  // 9 + 2 = 11
  EXPECT_EQ(f.idle_latency(0, 2), 9u);
  EXPECT_EQ(f.stats().links[f.topology().first_link(1)].packets, 2u);
  EXPECT_EQ(f.stats().links[f.topology().first_link(1)].busy_clocks, 4u);
}

TEST(NetFabricTiming, CrossbarContendsOnlyAtTheEjectionPort) {
  Fabric f(test::config_for(TopologyKind::crossbar), 80);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  Packet p;
  p.dst = 9;
  for (uint16_t src : {1, 2, 3}) {
    p.src = src;
    f.inject(p, 10);
  }
  p.src = 4;
  p.dst = 5;
  f.inject(p, 10);
  // The same source sending back to back is not limited: ideal network.
  EXPECT_TRUE(f.can_inject(4, 10));
  f.advance_to(100);
  ASSERT_EQ(arrivals.size(), 4u);
  EXPECT_EQ(arrivals[0].time, 14u);  // 9: 14, 16, 18; 5: 14
  EXPECT_EQ(arrivals[1].time, 14u);
  EXPECT_EQ(arrivals[1].packet.dst, 5u);
  EXPECT_EQ(arrivals[2].time, 16u);
  EXPECT_EQ(arrivals[3].time, 18u);
  EXPECT_EQ(f.stats().ejection[9].busy_clocks, 6u);
}

TEST(NetFabricTiming, SingleSwitchSerializesEachInputAndEachOutput) {
  Fabric f(test::config_for(TopologyKind::single_switch), 80);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  Packet p;
  p.src = 1, p.dst = 9, p.seq = 0;
  f.inject(p, 0);
  p.src = 2, p.dst = 9, p.seq = 1;  // same output: waits one transfer
  f.inject(p, 0);
  p.src = 1, p.dst = 7, p.seq = 2;  // same input, behind seq 0
  f.inject(p, 0);
  f.advance_to(100);
  ASSERT_EQ(arrivals.size(), 3u);
  EXPECT_EQ(arrivals[0].time, 3u);
  EXPECT_EQ(arrivals[1].time, 5u);
  EXPECT_EQ(arrivals[2].time, 5u);
  EXPECT_EQ(arrivals[1].packet.seq + arrivals[2].packet.seq, 3u);
}

TEST(NetFabricTiming, FifoBetweenOneSourceAndOneDestinationUnderLoad) {
  Fabric f(NetworkConfig{}, 80);
  std::vector<std::deque<Packet>> out(81);
  uint64_t rng = 12345;
  for (uint32_t e = 0; e < 81; ++e)
    for (int i = 0; i < 40; ++i) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      Packet p;
      p.dst = uint16_t(e == 0 ? 79 : (rng >> 33) % 81);  // 0 streams to 79, others random
      p.addr = uint32_t(i);
      out[e].push_back(p);
    }
  const auto arrivals = test::run_traffic(f, out);
  ASSERT_EQ(arrivals.size(), 81u * 40);
  // For every (src, dst), arrival order = send order.
  std::map<std::pair<int, int>, uint64_t> last_seq;
  for (const Arrival& a : arrivals) {
    const auto key = std::make_pair(int(a.packet.src), int(a.packet.dst));
    auto it = last_seq.find(key);
    if (it != last_seq.end()) {
      EXPECT_GT(a.packet.seq, it->second);
    }
    last_seq[key] = a.packet.seq;
  }
}

// Everyone sends to PE 0: the link into node 0 and its ejection port (one packet per 2
// clocks) are the bottleneck, the queues back up to the senders, whose injection queues
// fill; can_inject turns false, and earliest_slot_free is a lower bound of the retry.
TEST(NetFabricTiming, BackPressureReachesTheInjectionQueue) {
  NetworkConfig cfg;
  cfg.injection_queue_packets = 2;
  Fabric f(cfg, 80);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  Packet p;
  p.dst = 0;
  uint64_t refused = 0, sent = 0;
  for (uint64_t t = 0; t < 400; ++t) {
    f.advance_to(t);
    for (uint16_t src = 1; src <= 80; ++src) {
      if (!f.can_inject(src, t)) {
        ++refused;
        const uint64_t retry = f.earliest_slot_free(src, t);
        EXPECT_GT(retry, t);
        continue;
      }
      p.src = src;
      p.seq = sent++;
      f.inject(p, t);
    }
  }
  EXPECT_GT(refused, 0u);
  // earliest_slot_free and injection_room_bound are lower bounds: no slot frees before.
  for (uint16_t src = 1; src <= 80; ++src) {
    const uint64_t t = f.now();
    if (f.can_inject(src, t)) continue;
    const uint64_t retry = f.earliest_slot_free(src, t);
    const uint64_t bound = f.injection_room_bound(src);
    EXPECT_GT(bound, t) << src;
    for (uint64_t u = t; u < std::max(retry, bound); ++u) {
      f.advance_to(u);
      EXPECT_FALSE(f.can_inject(src, u)) << src << " at " << u << ", retry " << retry
                                         << ", bound " << bound;
    }
  }
  while (!f.idle()) f.advance_to(f.next_event_time() + 1);
  EXPECT_EQ(arrivals.size(), sent);
  // Once saturated, the ejection port delivers exactly every 2 clocks.
  for (size_t i = 100; i < arrivals.size(); ++i)
    EXPECT_EQ(arrivals[i].time - arrivals[i - 1].time, 2u);
  EXPECT_EQ(f.stats().ejection[0].packets, sent);
}

TEST(NetFabricTiming, AFullInjectionQueueRefusesAndFreesAfterATransfer) {
  NetworkConfig cfg;
  cfg.injection_queue_packets = 3;
  Fabric f(cfg, 80);
  Packet p;
  p.src = 5, p.dst = 60;
  for (int i = 0; i < 3; ++i) f.inject(p, 0);
  EXPECT_FALSE(f.can_inject(5, 0));
  EXPECT_THROW(f.inject(p, 0), std::logic_error);
  // The head is routed at 1 and leaves 2 clocks later.
  EXPECT_EQ(f.earliest_slot_free(5, 0), 3u);  // lower bound: next event (1) + a transfer
  EXPECT_EQ(f.injection_room_bound(5), 2u);   // a transfer starting at now() (0) at the earliest
  f.advance_to(1);
  EXPECT_EQ(f.injection_room_bound(5), 3u);   // the head did not leave at 0
  f.advance_to(2);
  EXPECT_EQ(f.earliest_slot_free(5, 2), 3u);  // exact: the transfer ends at 3
  EXPECT_EQ(f.injection_room_bound(5), 3u);   // it left at 1: its end
  EXPECT_FALSE(f.can_inject(5, 2));
  EXPECT_TRUE(f.can_inject(5, 3));  // the slot whose transfer ends at 3 counts as free at 3
  f.inject(p, 3);
  f.advance_to(4);
  EXPECT_FALSE(f.can_inject(5, 4));
  EXPECT_EQ(f.stats().injected, 4u);
}

// Temporally decoupled PEs inject ahead of the network's clock and out of global order.
TEST(NetFabricTiming, InjectionsMayComeOutOfGlobalTimeOrder) {
  Fabric f(NetworkConfig{}, 80);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  Packet p;
  p.src = 1, p.dst = 2, p.seq = 1;
  f.inject(p, 5000);  // far beyond the event wheel
  p.src = 3, p.dst = 4, p.seq = 2;
  f.inject(p, 10);
  f.advance_to(20);
  EXPECT_EQ(arrivals.size(), 1u);
  EXPECT_THROW(f.inject(p, 5), std::logic_error);  // 5 + routing 1 < clock 20
  f.advance_to(10000);
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_EQ(arrivals[1].time, 5000 + f.idle_latency(1, 2));
}

TEST(NetFabricTiming, CallbacksMayInjectReplies) {
  Fabric f(NetworkConfig{}, 80);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) {
    arrivals.push_back({p, t});
    if (p.dst == 40) {  // PE 40 answers at once, as a SYSRD would
      Packet reply = p;
      reply.src = 40;
      reply.dst = p.src;
      f.inject(reply, t);
    }
  });
  Packet p;
  p.src = 7, p.dst = 40;
  f.inject(p, 0);
  while (!f.idle()) f.advance_to(f.next_event_time() + 1);
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_EQ(arrivals[1].time, f.idle_latency(7, 40) + f.idle_latency(40, 7));
}

TEST(NetFabricTiming, StatisticsAddUp) {
  Fabric f(NetworkConfig{}, 80);
  uint64_t expected_hops = 0, expected_latency = 0;
  for (uint32_t dst = 0; dst <= 80; ++dst) {
    expected_hops += f.routing().hops(11, dst);
    expected_latency += f.idle_latency(11, dst);
    lone_packet(f, 11, dst, 1000 * (dst + 1));
  }
  const FabricStats& s = f.stats();
  EXPECT_EQ(s.delivered, 81u);
  EXPECT_EQ(s.hops_sum, expected_hops);
  EXPECT_EQ(s.latency_sum, expected_latency);
  uint64_t link_packets = 0;
  for (const PortStats& l : s.links) {
    link_packets += l.packets;
    EXPECT_EQ(l.busy_clocks, 2 * l.packets);
  }
  EXPECT_EQ(link_packets, expected_hops);
  const nlohmann::json j = to_json(s, f.topology(), f.now());
  EXPECT_EQ(j["delivered"], 81);
  EXPECT_EQ(j["links"].size(), f.topology().link_count());
  EXPECT_EQ(j["links"][0]["kind"], "ring");
}


TEST(NetFabricTiming, AWatchedInjectionQueueIsReportedOnceWhenItsHeadStartsLeaving) {
  NetworkConfig cfg;
  cfg.injection_queue_packets = 2;
  Fabric f(cfg, 80);
  Packet p;
  p.dst = 60;
  for (const uint16_t src : {7, 5, 9}) {  // 7's head asks for its output first
    p.src = src;
    f.inject(p, 0);
    f.inject(p, 0);
    EXPECT_FALSE(f.can_inject(src, 0));
  }
  f.watch_injection(5);
  f.watch_injection(7);  // 9 is not watched
  std::vector<uint32_t> started;
  const auto take = [&] { f.take_injection_starts([&](uint32_t e) { started.push_back(e); }); };
  f.advance_to(1);  // the heads are routed at 1: none has left yet
  take();
  EXPECT_TRUE(started.empty());
  EXPECT_EQ(f.injection_room_from(5), UINT64_MAX);
  f.advance_to(2);  // granted at 1, in the order they asked
  take();
  EXPECT_EQ(started, (std::vector<uint32_t>{7, 5}));
  EXPECT_EQ(f.injection_room_from(5), 3u);  // their transfers end at 3
  EXPECT_EQ(f.injection_room_from(7), 3u);
  started.clear();
  f.advance_to(10);  // the second packets leave too, unwatched now
  take();
  EXPECT_TRUE(started.empty());
  while (!f.idle()) f.advance_to(f.next_event_time() + 1);
  EXPECT_EQ(f.stats().delivered, 6u);
}

// The arrival hint (Fabric::set_arrival_hint, for the host's caches) is handed a packet
// whose transfer into its endpoint is under way, one ejection late: each at most once,
// before its delivery, nearly all of them in a busy network. And it changes nothing: the
// same packets arrive at the same clocks in the same order as without it.
TEST(NetFabricTiming, AnArrivalHintSeesPacketsBeforeTheirDeliveryAndChangesNoDelivery) {
  NetworkConfig cfg;
  using Delivered = std::vector<std::pair<uint32_t, uint64_t>>;  // (addr, clock)
  struct Seen {
    std::vector<uint32_t> hinted;
    std::vector<bool> delivered;
    bool late = false;  // a packet hinted after its delivery
  };
  const auto run = [&](Seen* seen) {
    Fabric f(cfg, 80);
    Delivered got;
    f.set_delivery([&](const Packet& p, uint64_t at) {
      got.emplace_back(p.addr, at);
      if (seen) seen->delivered[p.addr] = true;
    });
    if (seen) {
      seen->delivered.assign(1000, false);
      f.set_arrival_hint([](void* ctx, const Packet& p) {
        Seen& s = *static_cast<Seen*>(ctx);
        s.hinted.push_back(p.addr);
        s.late = s.late || s.delivered[p.addr];
      }, seen);
    }
    uint32_t n = 0;
    for (uint64_t t = 0; t < 200; ++t) {
      f.advance_to(t);
      for (const uint32_t src : {uint32_t(t % 80), uint32_t(t * 7 % 80), uint32_t(t * 13 % 80)}) {
        if (!f.can_inject(src, t)) continue;
        Packet p;
        p.src = uint16_t(src);
        p.dst = uint16_t((src + 1 + t % 41) % 80);
        p.addr = n++;
        f.inject(p, t);
      }
    }
    while (!f.idle()) f.advance_to(f.next_event_time() + 1);
    EXPECT_GT(n, 300u);
    EXPECT_LT(n, 1000u);
    EXPECT_EQ(got.size(), n);
    return got;
  };
  Seen seen;
  const Delivered plain = run(nullptr), with_hint = run(&seen);
  EXPECT_EQ(with_hint, plain);
  EXPECT_FALSE(seen.late);
  std::vector<uint32_t> once = seen.hinted;
  std::sort(once.begin(), once.end());
  EXPECT_EQ(std::adjacent_find(once.begin(), once.end()), once.end());
  EXPECT_GT(once.size(), plain.size() * 9 / 10);
}

// A large network's clocks fetch their records ahead (Fabric::LargeTiming, from
// kPrefetchEndpoints endpoints, the host endpoint included): a hint for the host's caches
// that must change nothing.
// The same traffic with and without it, on 320 PEs: streams to a partner that changes
// every 64 clocks (every link busy, buffers full, blocked waiters) and a hot spot at
// PE 5 (an ejection port whose waiters spill past the inline ones): the same deliveries
// at the same clocks in the same order, the same next event after every advance, the
// same answers to a stalled sender, the same statistics.
TEST(NetFabricTiming, PrefetchingOnALargeNetworkChangesNothingSimulated) {
  NetworkConfig cfg;
  EXPECT_FALSE(Fabric(cfg, 80).prefetching());
  using Seen = std::vector<uint64_t>;
  const auto run = [&](bool prefetch) {
    Fabric f(cfg, 320);
    EXPECT_TRUE(f.prefetching());
    f.set_prefetch(prefetch);
    EXPECT_EQ(f.prefetching(), prefetch);
    Seen seen;
    f.set_delivery([&](const Packet& p, uint64_t at) {
      seen.push_back(at << 32 | p.addr);
    });
    uint32_t n = 0;
    for (uint64_t t = 0; t < 1500; ++t) {
      f.advance_to(t);
      seen.push_back(f.next_event_time());
      seen.push_back(f.earliest_slot_free(uint32_t(t % 320), t));
      for (uint32_t src = uint32_t(t % 3); src < 320; src += 3) {
        if (!f.can_inject(src, t)) continue;
        Packet p;
        p.src = uint16_t(src);
        const uint32_t partner = (src + 1 + uint32_t(t / 64) * 37) % 320;
        p.dst = uint16_t(src % 11 == 0 ? 5 : partner == src ? (src + 1) % 320 : partner);
        p.addr = n++;
        f.inject(p, t);
      }
    }
    while (!f.idle()) f.advance_to(f.next_event_time() + 1);
    EXPECT_GT(n, 20000u);
    const FabricStats& st = f.stats();
    seen.push_back(st.delivered);
    seen.push_back(st.hops_sum);
    seen.push_back(st.latency_sum);
    for (const auto& l : st.links) seen.push_back(l.packets);
    return seen;
  };
  const Seen with = run(true), without = run(false);
  EXPECT_TRUE(with == without);
}

// A hot ejection port: 24 senders, some with two packets, in a scrambled order of clocks
// and ids. Its waiters grow past the output's inline ones (10) into the spill vector and
// shrink back, and new ones come in out of order (ties broken by queue id; a second
// packet asks late with its old ready time). The grants must follow the rule alone:
// whenever the port is free, the eligible head (ready, and at the head of its queue) with
// the earliest ready time, then the lowest queue id. A model of that rule gives every
// arrival's clock and sender.
TEST(NetFabricTiming, AHotOutputGrantsOldestFirstThroughAnyNumberOfWaiters) {
  Fabric f(test::config_for(TopologyKind::single_switch), 32);
  std::vector<Arrival> arrivals;
  f.set_delivery([&](const Packet& p, uint64_t t) { arrivals.push_back({p, t}); });
  struct Send {
    uint16_t src;
    uint64_t t;
  };
  std::vector<Send> sends;
  for (uint32_t k = 0; k < 24; ++k) {
    const uint16_t src = uint16_t(1 + (k * 7) % 31);  // ids out of order
    sends.push_back({src, (k * 5) % 9});            // clocks 0..8, out of order
    if (k % 3 == 0) sends.push_back({src, (k * 5) % 9 + 1});
  }
  std::stable_sort(sends.begin(), sends.end(),
                   [](const Send& a, const Send& b) { return a.t < b.t; });
  for (size_t i = 0; i < sends.size(); ++i) {
    Packet p;
    p.src = sends[i].src;
    p.dst = 0;
    p.seq = i;
    f.advance_to(sends[i].t);
    ASSERT_TRUE(f.can_inject(p.src, sends[i].t));
    f.inject(p, sends[i].t);
  }
  while (!f.idle()) f.advance_to(f.next_event_time() + 1);
  ASSERT_EQ(arrivals.size(), sends.size());

  // The model: per sender, its packets in order; a packet is eligible at clock T once
  // routed (sent + 1) and at the head (its predecessor's transfer over), L = 2.
  std::map<uint16_t, std::deque<size_t>> queue;
  for (size_t i = 0; i < sends.size(); ++i) queue[sends[i].src].push_back(i);
  std::map<uint16_t, uint64_t> head_from;
  std::vector<std::pair<uint64_t, size_t>> expected;  // arrival clock, send
  for (uint64_t clock = 0; expected.size() < sends.size(); ++clock) {
    size_t best = SIZE_MAX;
    for (const auto& [src, q] : queue) {
      if (q.empty() || head_from[src] > clock || sends[q.front()].t + 1 > clock) continue;
      const size_t i = q.front();
      if (best == SIZE_MAX || sends[i].t < sends[best].t ||
          (sends[i].t == sends[best].t && src < sends[best].src))
        best = i;
    }
    if (best == SIZE_MAX) continue;
    expected.push_back({clock + 2, best});
    queue[sends[best].src].pop_front();
    head_from[sends[best].src] = clock + 2;
    clock += 1;  // the port is busy until clock + 2
  }
  for (size_t k = 0; k < arrivals.size(); ++k) {
    EXPECT_EQ(arrivals[k].time, expected[k].first) << k;
    EXPECT_EQ(arrivals[k].packet.seq, expected[k].second) << k;
  }
}

}  // namespace
}  // namespace emx::net
