// Differential check of the timing engine: drives ~300 network configurations with
// pseudo-random traffic (injections out of time order across endpoints, in the future,
// from delivery callbacks; stalled senders) and hashes everything the engine answers:
// every delivery (packet, clock, order), next_event_time, in_flight, and per endpoint and
// step can_inject, earliest_slot_free, injection_room_from, injection_queue_length,
// arriving, plus the final statistics. One line per configuration.
//   fabric_trace                 print the lines
//   fabric_trace --check FILE    compare with FILE (lines from the reference engine)
// The golden file (fabric_trace.golden) was made by the engine before its speed work; a
// change of simulated behaviour shows as a differing line. Regenerate it only for an
// intended change of the network's timing.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "network/fabric.h"

namespace {

using namespace emx::net;

struct Hash {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  void add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
};

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }
};

struct Case {
  NetworkConfig cfg;
  uint32_t pes;
  uint32_t load_permille;  // per endpoint and clock
  uint64_t seed;
};

std::string describe(const Case& c) {
  const NetworkConfig& n = c.cfg;
  std::ostringstream o;
  o << topology_name(n.topology) << " pes=" << c.pes << " load=" << c.load_permille
    << " sw=" << (n.switching == Switching::cut_through ? "ct" : "sf") << " cpw=" << n.clocks_per_word
    << " r=" << n.routing_clocks << " buf=" << n.buffer_packets
    << " cls=" << int(n.buffer_classes) << " inj=" << n.injection_queue_packets
    << " xl=" << n.crossbar_latency << " bidir=" << n.ring_bidirectional << " seed=" << c.seed;
  return o.str();
}

std::vector<Case> cases() {
  std::vector<Case> out;
  Rng rng{0x2545f4914f6cdd1dull};
  const TopologyKind kinds[] = {TopologyKind::circular_omega, TopologyKind::crossbar,
                                TopologyKind::single_switch, TopologyKind::ring,
                                TopologyKind::torus2d};
  const uint32_t pes[] = {5, 16, 80};
  const uint32_t loads[] = {10, 30, 120, 1000};
  for (const TopologyKind k : kinds)
    for (const uint32_t p : pes)
      for (uint32_t v = 0; v < 20; ++v) {
        Case c;
        c.pes = p;
        c.cfg.topology = k;
        c.seed = rng.next();
        c.load_permille = loads[v % 4];
        if (v >= 4) {  // the first four: the defaults at each load
          c.cfg.switching = rng.below(3) == 0 ? Switching::cut_through : Switching::store_and_forward;
          c.cfg.clocks_per_word = 1 + rng.below(3);
          c.cfg.routing_clocks = 1 + rng.below(3);
          c.cfg.buffer_packets = 1 + rng.below(3);
          c.cfg.injection_queue_packets = 1 + rng.below(5);
          c.cfg.crossbar_latency = 1 + rng.below(9);
          if ((k == TopologyKind::ring || k == TopologyKind::torus2d) && rng.below(3) == 0)
            c.cfg.buffer_classes = BufferClasses::hops;
          if (k == TopologyKind::ring && rng.below(4) == 0) c.cfg.ring_bidirectional = false;
        }
        out.push_back(c);
      }
  return out;
}

