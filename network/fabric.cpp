#include "network/fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace emx::net {

// Whether every route fits Slot::route packed: ports 0..14 (15 is the ejection), at most
// 15 links and the ejection.
static bool packable(const Topology& topology, const Routing& routing) {
  for (uint32_t n = 0; n < topology.node_count(); ++n)
    if (topology.out_degree(n) >= 15) return false;
  return routing.diameter() < 16;
}

Fabric::Fabric(const NetworkConfig& cfg, uint32_t pe_count)
    : cfg_(cfg),
      topology_(cfg, pe_count),
      routing_(topology_),
      endpoints_(topology_.endpoint_count()),
      links_(topology_.link_count()),
      classes_(routing_.classes()),
      endpoint_bytes_(endpoints_ * kQueueBytes),
      // (The queues and sink_ rounded up to whole lines.)
      output_base_((endpoints_ + links_ * classes_ + 2) / 2 * 2 * kQueueBytes),
      first_ejection_(output_base_ + links_ * kOutputBytes),
      class_bytes_(classes_ * kQueueBytes),
      link_clocks_(cfg.link_clocks()),
      head_delay_(cfg.switching == Switching::cut_through ? cfg.clocks_per_word
                                                          : cfg.link_clocks()),
      queue_count_(endpoints_ + links_ * classes_),
      output_count_(links_ + endpoints_),
      slot_base_(first_ejection_ + (endpoints_ + 2) * kOutputBytes),  // (+ the stand-ins)
      injection_up_(links_ + endpoints_),
      watch_up_(links_ + endpoints_ + 1),
      sink_(queue_count_ * kQueueBytes),
      ready_delay_(head_delay_ + cfg.routing_clocks),
      hop_classes_(routing_.scheme() == ClassScheme::hops),
      packed_routes_(packable(topology_, routing_)),
      default_timing_(cfg.clocks_per_word == DefaultTiming::cpw(*this) &&
                      cfg.link_clocks() == DefaultTiming::link(*this) &&
                      head_delay_ + cfg.routing_clocks == DefaultTiming::ready_delay(*this) &&
                      cfg.buffer_packets == DefaultTiming::buffer(*this) && hop_classes_ &&
                      packed_routes_),
      prefetch_(endpoints_ >= kPrefetchEndpoints),
      events_(std::max<uint64_t>(cfg.link_clocks() + cfg.routing_clocks + head_delay_,
                                 std::min(cfg.crossbar_latency, 4096u))) {
  if (topology_.node_count() > UINT16_MAX || uint64_t(links_) + endpoints_ + 2 > UINT16_MAX ||
      (endpoints_ + uint64_t(links_) * classes_ + 2) * kQueueBytes +
              (uint64_t(links_) + endpoints_ + 2) * kOutputBytes >= kNil)
    throw std::logic_error("network too large for 16-bit node and link numbers");
  records_.resize(slot_base_ / sizeof(Line));
  for (uint32_t q = 0; q <= queue_count_; ++q) new (&queue_at(q * kQueueBytes)) Queue();  // (sink_)
  for (uint32_t o = 0; o < output_count_ + 2; ++o) new (&output_at(output_offset(o))) Output();
  output_at(output_offset(injection_up_)).busy_until = kNever;
  output_at(output_offset(watch_up_)).waiting = 1;  // (and busy_until 0: idle)
  bound_.assign(queue_count_, 0);
  bound_generation_.assign(queue_count_, 0);
  for (uint32_t e = 0; e < endpoints_; ++e) {
    Queue& q = queue_at(e * kQueueBytes);
    q.node = uint16_t(topology_.endpoint_node(e));
    const uint32_t first_link = topology_.first_link(q.node);
    q.first_output = output_offset(first_link);
    q.next_base = link_queue(first_link, 0) * kQueueBytes;
    q.upstream = uint16_t(injection_up_);
  }
  for (uint32_t l = 0; l < links_; ++l)
    for (uint32_t c = 0; c < classes_; ++c) {
      Queue& q = queue_at(link_queue(l, c) * kQueueBytes);
      q.node = uint16_t(topology_.link(l).to);
      const uint32_t first_link = topology_.first_link(q.node);
      q.first_output = output_offset(first_link);
      q.upstream = uint16_t(l);
      // (The last class's: never used.)
      q.next_base = link_queue(first_link, c + 1) * kQueueBytes;
    }
  // (Unpacked routes keep their hop count above the table's address: Slot::route.)
  if (!packed_routes_)
    for (uint32_t e = 0; e < endpoints_; ++e)
      if (uintptr_t(routing_.ports_to(e)) >= kRouteHops)
        throw std::logic_error("network: routing table above 2^48 (Slot::route)");
  if (packed_routes_) {
    routes_.reset(static_cast<uint64_t*>(std::calloc(size_t(endpoints_) * endpoints_, 8)));
    if (!routes_) throw std::bad_alloc();
  }
  last_injection_.assign(endpoints_, 0);
  crossbar_next_.assign(endpoints_, 0);
  stats_.links.resize(links_);
  stats_.ejection.resize(endpoints_);
  // Working sizes under saturation, so the hot loop does not grow vectors.
  const size_t packets = size_t(endpoints_) * cfg.injection_queue_packets +
                         size_t(links_) * cfg.buffer_packets * std::min(classes_, 4u);
  records_.reserve(records_.size() + packets / 2 + 1);
  packets_.reserve(packets);
  payload_bias_ = uintptr_t(packets_.data()) - 2 * uintptr_t(slot_base_);
  free_slots_.reserve(packets);
  events_.reserve(packets + 64);
  dirty_.assign(output_count_ + 1, 0);  // (+1: marking stores before it counts)
  dirty_end_ = dirty_.data();
  releases_.assign(output_count_ + 1, 0);  // (+1: start_transfer stores before it counts)
  started_.assign(endpoints_, 0);  // one per endpoint at most (an entry ends the watch)
  // A clock's grants are needed until ready_delay_ or link_clocks later, so a ring of
  // lists just beyond both (4 by default): a list reused every few clocks stays in cache,
  // where one per wheel bucket (64) meant a cold line or two per clock in the machine.
  size_t rows = 1;
  while (rows <= std::max(ready_delay_, link_clocks_)) rows *= 2;
  const size_t row_size = output_count_;
  grants_.resize(rows * row_size);
  heads_.resize(rows * row_size);
  rows_.resize(rows);
  for (uint32_t row = 0; row < rows; ++row) {
    rows_[row].grants = rows_[row].grants_end = grants_.data() + row * row_size;
    rows_[row].heads = rows_[row].heads_end = heads_.data() + row * row_size;
  }
  grants_mask_ = rows - 1;
  spill_.resize(output_count_);
}

