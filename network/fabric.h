// The network timing engine: a deterministic discrete-event model in plain C++.
//
// A packet enters its PE's injection queue, waits routing_clocks, then competes for the
// output its route takes: a link to the next switch, or the ejection port into the
// destination endpoint. A transfer occupies the output link_clocks (2 words x
// clocks_per_word) and starts only when the output is free AND the next switch's input
// buffer has a free slot in the packet's next buffer class (Routing::next_class: the
// deadlock-avoidance scheme, network/README.md); otherwise the packet waits, and so
// do the packets queued behind it, back to the injection queue (back-pressure). A link
// buffer slot is offered back upstream once the first word of its packet has moved on.
// Ejection is never refused: the PE's input buffer spills to memory in hardware [paper].
// Outputs go to the oldest waiting packet (earliest ready time, then lowest queue id).
// "crossbar" is modelled separately: arrival = max(t + crossbar_latency, the ejection
// port's next free arrival slot), with link_clocks between arrivals at one endpoint;
// packets that reach one port at the same clock take it in source endpoint order (as
// the other topologies' outputs go to the lowest queue id among equally old packets).
//
// Time: advance_to(t) runs all events at times < t, in (time, scheduling order), and
// arbitrates outputs once per clock after that clock's events. Injections may come out
// of global time order (temporally decoupled PEs), in time order per endpoint (checked),
// as long as t + routing_clocks >= now(). Not thread-safe; one Fabric per machine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "network/event_queue.h"
#include "network/fabric_stats.h"
#include "network/network_config.h"
#include "network/packet.h"
#include "network/routing.h"
#include "network/topology.h"

namespace emx::net {

class Fabric {
 public:
  // Called when a packet has fully arrived at its destination endpoint: a function with a
  // context (per packet: no std::function indirection), or any callable.
  using DeliveryFn = void (*)(void* ctx, const Packet& packet, uint64_t arrival_time);
  using Delivery = std::function<void(const Packet& packet, uint64_t arrival_time)>;

  Fabric(const NetworkConfig& cfg, uint32_t pe_count);
  Fabric(const Fabric&) = delete;  // routing_ refers to topology_
  Fabric& operator=(const Fabric&) = delete;

  void set_delivery(DeliveryFn f, void* ctx) {
    deliver_fn_ = f;
    deliver_ctx_ = ctx;
  }
  void set_delivery(Delivery d) {
    deliver_ = std::move(d);
    set_delivery([](void* ctx, const Packet& p, uint64_t t) { (*static_cast<Delivery*>(ctx))(p, t); },
                 &deliver_);
  }
  // For tracing (empty: off, the default): called when a packet starts a transfer over an
  // output, a link (output < link count) or an ejection port (link count + endpoint),
  // with the transfer's start and end clocks. It must not inject.
  using HopHook = std::function<void(const Packet&, uint32_t output, uint64_t start, uint64_t end)>;
  void set_hop_hook(HopHook h) { on_hop_ = std::move(h); }
  // A hint for the host's caches (none by default): when a packet's transfer into its
  // destination endpoint starts, the packet whose transfer into an endpoint started
  // before it is handed to the hint if that transfer is still under way, so that the
  // receiver may fetch what its delivery will touch. (One ejection late: the payload is
  // fetched meanwhile.) The hint must not inject nor change anything simulated.
  using ArrivalHint = void (*)(void* ctx, const Packet& packet);
  void set_arrival_hint(ArrivalHint h, void* ctx) {
    arrival_hint_ = h;
    arrival_hint_ctx_ = ctx;
  }

  // Whether the clocks run with the prefetches of a large network (by default from
  // kPrefetchEndpoints endpoints, with the default timing and no hop hook). A hint for the
  // host's caches: nothing simulated depends on it (set_prefetch: for tests and
  // measurements).
  static constexpr uint32_t kPrefetchEndpoints = 256;
  bool prefetching() const { return prefetch_ && default_timing_ && !on_hop_; }
  void set_prefetch(bool on) { prefetch_ = on; }

