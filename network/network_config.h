// Configuration of the interconnection network (typed, see sim/config/fields.h).
// Times are PE clock cycles: the switch sits on the PE chip and runs on its clock.
// [paper] = from the EM-X papers, [assumed] = a modelling assumption (network/README.md).
#pragma once
#include <cstdint>

#include "sim/config/fields.h"

namespace emx::net {

enum class TopologyKind : uint8_t { circular_omega, crossbar, single_switch, ring, torus2d };
enum class Switching : uint8_t { store_and_forward, cut_through };
// The buffer-class scheme for deadlock freedom (network/README.md, "Deadlock freedom"):
// automatic = hops for the circular omega, datelines for ring and torus2d.
enum class BufferClasses : uint8_t { automatic, hops, datelines };

// Shapes derived from the config and the PE count (0 in the config = derive).
struct OmegaShape {
  uint32_t groups = 0, group_size = 0;
};
struct TorusShape {
  uint32_t width = 0, height = 0;
};

struct NetworkConfig {
  TopologyKind topology = TopologyKind::circular_omega;
  uint32_t groups = 0;       // circular omega: number of groups (boards); 0 = derive
  uint32_t group_size = 0;   // circular omega: nodes per group ring; 0 = derive
  uint32_t host_link = 0;    // circular omega: node whose inter-group link carries the host
  uint32_t torus_width = 0;  // torus2d: columns; 0 = derive
  bool ring_bidirectional = true;
  Switching switching = Switching::store_and_forward;
  uint32_t clocks_per_word = 1;
  uint32_t routing_clocks = 1;
  uint32_t buffer_packets = 2;
  BufferClasses buffer_classes = BufferClasses::automatic;
  uint32_t injection_queue_packets = 4;
  uint32_t crossbar_latency = 4;

  // Every packet is two words [paper]; not a key.
  static constexpr uint32_t words_per_packet = 2;
  // Clocks a packet occupies a link or an ejection port.
  uint32_t link_clocks() const { return words_per_packet * clocks_per_word; }

  template <class V>
  void visit(V& v) {
    static constexpr config::Choice<TopologyKind> kTopologies[] = {
        {"circular_omega", TopologyKind::circular_omega},
        {"crossbar", TopologyKind::crossbar},
        {"single_switch", TopologyKind::single_switch},
        {"ring", TopologyKind::ring},
        {"torus2d", TopologyKind::torus2d}};
    static constexpr config::Choice<Switching> kSwitching[] = {
        {"store_and_forward", Switching::store_and_forward},
        {"cut_through", Switching::cut_through}};
    static constexpr config::Choice<BufferClasses> kBufferClasses[] = {
        {"auto", BufferClasses::automatic},
        {"hops", BufferClasses::hops},
        {"datelines", BufferClasses::datelines}};
    v.choice("topology", topology, kTopologies,
             "circular_omega: EM-X groups x ring + perfect-shuffle links [ours]; crossbar: ideal, "
             "fixed latency, contention only at the destination; single_switch: one central "
             "switch, every endpoint has its own link in and out; ring; torus2d");
    v.field("groups", groups, 0u, 1024u,
            "circular_omega: number of groups G (EM-X: 16 boards); 0 = derive: "
            "ceil(PEs / group_size) [ours]");
    v.field("group_size", group_size, 0u, 1024u,
            "circular_omega: nodes k per group ring (EM-X: 5); 0 = derive: ceil(PEs / groups) "
            "(at least 2) when groups is given, else 5, or PEs when PEs <= 5 [ours]; "
            "G*k >= PEs, nodes beyond the PEs only switch");
    v.field("host_link", host_link, 0u, 1048575u,
            "circular_omega: node x whose inter-group link x -> shuffle(x) the host node is "
            "inserted on (x -> host -> shuffle(x)); 0 = the link leaving node 0 of group 0 [ours]");
    v.field("torus_width", torus_width, 0u, 1024u,
            "torus2d: columns W; 0 = derive: ceil(sqrt(PEs)); rows = ceil(PEs / W)");
    v.field("ring_bidirectional", ring_bidirectional, false, true,
            "ring: links in both directions (true) or only i -> i+1 (false)");
    v.choice("switching", switching, kSwitching,
             "store_and_forward: a packet is routed on after its tail arrived; cut_through: "
             "after its head word arrived (virtual cut-through, whole-packet buffers) [assumed]");
    v.field("clocks_per_word", clocks_per_word, 1u, 255u,
            "clocks to move one 38-bit word over a link; a 2-word packet occupies a link "
            "2 x this [paper: 1, block transfer reaches 2 clocks per packet]");
    v.field("routing_clocks", routing_clocks, 1u, 255u,
            "switch routing latency per node traversed, from a packet's arrival until it may "
            "use an output [assumed]");
    v.field("buffer_packets", buffer_packets, 1u, 255u,
            "input buffer capacity, packets, per link input port and per buffer class [assumed]");
    v.choice("buffer_classes", buffer_classes, kBufferClasses,
             "deadlock-avoidance buffer classes per link input port [ours]: hops: one class per "
             "hop taken (class = hop - 1, as many as the diameter): more packets per port, "
             "higher saturated throughput, slower to simulate on long rings; datelines (ring "
             "and torus2d only): 2 classes on the ring, 4 on the torus, cut at each ring's "
             "wrap-around link; auto: hops for circular_omega, datelines for ring and torus2d");
    v.field("injection_queue_packets", injection_queue_packets, 1u, 1024u,
            "PE output queue into its switch, packets; a send stalls when it is full [assumed: "
            "4; em4: 1, the EMC-R had no output packet buffer, the EMC-Y added one]");
    v.field("crossbar_latency", crossbar_latency, 1u, 65535u,
            "crossbar: clocks from injection to full arrival on an idle network [assumed]");
  }

  // Checks what the key ranges cannot (shape against the PE count); throws ConfigError.
  void validate(uint32_t pe_count) const;
  OmegaShape omega_shape(uint32_t pe_count) const;  // resolved and validated
  TorusShape torus_shape(uint32_t pe_count) const;  // resolved and validated
};

inline constexpr uint32_t kMaxPes = 1024;  // the 10-bit PE field of a global address

const char* topology_name(TopologyKind k);  // the key's value, e.g. "circular_omega"

}  // namespace emx::net