// The route from src to dst packed (Slot::route), kept in routes_. (Never 0: it ends
// with the ejection's 15.)
uint64_t Fabric::pack_route(uint16_t src, uint16_t dst) {
  uint64_t r = 0;
  uint32_t node = topology_.endpoint_node(src);
  for (uint32_t shift = 0;; shift += 4) {
    const uint32_t port = routing_.next_port(node, dst);
    if (port == Routing::kEject) {
      r |= uint64_t(15) << shift;
      break;
    }
    r |= uint64_t(port) << shift;
    node = topology_.link(topology_.first_link(node) + port).to;
  }
  routes_[size_t(src) * endpoints_ + dst] = r;
  return r;
}

uint64_t Fabric::idle_latency(uint32_t src, uint32_t dst) const {
  if (cfg_.topology == TopologyKind::crossbar) return cfg_.crossbar_latency;
  const uint64_t hops = routing_.hops(src, dst);
  return hops * (cfg_.routing_clocks + head_delay_) + cfg_.routing_clocks + link_clocks_;
}

// ---- queues and outputs ----
//
// The per-hop functions below are forced inline into advance_to: called a few times per
// hop each, their call overhead (saving registers, reloading members) cost about as much
// as their work.
#define EMX_NET_HOT [[gnu::always_inline]] inline

// The new head of queue q (offset) asks for its output now, or at its ready time.
EMX_NET_HOT void Fabric::schedule_head(uint32_t q, uint64_t now, uint32_t*& marked) {
  const uint64_t ready = slot_at(queue_at(q).head).ready;
  if (ready <= now)
    request_output(q, marked);
  else
    events_.push(ready, kHeadReady, q);  // (an injection may lie far ahead)
}

// Enters the queue's (ready) head packet as a waiter of the output its route takes.
EMX_NET_HOT void Fabric::request_output(uint32_t q, uint32_t*& marked) {
  const Slot& head = slot_at(queue_at(q).head);
  Waiter w;
  w.ready = head.ready;
  w.queue = q;
  w.next = head.next_queue;
  request(head.output, w, marked);
}

// The request of the packet that a grant moved into an idle queue, at its ready time.
EMX_NET_HOT void Fabric::request_new_head(const NewHead& h, uint64_t now, uint32_t*& marked) {
  Waiter w;
  std::memcpy(&w, &h, 8);  // next and queue, as one move
  w.ready = now;           // ready now: the grant's clock + ready_delay_
  request(h.output, w, marked);
}