  // Whether `endpoint` may inject at clock t: its injection queue has a free slot, counting
  // the slot of a packet whose transfer out ends by t. Exact once advance_to(t) has run,
  // conservative (possibly false) before. Always true for "crossbar" (ideal network).
  bool can_inject(uint32_t endpoint, uint64_t t) const {
    if (cfg_.topology == TopologyKind::crossbar) return true;
    const Queue& q = queue_at(endpoint * kQueueBytes);
    const uint32_t leaving = q.release_at <= t ? 1 : 0;  // (kNever when not busy)
    return q.occupancy - leaving < cfg_.injection_queue_packets;
  }
  // Packets holding a slot of `endpoint`'s injection queue now (the one leaving included).
  uint32_t injection_queue_length(uint32_t endpoint) const {
    return queue_at(endpoint * kQueueBytes).occupancy;
  }
  // A lower bound of the first clock >= t at which can_inject(endpoint, ...) may be true
  // (t itself when it is true now): when a stalled sender should try again. It follows
  // the queue ahead of the head (README, API contract) to keep such retries few.
  uint64_t earliest_slot_free(uint32_t endpoint, uint64_t t) const;
  // The first clock from which can_inject(endpoint, ...) is true whatever other traffic
  // does, as long as nothing else enters this queue: 0 if it has room now, the end of its
  // head's transfer out if that is under way and frees enough room (a transfer once
  // started ends on time), else UINT64_MAX (it depends on traffic still to come).
  uint64_t injection_room_from(uint32_t endpoint) const {
    const Queue& q = queue_at(endpoint * kQueueBytes);
    if (q.occupancy < cfg_.injection_queue_packets) return 0;
    if (q.busy() && q.occupancy - 1u < cfg_.injection_queue_packets)
      return q.release_at;
    return UINT64_MAX;
  }
  // A lower bound of the first clock from which can_inject(endpoint, ...) may be true,
  // the network having run to now(): injection_room_from, or when that depends on
  // traffic to come, the end of a transfer of the head starting now() at the earliest.
  uint64_t injection_room_bound(uint32_t endpoint) const {
    const uint64_t from = injection_room_from(endpoint);
    return from != UINT64_MAX ? from : now_ + link_clocks_;
  }
  // The packet whose delivery into `endpoint` is under way (its ejection transfer has
  // started; it arrives at `at`), or nullptr. Any other arrival there ends at least
  // link_clocks after now(). Not for "crossbar".
  const Packet* arriving(uint32_t endpoint, uint64_t& at) const {
    const Output& out = output_at(first_ejection_ + endpoint * kOutputBytes);
    if (out.slot == kNil) return nullptr;  // (set while an ejection is under way)
    at = out.busy_until;
    return &payload_at(out.slot).p;
  }
  uint32_t link_clocks() const { return link_clocks_; }
  // Asks to be told (take_injection_starts) when the head of `endpoint`'s injection queue
  // starts its transfer out: when injection_room_from, UINT64_MAX now, becomes a clock.
  // For a sender that waits for room in a full queue whose head has not left (the machine's
  // floating sends), instead of trying again every transfer.
  void watch_injection(uint32_t endpoint) {
    // (Its stand-in upstream says it: start_transfer lists it, schedule_releases tells.)
    queue_at(endpoint * kQueueBytes).upstream = uint16_t(watch_up_);
  }
  // Calls f(endpoint) for each watched endpoint whose injection queue's head has started
  // leaving since the last call, in the order they started; they are no longer watched.
  template <class F>
  void take_injection_starts(F&& f) {
    for (uint32_t i = 0; i < started_count_; ++i) f(started_[i]);
    started_count_ = 0;
  }
  // Sends p at clock t from p.src to p.dst (sets p.injected_at = t). Requires
  // can_inject(p.src, t), t >= the endpoint's previous injection and
  // t + routing_clocks >= now() (crossbar: + crossbar_latency); throws std::logic_error if not.
  void inject(const Packet& p, uint64_t t) {
    if (!try_inject(p, t)) refuse_injection(p.src, p.dst, t);
  }
  // inject if can_inject(p.src, t) (false: nothing done): the test and the injection in
  // one, inline.
  bool try_inject(const Packet& p, uint64_t t) {
    Packet* q = try_inject_from(p.src, p.dst, t);
    if (!q) return false;
    *q = p;
    q->injected_at = t;
    return true;
  }
  // inject for a packet from `src` to `dst` whose other fields the caller writes into
  // the returned payload at once (before anything else of the Fabric is called): the
  // packet is built once, where the network keeps it.
  Packet& inject_from(uint16_t src, uint16_t dst, uint64_t t) {
    if (Packet* p = try_inject_from(src, dst, t)) return *p;
    refuse_injection(src, dst, t);
  }
  // inject_from if can_inject(src, t), else nullptr: the test and the injection in one
  // (inline, below: the machine's output ports inject most packets, each after a test).
  Packet* try_inject_from(uint16_t src, uint16_t dst, uint64_t t);

  // Processes every event at a time < t. Delivery callbacks may inject, not advance.
  // Throws std::runtime_error if packets are left with nothing to move them (a deadlock:
  // cannot happen with the buffer classes, checked anyway).
  void advance_to(uint64_t t);
  // UINT64_MAX if none. (Between two advances the time advance_to found at its end,
  // lowered by injections since; during one, from a delivery callback, looked up.)
  uint64_t next_event_time() const { return advancing_ ? events_.next_time() : next_event_; }
  bool idle() const { return in_flight_ == 0; }
  // Delivery callbacks so far (every packet injected and no longer in flight).
  uint64_t delivered() const { return stats_.injected - in_flight_; }
  uint64_t in_flight() const { return in_flight_; }
  uint64_t now() const { return now_; }  // events before now() have been processed