std::string run(const Case& c) {
  Fabric f(c.cfg, c.pes);
  const uint32_t endpoints = c.pes + 1;  // the host too
  const bool crossbar = c.cfg.topology == TopologyKind::crossbar;
  const uint32_t lead = crossbar ? c.cfg.crossbar_latency : c.cfg.routing_clocks;
  Rng rng{c.seed | 1};
  Hash h;
  std::vector<uint64_t> last(endpoints, 0);
  uint64_t seq = 0, order = 0;
  const uint64_t clocks = c.pes <= 5 ? 6000 : c.pes <= 16 ? 3000 : 1200;

  f.set_delivery([&](const Packet& p, uint64_t t) {
    h.add(++order);
    h.add(p.seq);
    h.add(p.src);
    h.add(p.dst);
    h.add(p.addr);
    h.add(p.injected_at);
    h.add(t);
    // Questions and a reply from inside the callback, as the machine asks them.
    const uint32_t e = p.dst;
    h.add(f.can_inject(e, t));
    h.add(f.earliest_slot_free(e, t));
    if (rng.below(4) == 0 && t >= last[e] && f.can_inject(e, t)) {
      Packet r;
      r.src = uint16_t(e);
      r.dst = uint16_t(p.src);
      r.seq = ++seq;
      r.addr = uint32_t(p.seq);
      f.inject(r, t);
      last[e] = t;
    }
  });

  auto observe = [&](uint64_t t) {
    h.add(f.next_event_time());
    h.add(f.in_flight());
    h.add(f.now());
    for (uint32_t e = 0; e < endpoints; ++e) {
      const bool can = f.can_inject(e, t);
      h.add(can);
      h.add(f.earliest_slot_free(e, t));
      h.add(f.injection_room_from(e));
      h.add(f.injection_queue_length(e));
      if (!crossbar) {
        uint64_t at = 0;
        const Packet* a = f.arriving(e, at);
        h.add(a ? a->seq : UINT64_MAX);
        h.add(a ? at : 0);
      }
    }
  };

  uint64_t t = 0;
  while (t < clocks) {
    f.advance_to(t);
    observe(t);
    for (uint32_t i = 0; i < endpoints; ++i) {
      const uint32_t e = (i * 7 + uint32_t(t)) % endpoints;  // a varying order
      if (rng.below(1000) >= c.load_permille) continue;
      // Some injections lie in the past (as far as allowed) or the future.
      const uint32_t r = rng.below(8);
      uint64_t at = r == 0 ? (t >= lead ? t - lead : 0) : r >= 6 ? t + rng.below(70) : t;
      at = std::max(at, last[e]);
      if (at + lead < f.now()) continue;
      if (!f.can_inject(e, at)) {
        h.add(f.earliest_slot_free(e, at));
        continue;
      }
      Packet p;
      p.src = uint16_t(e);
      p.dst = uint16_t(rng.below(endpoints));
      p.seq = ++seq;
      f.inject(p, at);
      last[e] = at;
    }
    // Mostly clock by clock; sometimes a jump, or to the next event.
    const uint32_t j = rng.below(10);
    if (j == 0) {
      const uint64_t next = f.next_event_time();
      t = next == UINT64_MAX ? t + 1 : std::max(t + 1, next + 1);
    } else {
      t += j >= 8 ? 1 + rng.below(6) : 1;
    }
  }
  while (!f.idle()) {
    f.advance_to(f.next_event_time() + 1);
    observe(f.now());
  }
  const FabricStats& s = f.stats();
  h.add(s.injected);
  h.add(s.delivered);
  h.add(s.latency_sum);
  h.add(s.latency_max);
  h.add(s.hops_sum);
  for (const PortStats& p : s.links) {
    h.add(p.packets);
    h.add(p.busy_clocks);
  }
  for (const PortStats& p : s.ejection) {
    h.add(p.packets);
    h.add(p.busy_clocks);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.h));
  std::ostringstream o;
  o << describe(c) << " delivered=" << s.delivered << " hops=" << s.hops_sum
    << " latency=" << s.latency_sum << " hash=" << buf;
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> lines;
  for (const Case& c : cases()) lines.push_back(run(c));
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream in(argv[2]);
    if (!in) {
      std::cerr << "cannot read " << argv[2] << "\n";
      return 2;
    }
    std::vector<std::string> golden;
    for (std::string l; std::getline(in, l);) golden.push_back(l);
    int bad = golden.size() == lines.size() ? 0 : 1;
    if (bad) std::cerr << golden.size() << " golden lines, " << lines.size() << " cases\n";
    for (size_t i = 0; i < lines.size() && i < golden.size(); ++i)
      if (lines[i] != golden[i]) {
        std::cerr << "differs:\n  golden: " << golden[i] << "\n  now:    " << lines[i] << "\n";
        ++bad;
      }
    std::cout << lines.size() << " configurations, " << bad << " differ\n";
    return bad ? 1 : 0;
  }
  for (const std::string& l : lines) std::cout << l << "\n";
  return 0;
}