// Enters waiter w (a ready queue head) at `output` (offset): at the end, the waiters
// being unordered (arbitrate picks the oldest eligible). A sorted insertion mispredicted
// under contention: a head that waited upstream is often older than some waiters.
EMX_NET_HOT void Fabric::request(uint32_t output, const Waiter& w, uint32_t*& marked) {
  Output& out = output_at(output);
  const uint32_t n = out.waiting;
  if ((n < kInlineWaiters) & !out.spilled) [[likely]] {
    // Field by field: the caller has just built w, and a copy as one 16-byte load
    // from its narrower stores stalls (no store forwarding; radix_fine 6 % slower).
    Waiter& to = out.inline_waiters[n];
    to.next = w.next;
    to.queue = w.queue;
    to.ready = w.ready;
  } else {
    spill_waiter(output, w);
  }
  out.waiting = n + 1;
  // mark_dirty, knowing it has a waiter now: without a branch (whether the output is
  // busy or marked already depends on the traffic).
  *marked = output;
  marked += !out.held;
  out.held = true;
}

// A waiter beyond the inline ones: all of them to spill_ (rare: a hot output under
// saturation).
void Fabric::spill_waiter(uint32_t output, const Waiter& w) {
  Output& out = output_at(output);
  std::vector<Waiter>& spill = spill_[output_id(output)];
  if (!out.spilled) spill.assign(out.inline_waiters, out.inline_waiters + kInlineWaiters);
  out.spilled = true;
  spill.push_back(w);
}

// Only an idle output with waiters can grant anything; one that gets waiters or becomes
// idle later in this clock is marked again then. Without branches: which way it goes
// depends on the traffic, and mispredictions were a good part of the cost.
EMX_NET_HOT void Fabric::mark_dirty(uint32_t output, uint32_t*& marked) {
  Output& out = output_at(output);
  const bool mark = !out.held & (out.waiting != 0);
  *marked = output;
  marked += mark;
  out.held |= mark;
}

// The waiter of ws[0, count) that gets the output: the oldest (Waiter::before) whose
// buffer downstream has room, or kNil if none has. Without branches in the loop (which
// waiters are blocked depends on the traffic): a blocked waiter's key made the largest
// ready time, the oldest kept by conditional moves. (Keys are unique: the pick is the
// one a scan in arbitration order would stop at.)
template <class T>
EMX_NET_HOT uint32_t Fabric::pick_waiter(const Waiter* ws, uint32_t count, uint64_t now) const {
  uint64_t best_ready = kNever;
  uint32_t best_queue = kNil, at = kNil;
  const auto consider = [&](uint32_t k) __attribute__((always_inline)) {
    const Waiter& w = ws[k];
    // ready | all ones when blocked (kNever): never older than an eligible waiter.
    const uint64_t ready = w.ready | (uint64_t(0) - uint64_t(full<T>(w.next, now)));
    // (ready, queue) < (best_ready, best_queue): a 128-bit compare, a subtraction's borrow.
    const unsigned __int128 key = (unsigned __int128)ready << 64 | w.queue;
    const unsigned __int128 best = (unsigned __int128)best_ready << 64 | best_queue;
    const bool older = key < best;
    best_ready = older ? ready : best_ready;
    best_queue = older ? w.queue : best_queue;
    at = older ? k : at;
  };
  // (count >= 2: the first two without a loop test, whose exit mispredicted as often as
  // the count changed.)
  consider(0);
  consider(1);
  for (uint32_t k = 2; k < count; ++k) consider(k);
  return best_ready == kNever ? kNil : at;
}

// Grants a free output to the oldest waiting packet that has a slot in its next buffer.
// A packet whose buffer class is full downstream does not hold up the others: that is
// what keeps the (link, class) dependencies acyclic, so the network deadlock-free.
// Only for a marked output: it is idle and has a waiter (it is marked only so, and only
// a grant, here, makes it busy or takes a waiter; each is marked once per clock).
// The waiters are unordered: with more than one, all are looked at, without branches
// (pick_waiter), and the last one fills the grant's place.
template <class T>
EMX_NET_HOT void Fabric::arbitrate(uint32_t output, uint64_t now, ClockRows& rows) {
  Output& out = output_at(output);
  const uint32_t n = out.waiting;
  Waiter* ws = out.inline_waiters;
  if (n == 1) {  // the commonest case below saturation: nothing to compare, nothing to move
    const Waiter w = ws[0];  // (never spilled)
    if (full<T>(w.next, now)) {  // (never for an ejection: sink_)
      out.held = false;  // (no grant: the mark ends)
      return;
    }
    out.waiting = 0;
    start_transfer<T>(output, w, now, rows);
    return;
  }
  if (out.spilled) [[unlikely]] {
    arbitrate_spilled<T>(output, now, rows);
    return;
  }
  const uint32_t i = pick_waiter<T>(ws, n, now);
  if (i == kNil) {
    out.held = false;
    return;
  }
  const Waiter w = ws[i];
  ws[i] = ws[n - 1];
  out.waiting = n - 1;
  start_transfer<T>(output, w, now, rows);
}

