// An optional value whose storage is left uninitialised while it is empty: what a
// PacketEffect holds. std::optional<T> of GCC clears its whole storage when constructed
// (a `rep stos` of the effect's 96 bytes per arriving packet, slow to start on the host);
// here only the flag is set, and emplace() builds the value in place.
#pragma once
#include <new>
#include <type_traits>

namespace emx::pe {

template <class T>
class EffectSlot {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>,
                "no destructor to run, copies are bytes");

 public:
  EffectSlot() {}
  EffectSlot(const EffectSlot& o) : has_(o.has_) {
    if (has_) new (&value_) T(o.value_);
  }
  EffectSlot& operator=(const EffectSlot& o) {
    has_ = o.has_;
    if (has_) new (&value_) T(o.value_);
    return *this;
  }

  explicit operator bool() const { return has_; }
  bool has_value() const { return has_; }
  T& emplace() {
    has_ = true;
    return *new (&value_) T();
  }
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  union {
    T value_;
  };
  bool has_ = false;
};

}  // namespace emx::pe
