// A FIFO in a vector that keeps its storage (a std::deque allocates and frees a block
// every few items): the items from `head` on; emptied whenever it drains, compacted when
// a long run leaves more dead items than live ones. For the per-packet queues of the PEs
// and their output ports.
#pragma once
#include <cstddef>
#include <vector>

namespace emx::pe {

template <class T>
struct Fifo {
  std::vector<T> items;
  size_t head = 0;
  size_t size() const { return items.size() - head; }
  bool empty() const { return items.size() == head; }
  T& front() { return items[head]; }
  const T& front() const { return items[head]; }
  void push_back(const T& v) { items.push_back(v); }
  void pop_front() {
    if (++head == items.size()) {
      items.clear();
      head = 0;
    } else if (head >= 64 && 2 * head >= items.size()) {
      items.erase(items.begin(), items.begin() + std::ptrdiff_t(head));
      head = 0;
    }
  }
  typename std::vector<T>::const_iterator begin() const { return items.begin() + std::ptrdiff_t(head); }
  typename std::vector<T>::const_iterator end() const { return items.end(); }
};

}  // namespace emx::pe