// arbitrate for an output whose waiters are in spill_; back inline once few again.
template <class T>
[[gnu::noinline]] void Fabric::arbitrate_spilled(uint32_t output, uint64_t now, ClockRows& rows) {
  Output& out = output_at(output);
  const uint32_t n = out.waiting;
  std::vector<Waiter>& spill = spill_[output_id(output)];
  const uint32_t i = pick_waiter<T>(spill.data(), n, now);
  if (i == kNil) {
    out.held = false;
    return;
  }
  const Waiter w = spill[i];
  spill[i] = spill.back();
  spill.pop_back();
  out.waiting = n - 1;
  if (n - 1 <= kUnspill) {  // few enough again: back in the output's lines
    std::copy(spill.begin(), spill.end(), out.inline_waiters);
    spill.clear();
    out.spilled = false;
  }
  start_transfer<T>(output, w, now, rows);
}

template <class T>
EMX_NET_HOT void Fabric::start_transfer(uint32_t output, const Waiter& w, uint64_t now,
                                        ClockRows& rows) {
  const uint32_t q = w.queue;
  Queue& src = queue_at(q);
  const uint32_t s = src.head;
  Slot& slot = slot_at(s);
  src.head = slot.next;

  Output& out = output_at(output);
  const uint64_t done = now + T::link(*this);
  out.busy_until = done;  // (held stays set: busy now)
  ++out.packets;
  if (T::traced && on_hop_) [[unlikely]] on_hop_(payload_at(s).p, output_id(output), now, done);
  // The clock's list of grants (its kTransfersDone: arbitrate_marked).
  // (Field by field: a record built on the stack and copied whole showed store-forwarding
  // stalls in profiles.)
  Grant& grant = *rows.grants++;
  grant.output = output;
  grant.source = q;
  // Paired with its grant (ready_delay_ == link_clocks_, never with the compiled-in
  // timing): the new head, if any.
  const bool paired = T::ready_delay(*this) == T::link(*this);
  NewHead* paired_head = nullptr;
  if (paired) {
    paired_head = rows.heads++;
    paired_head->queue = kNil;
  }
  // An injection queue frees its slot when the transfer ends. A link queue's upstream
  // link may use the slot from `release` (the first word gone) on: it must arbitrate
  // then. If it is busy until then anyway, the end of its transfer will; else a wake-up.
  // Both kinds alike, without a test of the kind (injections and link hops alternate on
  // short routes: it mispredicted): an injection queue's release is `done`, computed,
  // and its "upstream" a stand-in (injection_up_, busy for ever: it asks for nothing;
  // watch_up_ while watched: listed, schedule_releases tells the watcher). Whether a
  // wake-up is needed is decided without a branch too: it depends on the traffic.
  const uint64_t release = now + T::cpw(*this);
  const bool injection = q < endpoint_bytes_;  // (a flag, not a jump: see above)
  src.release_at = release + uint64_t(injection) * (T::link(*this) - T::cpw(*this));
  const Output& up = output_at(output_offset(src.upstream));
  const bool free_up = up.busy_until < release;  // (idle, or busy until before `release`)
  if (T::cpw(*this) == 1) {
    // The common case of schedule_releases' skipped wake-up decided now: an idle
    // output with no waiter (with one clock per word, busy_until < release says
    // idle). (Not marked either: a marked output has a waiter until its grant, which
    // makes it busy. Its clock is kept pending once per clock, by schedule_releases:
    // the same for every transfer started now.) The entry is written in any case, and
    // counted if it is one (room: at most one per output and clock).
    const bool waiting = up.waiting != 0;
    releases_[release_count_] = q;  // (the queue: its output offset kept cost a move per hop)
    release_count_ += free_up & waiting;
    touch_releases_ |= free_up & !waiting;
  } else if (free_up) {
    releases_[release_count_++] = q;
  }

  if (output < first_ejection_) {
    // The slot downstream is taken now (credit-based flow control); the packet may be
    // routed there once its head (cut-through) or tail (store-and-forward) has arrived.
    if (!T::packed(*this)) slot.route += kRouteHops;  // (packed: the route consumed says it)
    slot.ready = now + T::ready_delay(*this);
    if (append<T>(w.next, s)) {
      // Its kHeadReady: ready_delay_ after this clock, like those of the other packets
      // that enter an idle queue this clock, in the same order: one kHeadsReady event
      // for them all (arbitrate_marked), which runs through the clock's list of new
      // heads (its row's heads), not its grants, most of which made none. When that is the
      // clock the transfers end (cut-through with routing_clocks = clocks_per_word),
      // their events alternate: kTransfersDone handles both, from the grant. (append has
      // just set the packet's next step.)
      if (paired) {
        paired_head->queue = w.next;
        paired_head->next = slot.next_queue;
        paired_head->output = slot.output;
      } else {
        NewHead& head = *rows.heads++;
        head.queue = w.next;
        head.next = slot.next_queue;
        head.output = slot.output;
      }
      // Its request (ready_delay_ clocks on) writes into that output first thing, and
      // nothing touches the output before: fetched now, on every network (the records of
      // even 64 endpoints outgrow the host's first-level cache between the clocks;
      // bench_stream at 80 PEs 0.91x of the CPU).
      __builtin_prefetch(&output_at(slot.output), 1);
    }
  } else {
    out.slot = s;
    if (arrival_hint_) [[unlikely]] {
      // This payload is fetched now and handed over at the next ejection's start, if its
      // transfer has not ended by then (a hint must not wait for the load).
      __builtin_prefetch(&payload_at(s));
      if (now < hinted_until_) arrival_hint_(arrival_hint_ctx_, payload_at(hinted_slot_).p);
      hinted_slot_ = s;
      hinted_until_ = done;
    }
  }
}

