// Throughput of the timing engine: every PE tries to send a packet to a random PE with
// probability `load` per clock (1 = whenever its injection queue has room: saturation;
// a send instruction takes one clock), for a number of clocks, then the network drains.
// Prints link traversals (packet-hops) per host second.
//   bench_fabric [pes=80] [clocks=200000] [topology=circular_omega] [load=1]
//                [buffer_classes=auto]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "network/fabric.h"

int main(int argc, char** argv) {
  using namespace emx::net;
  const uint32_t pes = argc > 1 ? uint32_t(std::atoi(argv[1])) : 80;
  const uint64_t clocks = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200000;
  NetworkConfig cfg;
  if (argc > 3) {
    nlohmann::json j = {{"topology", argv[3]}};  // the Reader keeps a reference
    if (argc > 5) j["buffer_classes"] = argv[5];
    emx::config::Reader r(j, "network");
    cfg.visit(r);
  }
  const double load = argc > 4 ? std::atof(argv[4]) : 1.0;
  const uint64_t threshold = uint64_t(load * 4294967296.0);  // of a 32-bit random number
  Fabric fabric(cfg, pes);
  fabric.set_delivery([](const Packet&, uint64_t) {});

  uint64_t rng = 0x9e3779b97f4a7c15ull;  // xorshift64: fixed seed, reproducible load
  auto next_random = [&] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };

  const auto start = std::chrono::steady_clock::now();
  Packet p;
  // A stalled sender waits until earliest_slot_free, as a PE's send would.
  std::vector<uint64_t> retry(pes, 0);
  for (uint64_t t = 0; t < clocks; ++t) {
    fabric.advance_to(t);
    for (uint32_t pe = 0; pe < pes; ++pe) {
      if (t < retry[pe] || (next_random() >> 32) >= threshold) continue;
      if (!fabric.can_inject(pe, t)) {
        retry[pe] = fabric.earliest_slot_free(pe, t);
        continue;
      }
      p.src = uint16_t(pe);
      p.dst = uint16_t(next_random() % pes);
      ++p.seq;
      fabric.inject(p, t);
    }
  }
  while (!fabric.idle()) fabric.advance_to(fabric.next_event_time() + 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const FabricStats& s = fabric.stats();
  fmt::print("{}, {} buffer classes: {} clocks, {} packets delivered ({:.2f} per clock), mean "
             "latency {:.1f} clocks, mean hops {:.2f}\n",
             fabric.topology().describe(), fabric.buffer_classes(), fabric.now(), s.delivered,
             double(s.delivered) / double(fabric.now()), double(s.latency_sum) / double(s.delivered),
             double(s.hops_sum) / double(s.delivered));
  fmt::print("{:.3f} s host time: {:.2f} M packet-hops/s ({:.2f} M packets/s, "
             "{:.2f} M switch traversals/s)\n",
             seconds, double(s.hops_sum) / seconds / 1e6, double(s.delivered) / seconds / 1e6,
             double(s.hops_sum + s.delivered) / seconds / 1e6);
  return 0;
}