  // Latency of a packet from src to dst on an idle network (the documented formula):
  //   store_and_forward: (hops + 1) x (routing_clocks + link_clocks)
  //   cut_through:       hops x (routing_clocks + clocks_per_word) + routing_clocks + link_clocks
  //   crossbar:          crossbar_latency
  uint64_t idle_latency(uint32_t src, uint32_t dst) const;

  const NetworkConfig& config() const { return cfg_; }
  const Topology& topology() const { return topology_; }
  const Routing& routing() const { return routing_; }
  const FabricStats& stats() const;
  uint32_t buffer_classes() const { return classes_; }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  // If a == b: x = x_then and y = y_then (else both unchanged), by two conditional moves.
  // (GCC turned a ?: on a choice that follows the traffic into a jump, and masks cost
  // more instructions than the jump's mispredictions saved.)
  static void if_equal(uint32_t a, uint32_t b, uint32_t x_then, uint32_t y_then, uint32_t& x,
                       uint32_t& y) {
#if defined(__x86_64__)
    asm("cmpl %[b], %[a]\n\tcmove %[xt], %[x]\n\tcmove %[yt], %[y]"
        : [x] "+r"(x), [y] "+r"(y)
        : [a] "r"(a), [b] "ri"(b), [xt] "rm"(x_then), [yt] "rm"(y_then)
        : "cc");
#else
    const bool c = a == b;
    x = c ? x_then : x;
    y = c ? y_then : y;
#endif
  }
  static constexpr uint64_t kNever = UINT64_MAX;
  enum EventKind : uint32_t {
    kHeadReady,        // target queue (its offset): its head packet has been routed, it asks for an output
    kTransfersDone,    // target grants_ entry: the transfers started that clock end (their
                       // tails left the source buffers), in order
    kHeadsReady,       // target grants_ entry: the packets that entered an idle queue that
                       // clock are routed, each asks for an output, in order
    kRelease,          // target output (offset): a slot of a link queue it feeds is free from
                       // now on, it arbitrates
    kCrossbarArrive,   // target slot: crossbar, the packet reaches the ejection port
    kCrossbarDeliver,  // target slot: crossbar, the packet has fully arrived
  };

