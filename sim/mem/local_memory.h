// A PE's local memory: bytes plus 6 tag bits per 32-bit word (EMC-Y words are 38 bits).
// Host pages are reserved, not committed: a PE that never touches its memory costs
// (almost) nothing, so a 1024-PE machine fits in little host memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace emx::mem {

// The host refused to reserve the address space of a local memory (mmap failed: an
// address-space limit such as ulimit -v, or no overcommit). The message says why.
struct HostMemoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The first bytes of every local memory are a guard: any access there faults, which
// catches null-pointer dereferences in programs.
constexpr uint32_t kGuardBytes = 0x1000;
constexpr uint32_t kMaxBytes = 1u << 24;  // 22-bit word address = 16 MiB
constexpr uint8_t kTagMask = 0x3f;

// Host pages with a given content, for LocalMemory::map_shared (a memfd).
class SharedPages {
 public:
  SharedPages(const uint8_t* content, uint32_t len);  // valid() false if the host refused
  ~SharedPages();
  SharedPages(const SharedPages&) = delete;
  SharedPages& operator=(const SharedPages&) = delete;
  bool valid() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  uint32_t size() const { return len_; }

 private:
  int fd_ = -1;
  uint32_t len_ = 0;
};

class LocalMemory {
 public:
  explicit LocalMemory(uint32_t bytes);
  ~LocalMemory();
  LocalMemory(const LocalMemory&) = delete;
  LocalMemory& operator=(const LocalMemory&) = delete;

  uint32_t size() const { return size_; }
  uint8_t* bytes() { return bytes_; }
  const uint8_t* bytes() const { return bytes_; }

  // True when [addr, addr+len) lies inside memory and outside the guard.
  bool valid(uint32_t addr, uint32_t len) const {
    return addr >= kGuardBytes && len <= size_ && addr <= size_ - len;
  }

  uint8_t tag(uint32_t byte_addr) const { return tags_[byte_addr >> 2]; }
  const uint8_t* tag_bytes() const { return tags_; }  // one byte per word
  void set_tag(uint32_t byte_addr, uint8_t t) { tags_[byte_addr >> 2] = t & kTagMask; }

  // Inline: the memory unit reads and writes a word per packet.
  uint32_t read32(uint32_t addr) const {
    uint32_t v;
    std::memcpy(&v, bytes_ + addr, 4);
    return v;
  }
  void write32(uint32_t addr, uint32_t v) { std::memcpy(bytes_ + addr, &v, 4); }

  // Host pages actually backing this memory (for the memory-footprint statistics).
  std::size_t resident_bytes() const;

  // Pages [offset, offset + len) (page-aligned) become a private, copy-on-write mapping of
  // `pages` (SharedPages): what the PEs of a machine hold alike (the program's code) is
  // then held once on the host, and a write still changes this memory alone. False if
  // the host refused (the pages then stay as they are).
  bool map_shared(uint32_t offset, uint32_t len, const class SharedPages& pages);

 private:
  uint32_t size_;
  uint8_t* bytes_;
  uint8_t* tags_;
};

}  // namespace emx::mem
