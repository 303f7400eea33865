// A clock per endpoint (UINT64_MAX: none) and, at any time, the endpoint whose clock is
// earliest (the lowest endpoint among equal clocks): a tournament tree over the
// endpoints. For the output ports, which visit the PEs in (clock, endpoint) order: unlike
// a heap of (clock, endpoint) entries it holds no stale entries, its minimum is one load
// away, and an update walks one fixed path of log2(endpoints) nodes whose loads do not
// depend on each other.
#pragma once
#include <cstdint>
#include <vector>

namespace emx::machine {

class EarliestClock {
 public:
  explicit EarliestClock(unsigned endpoints) {
    while (leaves_ < endpoints) leaves_ *= 2;
    clock_.assign(2 * leaves_, UINT64_MAX);
    who_.assign(2 * leaves_, 0);
    for (unsigned ep = 0; ep < leaves_; ++ep) who_[leaves_ + ep] = static_cast<uint16_t>(ep);
    for (unsigned node = leaves_ - 1; node >= 1; --node) who_[node] = who_[2 * node];
  }

  uint64_t at(unsigned ep) const { return clock_[leaves_ + ep]; }
  unsigned first() const { return who_[1]; }
  uint64_t first_clock() const { return clock_[1]; }

  // set(ep, t) for a clock earlier than at(ep) (a packet pushed for an earlier clock):
  // the nodes whose (clock, endpoint) minimum it now is are the path's first few; above
  // the first it does not win, nothing changes. (Most pushes stop there after a node or
  // two; set walks the whole path.)
  void lower(unsigned ep, uint64_t t) {
    unsigned node = leaves_ + ep;
    clock_[node] = t;
    for (node /= 2; node >= 1; node /= 2) {
      const uint64_t c = clock_[node];
      if (c < t || (c == t && who_[node] < ep)) return;
      clock_[node] = t;
      who_[node] = static_cast<uint16_t>(ep);
    }
  }

  // Walks the whole path, with as few branches on the data as the compiler allows
  // (they mispredict).
  void set(unsigned ep, uint64_t t) {
    unsigned node = leaves_ + ep, w = ep;
    uint64_t c = t;
    clock_[node] = t;
    while (node > 1) {
      const unsigned sibling = node ^ 1;
      const uint64_t cs = clock_[sibling];
      // The left subtree's endpoints are the lower ones: it wins ties.
      const bool sibling_first = (cs < c) | ((cs == c) & !(sibling & 1));
      c = sibling_first ? cs : c;
      w = sibling_first ? who_[sibling] : w;
      node /= 2;
      clock_[node] = c;
      who_[node] = static_cast<uint16_t>(w);
    }
  }

 private:
  unsigned leaves_ = 2;
  // By node (root 1, children 2k and 2k + 1, endpoint e at leaf leaves_ + e): its
  // subtree's earliest clock and that endpoint.
  std::vector<uint64_t> clock_;
  std::vector<uint16_t> who_;
};

}  // namespace emx::machine