  // Slots, queues and outputs are named by byte offset inside the engine (slots, queues,
  // waiters, grants, new heads, the events, the marked list): number x the record's
  // size, which slot_at, queue_at and output_at add to the base without the shift an
  // index costs per access (a hop makes about ten). Ids (the API, statistics, spill_,
  // start_bound's tables) are offset / kQueueBytes or kOutputBytes. kNil stays kNil.
  //
  // A packet in the network, by slot: what every hop touches (Slot) apart from the
  // payload (packets_, at twice the slot's offset), to keep the hot data small. Slots are
  // recycled via free_slots_.
  struct alignas(32) Slot {
    uint64_t ready;        // clock from which it may use an output of its current switch
    // Its route: with packed_routes_ its next ports, 4 bits each, the next lowest (15:
    // eject), shifted out hop by hop; else Routing::ports_to(dst) (its next port by node)
    // below kRouteHops, the links crossed so far above (in_flight_hops).
    uint64_t route;
    uint32_t next;         // next slot in the same queue (offset)
    uint32_t output;       // the output it needs at its current switch (offset)
    uint32_t next_queue;   // for a link: the buffer it needs a slot in there (offset), else sink_
    // Its destination's ejection port (offset): the last step's output, at hand so that
    // append chooses it or a link's without a branch.
    uint32_t ejection;
  };
  static constexpr uint64_t kRouteHops = uint64_t(1) << 48;  // (user-space addresses below)
  static_assert(sizeof(Slot) == 32, "two per cache line");
  // By slot. A whole line each: the payload is written at the injection and read at the
  // delivery, clocks apart, and a 40-byte record would straddle two lines half the time.
  struct alignas(64) Payload {
    Packet p;
  };
  static_assert(sizeof(Payload) == 2 * sizeof(Slot), "payload_at");
  // A FIFO input buffer: an injection queue (id = endpoint) or one buffer class of a link's
  // input port (id = endpoints + link * classes + class). A packet is unlinked when its
  // transfer out starts; the queue stays busy (one transfer out at a time: busy() is
  // release_at set) until the transfer ends. Its occupancy counts the slots held: a slot is taken when the transfer
  // in starts and given back when the transfer out ends. A link buffer, though, is a
  // FIFO of words: the space of a packet being sent on frees as its words leave, so the
  // upstream link may use the slot from release_at (the first word gone) on. (Freeing it
  // after the last word would need 3 slots per class for one stream to keep a link
  // busy.) An injection queue's slot frees when the transfer out ends: its release_at is
  // that end (so can_inject reads one record). What a hop touches of a queue is in one
  // 32-byte record: in the machine the host's caches hold the state of 80 or more PEs
  // between two network steps, so the number of cache lines per hop counts.
  struct alignas(32) Queue {
    uint64_t release_at = kNever;  // clock its transfer out frees a slot; kNever: not busy
    uint32_t head = kNil, tail = kNil;  // slots; tail: only while head is not kNil
    // Hop classes: the queue its packets enter next through port 0 (link_queue(first
    // link, the class they take next: 0 from injection, else its class + 1)), as an
    // offset; through port p, p x classes_ queues further. Kept so, a hop's next queue
    // costs no link x classes_ product.
    uint32_t next_base = 0;
    uint32_t first_output = 0;  // its switch's port 0 (Topology::first_link), as an offset
    uint16_t node = 0;          // the switch it belongs to
    // Link queues: the link feeding it (its slots are that link's credits). Injection
    // queues: a stand-in output (injection_up_, or watch_up_ while watched), so that a
    // transfer out treats both kinds alike, without a test of the kind (start_transfer).
    uint16_t upstream = 0;
    uint16_t occupancy = 0;  // slots held
    bool busy() const { return release_at != kNever; }
  };
  static_assert(sizeof(Queue) == 32, "one record per hop");
  // A queue whose ready head packet wants an output; what arbitration needs, cached.
  // (Offsets order the queues as their ids do.)
  struct Waiter {
    uint32_t next;    // links: the buffer it needs a slot in downstream (offset); else sink_
    uint32_t queue;   // offset
    uint64_t ready;   // the head's ready time: older first
    // Older (ready), then the lower queue: the record read as one 128-bit number,
    // ready x 2^64 + queue x 2^32 + next, compared at once (next never decides: a
    // queue has one waiter).
    bool before(const Waiter& o) const { return key() < o.key(); }
    unsigned __int128 key() const {
      unsigned __int128 k;
      std::memcpy(&k, this, sizeof k);
      return k;
    }
  };
  static_assert(sizeof(Waiter) == 16 && offsetof(Waiter, ready) == 8, "Waiter::key");
  // A link (id = link id) or ejection port (id = links + endpoint): three cache lines. The
  // first holds its state and first two waiters, so a request or a grant at an output with
  // few waiters (most of them) touches one line; the others eight more waiters, for the
  // saturated outputs (a hot link or ejection port, its waiters often blocked by full
  // buffers downstream, 3 to 10 of them), which in a vector beside (a cold header and a
  // cold block) cost two more misses per request and grant. More than kInlineWaiters
  // spill to spill_[id], all of them, until at most kUnspill are left. (Six inline, two
  // lines, spilled often enough in the block sends of radix_coarse and at 1024 PEs to
  // cost 2-4 % of their CPU; fourteen, four lines, gained nothing more.)
  static constexpr uint32_t kInlineWaiters = 10;
  static constexpr uint32_t kUnspill = 8;
  struct alignas(64) Output {
    // The end of the current transfer, or of the last (then at most the clock being run:
    // so, in an arbitration, busy iff busy_until > now, and busy_until < now + 1 says
    // idle, one test).
    uint64_t busy_until = 0;
    uint64_t packets = 0;     // transfers started (stats(); busy clocks = packets x L)
    uint32_t slot = kNil;     // ejection: the packet being delivered (slot offset), or kNil
    uint32_t waiting = 0;     // waiters
    // Marked (to arbitrate at the end of this clock) or busy: it takes no mark. One flag
    // for both, as an output is marked only idle and its grant makes it busy: a grant
    // leaves it set, an arbitration without one and the transfer's end clear it (the end
    // marks at once if there are waiters). (A flag each cost a store per arbitration and
    // per grant.)
    bool held = false;
    bool spilled = false;     // the waiters are in spill_[id]
    // The first `waiting`, in no order (a request appends, a grant moves the last into
    // its place): the oldest whose buffer downstream has room gets the output
    // (pick_waiter). Kept sorted, the insertion mispredicted under contention.
    Waiter inline_waiters[kInlineWaiters];
  };
  static_assert(sizeof(Output) == 192, "three cache lines, the first with two waiters");
  static constexpr uint32_t kSlotBytes = sizeof(Slot), kQueueBytes = sizeof(Queue),
                            kOutputBytes = sizeof(Output);
  // Queues, outputs and slots share one block (records_), so that a hop, which touches
  // all three, needs one base: a queue's offset is its id x kQueueBytes, an output's
  // output_base_ + its id x kOutputBytes, a slot's slot_base_ + its number x kSlotBytes.
  // (The block grows with the slots, in new_slot: offsets stay valid, references not.)
  // A slot's payload is in packets_, at twice the slot's offset less slot_base_.
  template <class Record>
  Record& record_at(uint32_t offset) const {  // (the block is the engine's state)
    return *reinterpret_cast<Record*>(const_cast<char*>(
        reinterpret_cast<const char*>(records_.data()) + offset));
  }
  Slot& slot_at(uint32_t offset) { return record_at<Slot>(offset); }
  const Slot& slot_at(uint32_t offset) const { return record_at<const Slot>(offset); }
  Queue& queue_at(uint32_t offset) { return record_at<Queue>(offset); }
  const Queue& queue_at(uint32_t offset) const { return record_at<const Queue>(offset); }
  Output& output_at(uint32_t offset) { return record_at<Output>(offset); }
  const Output& output_at(uint32_t offset) const { return record_at<const Output>(offset); }
  Payload& payload_at(uint32_t slot) {
    return *reinterpret_cast<Payload*>(payload_bias_ + uintptr_t(slot) * 2);
  }
  const Payload& payload_at(uint32_t slot) const {
    return *reinterpret_cast<const Payload*>(payload_bias_ + uintptr_t(slot) * 2);
  }
  uint32_t output_offset(uint32_t id) const { return output_base_ + id * kOutputBytes; }
  uint32_t output_id(uint32_t offset) const { return (offset - output_base_) / kOutputBytes; }
  const Waiter* waiters(uint32_t output) const {  // by offset (unordered)
    const Output& out = output_at(output);
    return out.spilled ? spill_[output_id(output)].data() : out.inline_waiters;
  }

