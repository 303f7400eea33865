// Counters of a Fabric run, for the statistics JSON.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "sim/stats/field_doc.h"

namespace emx::net {

class Topology;

struct PortStats {
  uint64_t packets = 0;      // packets that crossed the port
  uint64_t busy_clocks = 0;  // clocks the port was transferring
};

struct FabricStats {
  std::vector<PortStats> links;     // by link id (Topology::link)
  std::vector<PortStats> ejection;  // by endpoint: the port into the PE (or host)
  uint64_t injected = 0;
  uint64_t delivered = 0;
  uint64_t latency_sum = 0;  // arrival - injected_at, over delivered packets
  uint64_t latency_max = 0;
  uint64_t hops_sum = 0;     // links crossed, over delivered packets
};

// Totals, and one record per link {from, to, kind, packets, busy_clocks}; `clocks` (the
// simulated time span) turns busy clocks into utilisation when it is not 0.
nlohmann::json to_json(const FabricStats& s, const Topology& topo, uint64_t clocks = 0);
// Every field to_json writes, relative to the network's statistics ("links[].packets"),
// with unit and meaning (docs/stats.md).
const std::vector<stats::FieldDoc>& fabric_stat_docs();

}  // namespace emx::net
