// A FIFO in a ring buffer whose capacity doubles when it fills: no allocation once it has
// grown to its working size (a std::deque allocates and frees a block every few items),
// and its few cache lines are reused round and round, so they tend to stay in the host's
// caches. 24 bytes, so that a PE's queues share a cache line with its other state. For
// the per-packet queues of the PEs and their output ports.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace emx::pe {

template <class T>
class Fifo {
 public:
  Fifo() = default;
  Fifo(Fifo&& o) noexcept { *this = std::move(o); }
  Fifo& operator=(Fifo&& o) noexcept {  // (o left empty, without a buffer)
    buf_ = std::move(o.buf_);
    head_ = std::exchange(o.head_, 0);
    size_ = std::exchange(o.size_, 0);
    mask_ = std::exchange(o.mask_, ~0u);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The k-th item from the front.
  T& operator[](size_t k) { return buf_[(head_ + k) & mask_]; }
  const T& operator[](size_t k) const { return buf_[(head_ + k) & mask_]; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  void push_back(const T& v) {
    if (size_ == mask_ + 1) grow();
    buf_[(head_ + size_++) & mask_] = v;
  }
  // push_back if that needs no growth (false: full, nothing done): a caller's path
  // without calls.
  bool push_back_in_place(const T& v) {
    if (size_ == mask_ + 1) return false;
    buf_[(head_ + size_++) & mask_] = v;
    return true;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  // Inserts v before the k-th item (k <= size()); meant for k near the back.
  void insert(size_t k, const T& v) {
    push_back(v);
    for (size_t i = size_ - 1; i > k; --i) (*this)[i] = (*this)[i - 1];
    (*this)[k] = v;
  }

 private:
  // (Out of line: rare, and its loop and allocation would cost every caller registers.)
  [[gnu::noinline]] void grow() {
    const uint32_t capacity = buf_ ? 2 * (mask_ + 1) : 8;
    std::unique_ptr<T[]> b(new T[capacity]);
    for (size_t k = 0; k < size_; ++k) b[k] = (*this)[k];
    buf_ = std::move(b);
    head_ = 0;
    mask_ = capacity - 1;
  }
  std::unique_ptr<T[]> buf_;
  // Without a buffer mask_ + 1 is 0: full (one test for both).
  uint32_t head_ = 0, size_ = 0, mask_ = ~0u;
};

}  // namespace emx::pe