  uint32_t link_queue(uint32_t link, uint32_t cls) const {  // an id
    return endpoints_ + link * classes_ + cls;
  }
  // Without hop classes: the buffer (offset) a packet in queue q (offset) enters through
  // `link`, by Routing::next_class.
  uint32_t next_queue_by_table(uint32_t q, uint32_t link) const {
    const bool injection = q < endpoint_bytes_;
    const uint32_t cls = injection ? 0 : (q - endpoint_bytes_) / kQueueBytes % classes_;
    const uint32_t upstream = injection ? Routing::kNoLink : queue_at(q).upstream;
    return link_queue(link, routing_.next_class(cls, upstream, link)) * kQueueBytes;
  }
  // The constants of the per-hop code: read from the configuration (AnyTiming), or, for
  // the default timing (one clock per word, one routing clock, store-and-forward, 2-slot
  // buffers, hop classes: default_timing_), compiled in. The per-clock phases are
  // instantiated for both; the constants save loads and tests in every hop. A hop hook
  // (tracing) runs with AnyTiming only: `traced`.
  struct AnyTiming {
    static constexpr bool compiled = false, traced = true, prefetch = false;
    static uint32_t cpw(const Fabric& f) { return f.cfg_.clocks_per_word; }
    static uint32_t link(const Fabric& f) { return f.link_clocks_; }
    static uint32_t ready_delay(const Fabric& f) { return f.ready_delay_; }
    static uint32_t buffer(const Fabric& f) { return f.cfg_.buffer_packets; }
    static bool hop_classes(const Fabric& f) { return f.hop_classes_; }
    static bool packed(const Fabric& f) { return f.packed_routes_; }
  };
  struct DefaultTiming {
    static constexpr bool compiled = true, traced = false, prefetch = false;
    static constexpr uint32_t cpw(const Fabric&) { return 1; }
    static constexpr uint32_t link(const Fabric&) { return 2; }
    static constexpr uint32_t ready_delay(const Fabric&) { return 3; }
    static constexpr uint32_t buffer(const Fabric&) { return 2; }
    static constexpr bool hop_classes(const Fabric&) { return true; }
    static constexpr bool packed(const Fabric&) { return true; }
  };
  // The default timing on a large network (prefetch_, from kPrefetchEndpoints): a clock's records are fetched a
  // few grants, transfer ends and new heads ahead of their use. From a few hundred
  // endpoints a clock touches more records than the host's first-level cache holds
  // (about 50 transfers a clock at 1024 PEs against 5 at 80, some eight lines each), so
  // nearly every record a hop touches is a miss, each found only after the one before
  // it (the output, then its waiter's queues, then their slots); on a small one they
  // stay cached and the prefetches would only add instructions.
  struct LargeTiming : DefaultTiming {
    static constexpr bool prefetch = true;
  };
  // Whether link queue q (offset) has no slot to offer upstream at `now`.
  template <class T>
  bool full(uint32_t q, uint64_t now) const {
    const Queue& queue = queue_at(q);
    return queue.occupancy - uint32_t(queue.release_at <= now) >= T::buffer(*this);
  }
  uint64_t start_bound(uint32_t q, uint64_t base) const;  // q: an offset
  uint32_t alloc_slot();
  uint64_t route(uint16_t src, uint16_t dst);
  [[gnu::noinline]] uint64_t pack_route(uint16_t src, uint16_t dst);
  uint64_t in_flight_hops() const;
  [[gnu::noinline]] uint32_t new_slot();
  [[noreturn]] void refuse_injection(uint16_t src, uint16_t dst, uint64_t t) const;
  [[noreturn, gnu::noinline, gnu::cold]] void refuse_advance() const;
  [[noreturn, gnu::noinline, gnu::cold]] void report_deadlock() const;
  template <class T>
  bool append(uint32_t q, uint32_t slot);
  // (marked: the end of the marked list, dirty_end_, kept in a local by run_events.)
  void schedule_head(uint32_t q, uint64_t now, uint32_t*& marked);
  void request_output(uint32_t q, uint32_t*& marked);
  void request(uint32_t output, const Waiter& w, uint32_t*& marked);
  [[gnu::noinline]] void spill_waiter(uint32_t output, const Waiter& w);
  struct Grant;
  struct NewHead;
  void request_new_head(const NewHead& h, uint64_t now, uint32_t*& marked);
  void mark_dirty(uint32_t output, uint32_t*& marked);
  struct ClockRows;
  template <class T>
  uint32_t pick_waiter(const Waiter* ws, uint32_t count, uint64_t now) const;
  template <class T>
  void arbitrate(uint32_t output, uint64_t now, ClockRows& rows);
  template <class T>
  void arbitrate_spilled(uint32_t output, uint64_t now, ClockRows& rows);
  template <class T>
  void arbitrate_marked(uint64_t now);
  // LargeTiming's prefetches (how far ahead: a hop's work hides a second-level hit).
  static constexpr uint32_t kArbitrateAhead = 4;
  void prefetch_arbitration(const uint32_t* d, const uint32_t* end) const;
  void prefetch_transfer_end(const Grant* g, const Grant* end) const;
  template <class T>
  void run_events(uint64_t now);
  template <class T>
  void start_transfer(uint32_t output, const Waiter& w, uint64_t now, ClockRows& rows);
  void transfer_done(const Grant& g, uint64_t now, uint32_t*& marked);
  template <class T>
  void schedule_releases(uint64_t now);
  void crossbar_arrive(uint32_t slot, uint64_t now);
  void crossbar_arrivals(uint64_t now);
  template <class T>
  void run_until(uint64_t t);  // advance_to's clocks
  void deliver(uint32_t slot, uint64_t now);

