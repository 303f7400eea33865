#include "local_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace emx::mem {
namespace {

uint8_t* reserve(std::size_t n) {
  // MAP_NORESERVE + anonymous: zero-filled pages, committed by the kernel on first write.
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED)
    throw HostMemoryError("mmap of " + std::to_string(n) + " bytes failed: " + std::strerror(errno));
  return static_cast<uint8_t*>(p);
}

std::size_t resident(const uint8_t* p, std::size_t n) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((n + page - 1) / page);
  if (mincore(const_cast<uint8_t*>(p), n, v.data()) != 0) return 0;
  std::size_t count = 0;
  for (unsigned char c : v) count += c & 1;
  return count * page;
}

}  // namespace

LocalMemory::LocalMemory(uint32_t bytes)
    : size_(bytes), bytes_(reserve(bytes)), tags_(reserve(bytes / 4)) {}

LocalMemory::~LocalMemory() {
  munmap(bytes_, size_);
  munmap(tags_, size_ / 4);
}

std::size_t LocalMemory::resident_bytes() const {
  return resident(bytes_, size_) + resident(tags_, size_ / 4);
}

}  // namespace emx::mem