EMX_NET_HOT void Fabric::transfer_done(const Grant& g, uint64_t now, uint32_t*& marked) {
  const uint32_t output = g.output, q = g.source;
  Output& out = output_at(output);
  // Idle from now: mark_dirty, knowing it was busy until now, so not marked yet (held
  // stays set, now for the mark), without a branch (whether it has a waiter depends on
  // the traffic).
  const bool waiting = out.waiting != 0;
  *marked = output;
  marked += waiting;
  out.held = waiting;
  Queue& src = queue_at(q);
  --src.occupancy;
  src.release_at = kNever;
  if (src.head != kNil) schedule_head(q, now, marked);
  if (output >= first_ejection_) {
    const uint32_t s = out.slot;
    out.slot = kNil;  // (no longer arriving)
    deliver(s, now);
  }
}

// The wake-ups for the slots that the transfers started this clock free upstream a word
// later (start_transfer lists them): each marks its upstream output to arbitrate then.
// Only the arbitration pushes into that clock's bucket now (the transfers end, and their
// packets become ready, later), so pushing them after it keeps the events' order. A
// wake-up that will find nothing to do is left out, its clock kept pending (touch) so
// that next_event_time and earliest_slot_free see the same times: that is when the
// upstream output is busy beyond it (its own transfer end arbitrates it, an event
// scheduled before this one), or, with one clock per word, when it is idle with no
// waiter (any waiter arriving at that clock marks it itself). About 99 % of them at
// moderate load.
// All at one clock: appended to its bucket, whose bit is set once (by an event or for a
// skipped one: touching a clock again changes nothing).
// A watched injection queue whose transfer out started (its stand-in upstream, watch_up_)
// is listed too: its watcher is told (take_injection_starts), in the order of the grants,
// and it needs no wake-up (nor the clock kept pending for it).
template <class T>
void Fabric::schedule_releases(uint64_t now) {
  const uint64_t release = now + T::cpw(*this);
  if (release_count_ == 0 && !touch_releases_) return;
  std::vector<uint64_t>& bucket = events_.bucket(release);
  bool touch = touch_releases_;
  for (const uint32_t *q = releases_.data(), *end = q + release_count_; q != end; ++q) {
    Queue& queue = queue_at(*q);
    if (queue.upstream == watch_up_) [[unlikely]] {
      queue.upstream = uint16_t(injection_up_);  // (no longer watched)
      started_[started_count_++] = *q / kQueueBytes;
      continue;
    }
    touch = true;
    const uint32_t upstream = output_offset(queue.upstream);
    const Output& up = output_at(upstream);
    if (up.busy_until < release && (T::cpw(*this) != 1 || up.waiting != 0))
      bucket.push_back(EventQueue::event(kRelease, upstream));
  }
  if (touch) events_.touch(release);
  release_count_ = 0;
  touch_releases_ = false;
}

// ---- injection ----

uint64_t Fabric::earliest_slot_free(uint32_t endpoint, uint64_t t) const {
  if (can_inject(endpoint, t)) return t;
  if (const Queue& q = queue_at(endpoint * kQueueBytes); q.busy()) return q.release_at;
  // The head has yet to start its transfer out, then takes a whole transfer to leave.
  const uint64_t next = events_.next_time();
  if (next == UINT64_MAX) return UINT64_MAX;
  return std::max(t + 1, start_bound(endpoint * kQueueBytes, next) + link_clocks_);
}

