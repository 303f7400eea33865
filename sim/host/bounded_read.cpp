#include "bounded_read.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace emx::host {

std::string size_text(unsigned long long b) {
  if (b >= (1ull << 30)) return fmt::format("{:.3g} GiB", static_cast<double>(b) / (1ull << 30));
  if (b >= (1ull << 20)) return fmt::format("{:.3g} MiB", static_cast<double>(b) / (1ull << 20));
  if (b >= (1ull << 10)) return fmt::format("{:.3g} KiB", static_cast<double>(b) / (1ull << 10));
  return fmt::format("{} bytes", b);
}

BoundedRead read_bounded(const std::string& path, std::size_t limit, const char* kind) {
  BoundedRead r;
  // O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    r.error = fmt::format("cannot open the {} ({})", kind, std::strerror(errno));
    return r;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    r.error = fmt::format("cannot read the {} ({})", kind, std::strerror(errno));
  } else if (S_ISDIR(st.st_mode)) {
    r.error = fmt::format("is a directory, not a {}", kind);
  } else if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
                                             : "not a regular file";
    r.error = fmt::format("is {}: a {} must be a regular file", what, kind);
  } else if (static_cast<unsigned long long>(st.st_size) > limit) {
    r.error = fmt::format("is {}, more than the {} a {} may have", size_text(st.st_size),
                          size_text(limit), kind);
  } else {
    // Read to the limit and one byte more: a file that grows meanwhile is still bounded.
    // The byte past the size takes the read that finds the end, without growing the buffer.
    r.data.resize(static_cast<std::size_t>(st.st_size) + 1);
    std::size_t have = 0;
    for (;;) {
      if (have == r.data.size()) {
        if (have > limit) break;
        r.data.resize(std::min(limit + 1, have + 65536));
      }
      const ssize_t n = ::read(fd, r.data.data() + have, r.data.size() - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        r.error = fmt::format("cannot read the {} ({})", kind, std::strerror(errno));
        break;
      }
      if (n == 0) break;
      have += static_cast<std::size_t>(n);
    }
    r.data.resize(have);
    if (r.error.empty() && have > limit)
      r.error = fmt::format("is more than the {} a {} may have", size_text(limit), kind);
  }
  ::close(fd);
  if (!r.error.empty()) r.data.clear();
  return r;
}

}  // namespace emx::host
