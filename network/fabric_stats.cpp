#include "network/fabric_stats.h"

#include "network/topology.h"

namespace emx::net {

nlohmann::json to_json(const FabricStats& s, const Topology& topo, uint64_t clocks) {
  nlohmann::json j;
  j["topology"] = topo.describe();
  j["injected"] = s.injected;
  j["delivered"] = s.delivered;
  j["latency_sum"] = s.latency_sum;
  j["latency_max"] = s.latency_max;
  j["hops_sum"] = s.hops_sum;
  if (s.delivered) {
    j["latency_mean"] = double(s.latency_sum) / double(s.delivered);
    j["hops_mean"] = double(s.hops_sum) / double(s.delivered);
  }
  auto port = [clocks](const PortStats& p) {
    nlohmann::json r = {{"packets", p.packets}, {"busy_clocks", p.busy_clocks}};
    if (clocks) r["utilisation"] = double(p.busy_clocks) / double(clocks);
    return r;
  };
  nlohmann::json links = nlohmann::json::array();
  for (uint32_t id = 0; id < s.links.size(); ++id) {
    nlohmann::json r = port(s.links[id]);
    r["from"] = topo.link(id).from;
    r["to"] = topo.link(id).to;
    r["kind"] = link_kind_name(topo.link(id).kind);
    links.push_back(std::move(r));
  }
  j["links"] = std::move(links);
  nlohmann::json ejection = nlohmann::json::array();
  for (const PortStats& p : s.ejection) ejection.push_back(port(p));
  j["ejection"] = std::move(ejection);
  return j;
}

}  // namespace emx::net