// A transfer starts in an arbitration, which only an event can trigger (an injection only
// adds a waiter, it never makes one of the others eligible): not before `base`, the next
// event. It also needs the head ready, its output free, and for a link a slot in the
// buffer at the far end. The waiters before it in arbitration order that need the same
// buffer (at an ejection port, which refuses nobody: all of them) go first, a transfer
// each, and each takes one of that buffer's slots, which free at least a transfer apart.
// A full buffer frees one a word after its head starts leaving, which is bounded the
// same way, and so on along the chain of full buffers ahead:
//   start(q_i) >= max(ready_i, max(output_free_i, start(q_i+1) + cpw) + ahead_i x L).
// The chain is acyclic (a cycle of full buffers waiting for each other would be a
// deadlock) and ends at a buffer with room or a head already leaving. Under saturation
// it is long, and the bound far beyond the next event, which saves a stalled sender most
// of its retries. Results are kept per buffer until the network moves (generation_):
// the chains of stalled senders overlap.
uint64_t Fabric::start_bound(uint32_t q, uint64_t base) const {
  chain_.clear();
  uint64_t slot = 0;  // when the buffer after the chain's last may have room
  for (;;) {
    const Slot& head = slot_at(queue_at(q).head);
    const Output& out = output_at(head.output);
    const uint32_t next = head.next_queue;
    const Waiter self{next, q, head.ready};
    uint32_t ahead = 0;
    const Waiter* ws = waiters(head.output);
    for (uint32_t k = 0; k < out.waiting; ++k) ahead += ws[k].before(self) & (ws[k].next == next);
    chain_.push_back({q / kQueueBytes, ahead, head.ready,
                      // (Idle, its busy_until is at most now(): not above base.)
                      std::max(base, out.busy_until)});
    if (next == kNil || !full<AnyTiming>(next, base)) break;
    if (queue_at(next).busy()) {
      slot = queue_at(next).release_at;
      break;
    }
    if (bound_generation_[next / kQueueBytes] == generation_) {
      slot = bound_[next / kQueueBytes] + cfg_.clocks_per_word;
      break;
    }
    if (chain_.size() > queue_count_) throw std::logic_error("start_bound: cyclic wait");
    q = next;
  }
  uint64_t start = 0;
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
    start = std::max(it->ready, std::max(it->output_free, slot) + it->ahead * link_clocks_);
    bound_[it->queue] = start;
    bound_generation_[it->queue] = generation_;
    slot = start + cfg_.clocks_per_word;
  }
  return start;
}

// inject_from's contract broken: which rule, in words (out of line: the checks that pass
// then cost a few instructions, not registers saved for the messages' arguments).
[[gnu::noinline, gnu::cold]] void Fabric::refuse_injection(uint16_t src, uint16_t dst,
                                                             uint64_t t) const {
  if (src >= endpoints_ || dst >= endpoints_)
    throw std::logic_error(fmt::format("inject: endpoint out of range ({} -> {}, {} endpoints)",
                                       src, dst, endpoints_));
  if (t + (cfg_.topology == TopologyKind::crossbar ? cfg_.crossbar_latency : cfg_.routing_clocks) <
      now_)
    throw std::logic_error(
        fmt::format("inject at clock {}: the network has already run to clock {}", t, now_));
  if (t < last_injection_[src])
    throw std::logic_error(fmt::format("inject at clock {}: endpoint {} already sent at clock {}",
                                       t, src, last_injection_[src]));
  throw std::logic_error(
      fmt::format("inject at clock {}: endpoint {}'s injection queue is full", t, src));
}

// (Out of line: rare, once the network has held its most packets.)
uint32_t Fabric::new_slot() {
  if (slot_base_ + (uint64_t(slot_count_) + 1) * kSlotBytes >= kNil)
    throw std::runtime_error("network: too many packets in flight for 32-bit slot offsets");
  const uint32_t s = slot_base_ + slot_count_ * kSlotBytes;
  if (slot_count_ % 2 == 0) records_.emplace_back();  // (two slots a line)
  new (&slot_at(s)) Slot();
  packets_.emplace_back();
  free_slots_.resize(slot_count_ + 1);
  payload_bias_ = uintptr_t(packets_.data()) - 2 * uintptr_t(slot_base_);
  ++slot_count_;
  return s;
}

// ---- crossbar ----

void Fabric::crossbar_arrive(uint32_t s, uint64_t now) {
  const uint32_t dst = payload_at(s).p.dst;
  const uint64_t arrival = std::max(now, crossbar_next_[dst]);
  crossbar_next_[dst] = arrival + link_clocks_;
  ++output_at(output_offset(links_ + dst)).packets;
  if (on_hop_) [[unlikely]] on_hop_(payload_at(s).p, links_ + dst, arrival - std::min(arrival, uint64_t{link_clocks_}), arrival);
  if (arrival == now)
    deliver(s, now);
  else
    events_.push(arrival, kCrossbarDeliver, s);
}

// The clock's crossbar arrivals, by source endpoint (one source's in the order it sent
// them), whatever order the host's PEs injected them in.
void Fabric::crossbar_arrivals(uint64_t now) {
  std::sort(crossbar_due_.begin(), crossbar_due_.end());
  for (const uint64_t a : crossbar_due_) crossbar_arrive(uint32_t(a), now);
  crossbar_due_.clear();
}

// ---- time ----

