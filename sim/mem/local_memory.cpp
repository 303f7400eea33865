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

SharedPages::SharedPages(const uint8_t* content, uint32_t len) : len_(len) {
  fd_ = memfd_create("emx-shared-pages", MFD_CLOEXEC);
  if (fd_ < 0) return;
  std::size_t done = 0;
  if (ftruncate(fd_, len) == 0)
    while (done < len) {
      const ssize_t n = pwrite(fd_, content + done, len - done, static_cast<off_t>(done));
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  if (done != len) {
    close(fd_);
    fd_ = -1;
  }
}

SharedPages::~SharedPages() {
  if (fd_ >= 0) close(fd_);  // the mappings keep the pages
}

bool LocalMemory::map_shared(uint32_t offset, uint32_t len, const SharedPages& pages) {
  if (!pages.valid() || len > pages.size() || offset > size_ || len > size_ - offset) return false;
  return mmap(bytes_ + offset, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
              pages.fd(), 0) != MAP_FAILED;
}

std::size_t LocalMemory::resident_bytes() const {
  return resident(bytes_, size_) + resident(tags_, size_ / 4);
}

}  // namespace emx::mem
