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

const std::vector<stats::FieldDoc>& fabric_stat_docs() {
  static const std::vector<stats::FieldDoc> docs = {
      {"topology", "text", "the network: kind, size and parameters (Topology::describe)"},
      {"injected", "packets", "packets that entered the network (PEs and host)"},
      {"delivered", "packets", "packets that reached their destination's input"},
      {"latency_sum", "clocks", "sum over delivered packets of arrival minus injection clock"},
      {"latency_max", "clocks", "the longest arrival minus injection clock of a packet"},
      {"latency_mean", "clocks", "latency_sum / delivered (only when a packet was delivered)"},
      {"hops_sum", "links", "sum over delivered packets of the links each crossed"},
      {"hops_mean", "links", "hops_sum / delivered (only when a packet was delivered)"},
      {"links[].from", "switch", "the switch node the link leaves (links are listed by link id)"},
      {"links[].to", "switch", "the switch node the link enters"},
      {"links[].kind", "text",
       "ring, ring_back, shuffle (circular omega); east, west, south, north (torus); "
       "host_in, host_out (the host's links)"},
      {"links[].packets", "packets", "packets that crossed the link"},
      {"links[].busy_clocks", "clocks", "clocks the link was transferring"},
      {"links[].utilisation", "fraction", "busy_clocks / the run's clocks"},
      {"ejection[].packets", "packets",
       "packets through the port into endpoint k (PE k; the last, k = PEs, is the host)"},
      {"ejection[].busy_clocks", "clocks", "clocks the ejection port was transferring"},
      {"ejection[].utilisation", "fraction", "busy_clocks / the run's clocks"},
  };
  return docs;
}

}  // namespace emx::net