const FabricStats& Fabric::stats() const {
  stats_.delivered = delivered();
  // The links crossed by delivered packets: all link transfers less those of the packets
  // in flight (their slots' hops: all slots' less the free ones', whose stale counts
  // cancel). So a delivery does not read its slot for them.
  uint64_t crossed = 0;
  for (uint32_t o = 0; o < output_count_; ++o) {
    PortStats& ps = o < links_ ? stats_.links[o] : stats_.ejection[o - links_];
    ps.packets = output_at(output_offset(o)).packets;
    ps.busy_clocks = ps.packets * link_clocks_;
    if (o < links_) crossed += ps.packets;
  }
  stats_.hops_sum = crossed - in_flight_hops();
  return stats_;
}

// The links crossed so far by the packets in flight. With packed routes a packet's slot
// counts no hops: it has used one route step at its injection and one per link, so its
// hops are the steps gone from its route, less one (a route's steps are 4 bits each, the
// last one 15: its length is its bit length / 4).
uint64_t Fabric::in_flight_hops() const {
  if (cfg_.topology == TopologyKind::crossbar) return 0;  // (no links)
  std::vector<bool> free(slot_count_);
  for (uint32_t i = 0; i < free_count_; ++i) free[(free_slots_[i] - slot_base_) / kSlotBytes] = true;
  const auto steps = [](uint64_t route) { return route ? (64 - __builtin_clzll(route)) / 4 : 0; };
  uint64_t hops = 0;
  for (uint32_t i = 0; i < slot_count_; ++i) {
    if (free[i]) continue;
    const uint32_t s = slot_base_ + i * kSlotBytes;
    if (!packed_routes_) {
      hops += slot_at(s).route / kRouteHops;
      continue;
    }
    const Packet& p = payload_at(s).p;
    hops += steps(routes_[size_t(p.src) * endpoints_ + p.dst]) - steps(slot_at(s).route) - 1;
  }
  return hops;
}

EMX_NET_HOT void Fabric::deliver(uint32_t s, uint64_t now) {
  // Copied out and the slot freed first: the callback may inject, which may grow the
  // slots (records_ and packets_).
  const Packet packet = payload_at(s).p;
  const uint64_t latency = now - packet.injected_at;
  stats_.latency_sum += latency;
  stats_.latency_max = std::max(stats_.latency_max, latency);
  free_slots_[free_count_++] = s;
  --in_flight_;
  // A delivery callback may ask for earliest_slot_free mid-clock: its cached bounds must
  // not outlive the events before. (Only a callback or a caller between two advance_to
  // calls can ask, so a new generation per callback and per clock is enough.)
  ++generation_;
  if (deliver_fn_) deliver_fn_(deliver_ctx_, packet, now);
}

// LargeTiming: what the transfer ends after g (up to end) will touch first: the output
// and the source queue kArbitrateAhead on (prefetch_arbitration).
EMX_NET_HOT void Fabric::prefetch_transfer_end(const Grant* g, const Grant* end) const {
  if (g + kArbitrateAhead < end) {
    __builtin_prefetch(&output_at(g[kArbitrateAhead].output), 1);
    __builtin_prefetch(&queue_at(g[kArbitrateAhead].source), 1);
  }
}

// Runs the clock's events, in order. Inline in run_until's loop (a call of its own per
// clock cost more than it saved; arbitrate_marked is the other way round).
template <class T>
EMX_NET_HOT void Fabric::run_events(uint64_t now) {
  // The marked list's end in a local for the clock's events: the member, which the
  // compiler cannot keep in a register across the stores to the records (nor the rare
  // calls), cost a load and a store per mark. (A delivery callback never marks.)
  uint32_t* marked = dirty_end_;
  events_.run_clock(now, [this, now, &marked](const EventQueue::Event& e) __attribute__((always_inline)) {
    // The commonest kind first, tested alone: cheaper than the jump through the table.
    if (e.kind == kHeadReady) [[likely]] {
      request_output(e.target, marked);
      return;
    }
    switch (e.kind) {
      case kHeadReady: break;
      case kRelease: mark_dirty(e.target, marked); break;
      case kTransfersDone:
        if (T::ready_delay(*this) == T::link(*this)) {  // (tested once: reloaded per grant otherwise)
          const Row& r = rows_[e.target];
          const NewHead* h = r.heads;
          for (const Grant *g = r.grants, *end = r.grants_end; g != end; ++g, ++h) {
            transfer_done(*g, now, marked);
            if (h->queue != kNil) request_new_head(*h, now, marked);
          }
        } else {
          const Row& r = rows_[e.target];
          for (const Grant *g = r.grants, *end = r.grants_end; g != end; ++g) {
            if (T::prefetch) prefetch_transfer_end(g, end);
            transfer_done(*g, now, marked);
          }
        }
        break;
      case kHeadsReady: {
        const Row& r = rows_[e.target];
        for (const NewHead *h = r.heads, *end = r.heads_end; h != end; ++h) {
          // (Fetched at the grant too, three clocks ago; on a large network that line
          // has often left the first-level cache since: without this, 1.04x the CPU.)
          if (T::prefetch && h + kArbitrateAhead < end)
            __builtin_prefetch(&output_at(h[kArbitrateAhead].output), 1);
          request_new_head(*h, now, marked);
        }
        break;
      }
      case kCrossbarArrive:
        // src, then its place in the clock's arrivals (a few per endpoint at most:
        // fewer than 2^16), then the slot: a plain sort orders them as a stable sort by
        // source would, without its buffer.
        crossbar_due_.push_back(uint64_t(payload_at(e.target).p.src) << 48 |
                                uint64_t(crossbar_due_.size()) << 32 | e.target);
        break;
      case kCrossbarDeliver: deliver(e.target, now); break;
    }
  });
  dirty_end_ = marked;
}