  const NetworkConfig cfg_;
  const Topology topology_;
  const Routing routing_;
  const uint32_t endpoints_, links_, classes_;
  // endpoints_ x kQueueBytes (the first link queue's offset), the first output's offset
  // (after the queues), the first ejection port's, classes_ x kQueueBytes (from one
  // link's queues to the next's).
  const uint32_t endpoint_bytes_, output_base_, first_ejection_, class_bytes_;
  const uint32_t link_clocks_, head_delay_;  // head_delay_: clocks until the next switch may route

  std::vector<Payload> packets_;
  // packets_.data() less 2 x slot_base_ (as a number: payload_at adds 2 x a slot's offset)
  uintptr_t payload_bias_ = 0;
  uint32_t slot_count_ = 0;
  // The free slots: the first free_count_ (room for every slot: a delivery frees one
  // without a capacity check).
  std::vector<uint32_t> free_slots_;
  uint32_t free_count_ = 0;
  // The queues (queue_count_ of them), the outputs (output_count_), then the slots
  // (slot_count_), in one block.
  struct alignas(64) Line {
    unsigned char bytes[64];
  };
  std::vector<Line> records_;
  const uint32_t queue_count_, output_count_, slot_base_;
  // Two stand-in outputs after the ejection ports (ids), never arbitrated nor counted: the
  // "upstream" of an injection queue, whose slot frees when its transfer out ends, not a
  // word after it starts: busy for ever, it never needs a wake-up; and of a watched one:
  // idle with a waiter, so the start of its transfer out is listed in releases_, where
  // schedule_releases tells the watcher (in the order they started, as grants go).
  const uint32_t injection_up_, watch_up_;
  // A queue record after the others that is never full (no slot taken, never busy): the
  // next buffer of a packet bound for its ejection port, so that the arbitration tests
  // every waiter's buffer alike, where a test of the output's kind first mispredicted
  // (links and ejection ports alternate in a clock's list).
  const uint32_t sink_;
  std::vector<std::vector<Waiter>> spill_;  // by output: its waiters, when more than inline
  std::vector<uint64_t> last_injection_;   // per endpoint: clock of its last inject
  std::vector<uint64_t> crossbar_next_;    // per endpoint: earliest next crossbar arrival
  // The crossbar packets reaching their ejection port this clock (src << 48 | place <<
  // 32 | slot), in scheduling order, which is the order the PEs' sends were injected
  // in: an order of the host's, so they take the ports in source order
  // (crossbar_arrivals).
  std::vector<uint64_t> crossbar_due_;
  // The outputs (offsets) to arbitrate at the end of this clock, in the order they were marked
  // (each at most once: sized for all of them, so marking needs no capacity check).
  // (Its end as a pointer: marking is one load and two stores.)
  std::vector<uint32_t> dirty_;
  uint32_t* dirty_end_ = nullptr;
  // The link queues (offsets) whose transfer out started this clock and may need a kRelease
  // (schedule_releases); at most one per output.
  std::vector<uint32_t> releases_;
  uint32_t release_count_ = 0;
  // A skipped wake-up of this clock's transfers: their clock (all the same) is to be kept
  // pending (EventQueue::touch), once, by schedule_releases.
  bool touch_releases_ = false;
  // The watched endpoints whose injection queue's head started leaving (at most one entry
  // each: an entry ends the watch), for take_injection_starts.
  std::vector<uint32_t> started_;
  uint32_t started_count_ = 0;
  // The transfers started in a clock (row clock & grants_mask_), in order: kTransfersDone
  // and kHeadsReady events name the row. A grant is 8 bytes (its output and the queue it
  // takes the packet from): a clock's dozen fit a line or two, and its transfer's end
  // finds the source queue without a load from the output first (two misses one after
  // the other in the machine, where the host's caches lose both between the clocks). A
  // packet a grant moved into an idle queue asks for an output ready_delay_ later (the
  // row's heads; when ready_delay_ == link_clocks_ the heads are paired with the grants,
  // one each, queue kNil for none, and kTransfersDone does both, grant by grant). The
  // new head's request is known when it enters: it stays that queue's head, its next
  // step unchanged, until it has asked (only a grant removes a head), and its ready time
  // is the event's clock. So asking touches neither the queue nor the slot (in the
  // machine, cold lines).
  struct Grant {  // (offsets)
    uint32_t output;
    uint32_t source;  // the queue the packet leaves
  };
  // The rows' storage, one after the other, each with room for a grant per output (at
  // most one transfer starts per output and clock): no capacity check and no
  // value-initialisation per grant, as a vector per row had. Beside each row of grants,
  // the packets those grants moved into an idle queue, in grant order, with their
  // requests: the row's kHeadsReady (or, paired, the grants' own).
  struct NewHead {
    uint32_t next, queue, output;  // (offsets; next and queue as in a Waiter: one move)
  };
  static_assert(offsetof(NewHead, queue) == offsetof(Waiter, queue), "one move");
  std::vector<Grant> grants_;
  std::vector<NewHead> heads_;
  // Per row, where its grants and new heads begin and end: one record, so that a clock
  // finds its rows with one load each.
  struct Row {
    Grant* grants;
    Grant* grants_end;
    NewHead* heads;
    NewHead* heads_end;
  };
  std::vector<Row> rows_;
  uint64_t grants_mask_ = 0;
  // The ends of the arbitrating clock's rows, while it adds to them (arbitrate_marked).
  struct ClockRows {
    Grant* grants;
    NewHead* heads;
  };
  const uint32_t ready_delay_;      // head_delay_ + routing_clocks
  const bool hop_classes_;  // ClassScheme::hops: the next class is arithmetic
  // Routes packed into 64 bits (every node's ports below 15, routes of at most 15 links),
  // and the packed route of each (source, destination) endpoint pair, found on first use
  // (0 until then): one load per packet at its injection, where the routing table was
  // read at every hop (a cache line per hop in the machine, which the PEs' work evicts
  // between the clocks).
  // By source, then destination (a PE's sends share its row). (Zeroed pages from calloc: at
  // 1025 endpoints 8 MiB, of which a run touches the pages of the pairs it uses.)
  const bool packed_routes_;
  struct Free {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint64_t[], Free> routes_;
  const bool default_timing_;  // DefaultTiming applies (without a hop hook)
  bool prefetch_;              // and LargeTiming instead (kPrefetchEndpoints; set_prefetch)
  // start_bound's results by queue, valid while bound_generation_ == generation_, which
  // every delivery and every clock's arbitration bump; and its scratch chain. (A result
  // stays a valid bound while its head waits, but a fresh one is much later.) A cache:
  // mutable.
  uint64_t generation_ = 1;
  mutable std::vector<uint64_t> bound_;
  mutable std::vector<uint64_t> bound_generation_;
  struct ChainLink {
    uint32_t queue;
    uint32_t ahead;       // waiters before its head that need the same buffer, or port
    uint64_t ready;       // its head's
    uint64_t output_free; // the next event, or the end of its output's transfer
  };
  mutable std::vector<ChainLink> chain_;
  EventQueue events_;
  DeliveryFn deliver_fn_ = nullptr;
  void* deliver_ctx_ = nullptr;
  Delivery deliver_;  // set_delivery's callable (deliver_ctx_ then points at it)
  ArrivalHint arrival_hint_ = nullptr;
  void* arrival_hint_ctx_ = nullptr;
  uint32_t hinted_slot_ = 0;    // the last ejection started while hinting: its slot (offset)
  uint64_t hinted_until_ = 0;   // and the end of its transfer
  HopHook on_hop_;
  mutable FabricStats stats_;  // the per-port counters, `delivered` and `hops_sum` are filled in by stats()
  uint64_t now_ = 0;
  // events_.next_time(), kept: found by advance_to at its end, lowered by an injection's
  // event (nothing else schedules between two advances), asked after every advance.
  uint64_t next_event_ = UINT64_MAX;
  uint64_t in_flight_ = 0;
  bool advancing_ = false;
};

// Inline: called at nearly every network clock by the machine's driver.
inline void Fabric::advance_to(uint64_t t) {
  if (advancing_) [[unlikely]]
    refuse_advance();
  advancing_ = true;
  struct Guard {
    bool& flag;
    ~Guard() { flag = false; }
  } guard{advancing_};

  if (default_timing_ && !on_hop_) {
    if (prefetch_)
      run_until<LargeTiming>(t);
    else
      run_until<DefaultTiming>(t);
  } else
    run_until<AnyTiming>(t);
  now_ = std::max(now_, t);
  if (next_event_ == UINT64_MAX && in_flight_ > 0) [[unlikely]]  // (no event left)
    report_deadlock();
}

// ---- injection, inline (per packet) ----

// Adds a packet at the tail of queue q (offset) and looks up its next step. Returns whether
// it became the head of an idle queue: it must then ask for its output at its ready time
// (kHeadReady).
template <class T>
[[gnu::always_inline]] inline bool Fabric::append(uint32_t q, uint32_t s) {
  Queue& queue = queue_at(q);
  Slot& slot = slot_at(s);
  slot.next = kNil;
  uint32_t port;
  uint32_t eject;  // the port that says the next step is the ejection
  if (T::packed(*this)) {
    port = uint32_t(slot.route & 15);
    slot.route >>= 4;
    eject = 15;
  } else {
    port = reinterpret_cast<const uint8_t*>(slot.route % kRouteHops)[queue.node];
    eject = Routing::kEject;
  }
  uint32_t output = queue.first_output + port * kOutputBytes;
  if (T::hop_classes(*this)) {
    // Hop classes (the common case) are the hop number - 1: no table needed. The
    // ejection (the last step) or a link chosen without a branch: they alternate on
    // short routes, and the test mispredicted.
    uint32_t next = queue.next_base + port * class_bytes_;
    if_equal(port, eject, slot.ejection, sink_, output, next);
    slot.output = output;
    slot.next_queue = next;
  } else if (port == eject) {
    slot.output = slot.ejection;
    slot.next_queue = sink_;
  } else {
    slot.output = output;
    slot.next_queue = next_queue_by_table(q, output_id(output));
  }
  const bool was_empty = queue.head == kNil;  // (tail is stale then: a grant leaves it)
  if (was_empty)
    queue.head = s;
  else
    slot_at(queue.tail).next = s;
  queue.tail = s;
  ++queue.occupancy;
  return was_empty && !queue.busy();
}

inline uint64_t Fabric::route(uint16_t src, uint16_t dst) {
  if (!packed_routes_) return uintptr_t(routing_.ports_to(dst));
  const uint64_t r = routes_[size_t(src) * endpoints_ + dst];
  return r != 0 ? r : pack_route(src, dst);
}

inline uint32_t Fabric::alloc_slot() {
  if (free_count_ == 0) [[unlikely]]
    return new_slot();
  return free_slots_[--free_count_];
}

[[gnu::always_inline]] inline Packet* Fabric::try_inject_from(uint16_t src, uint16_t dst,
                                                             uint64_t t) {
  if (src >= endpoints_ || dst >= endpoints_) [[unlikely]]
    refuse_injection(src, dst, t);
  if (!can_inject(src, t)) return nullptr;
  const bool crossbar = cfg_.topology == TopologyKind::crossbar;
  if (t < last_injection_[src] ||
      t + (crossbar ? cfg_.crossbar_latency : cfg_.routing_clocks) < now_) [[unlikely]]
    refuse_injection(src, dst, t);

  const uint32_t s = alloc_slot();
  Packet& payload = payload_at(s).p;
  payload.src = src;
  payload.dst = dst;
  payload.injected_at = t;
  Slot& slot = slot_at(s);
  slot.ejection = first_ejection_ + uint32_t(dst) * kOutputBytes;
  last_injection_[src] = t;
  ++stats_.injected;
  ++in_flight_;
  if (crossbar) {
    // Ideal network: no queue, no route; only the ejection port is contended.
    slot.ready = t;
    events_.push(t + cfg_.crossbar_latency, kCrossbarArrive, s);
    next_event_ = std::min(next_event_, t + cfg_.crossbar_latency);
    return &payload;
  }
  slot.ready = t + cfg_.routing_clocks;
  slot.route = route(src, dst);
  const uint32_t q = uint32_t(src) * kQueueBytes;
  if (default_timing_ ? append<DefaultTiming>(q, s) : append<AnyTiming>(q, s)) {
    events_.push(slot.ready, kHeadReady, q);
    next_event_ = std::min(next_event_, slot.ready);
  }
  return &payload;
}

}  // namespace emx::net