// LargeTiming: what the arbitration of the marked outputs after d (up to end) will touch,
// in two stages, the second from the line the first fetched: the output kArbitrateAhead
// on, then, two on, the queues of its first inline waiter (where it is, and the buffer it
// needs a slot in downstream). Only fetches: a waiter that does not get the output, or a
// stale copy of one, costs a useless line at most. (A third stage, the queues' head and tail
// slots and the upstream output one on, doubled the instructions added and was no
// faster: docs/performance.md, "Where a hop's extra cost at 1024 PEs comes from".)
EMX_NET_HOT void Fabric::prefetch_arbitration(const uint32_t* d, const uint32_t* end) const {
  if (d + kArbitrateAhead < end) __builtin_prefetch(&output_at(d[kArbitrateAhead]), 1);
  if (d + 2 < end) {
    const Waiter& w = output_at(d[2]).inline_waiters[0];
    __builtin_prefetch(&queue_at(w.queue), 1);
    __builtin_prefetch(&queue_at(w.next), 1);
  }
}

// Arbitrates, once all of a clock's requests and releases are in, the outputs they marked
// (a grant marks nothing, so the list does not change meanwhile). A function of its own,
// called once per clock: apart from the event handlers, the compiler keeps the hot values
// of a grant in registers (inlined into advance_to, it spilled them to the stack).
//
// The transfers that start in one clock all end link_clocks later, one after the other in
// the order they started: one kTransfersDone event for the clock's list of grants, and
// one kHeadsReady for the packets they moved into an idle queue. Each is pushed after the
// arbitration, where the first one's own event would have gone: nothing else is pushed
// into those clocks' buckets meanwhile (the arbitration pushes nothing else, and the
// release wake-ups that follow are a word later, before both), so every transfer end and
// new head keeps its place in the order.
template <class T>
[[gnu::noinline]] void Fabric::arbitrate_marked(uint64_t now) {
  const uint32_t row = uint32_t(now & grants_mask_);
  Row& r = rows_[row];
  ClockRows rows{r.grants, r.heads};
  // (The list's start and end in locals: the grants' stores might alias them, so the
  // compiler reloaded both per output.)
  for (const uint32_t *d = dirty_.data(), *end = dirty_end_; d != end; ++d) {
    if (T::prefetch) prefetch_arbitration(d, end);
    arbitrate<T>(*d, now, rows);
  }
  dirty_end_ = dirty_.data();
  if (rows.grants != r.grants) {
    r.grants_end = rows.grants;
    events_.push_near(now + T::link(*this), kTransfersDone, row);
  }
  if (T::ready_delay(*this) != T::link(*this) && rows.heads != r.heads) {  // (not paired)
    r.heads_end = rows.heads;
    events_.push_near(now + T::ready_delay(*this), kHeadsReady, row);
  }
}

template <class T>
[[gnu::noinline]] void Fabric::run_until(uint64_t t) {
  uint64_t now = next_event_;
  for (; now < t; now = events_.next_time()) {
    now_ = now;
    run_events<T>(now);
    if (!crossbar_due_.empty()) [[unlikely]] crossbar_arrivals(now);
    arbitrate_marked<T>(now);
    schedule_releases<T>(now);
    ++generation_;
  }
  next_event_ = now;
}

template void Fabric::run_until<Fabric::DefaultTiming>(uint64_t);
template void Fabric::run_until<Fabric::LargeTiming>(uint64_t);
template void Fabric::run_until<Fabric::AnyTiming>(uint64_t);

void Fabric::refuse_advance() const {
  throw std::logic_error("Fabric::advance_to called from a delivery callback");
}

void Fabric::report_deadlock() const {
  throw std::runtime_error(
      fmt::format("network deadlock at clock {}: {} packets cannot move", now_, in_flight_));
}

}  // namespace emx::net
