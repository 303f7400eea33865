#include "host_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "runtime/include/emx/host_protocol.h"

namespace emx::host {

namespace {

// The runtime's errno numbers (runtime/include/errno.h) for the host's.
int32_t program_errno(int e) {
  switch (e) {
    case ENOENT: return 2;
    case EBADF: return 9;
    case EACCES: case EPERM: case ELOOP: return 13;
    case EEXIST: return 17;
    case ENOTDIR: return 20;
    case EISDIR: return 21;
    case EINVAL: return 22;
    case EMFILE: case ENFILE: return 24;
    case ENOSPC: return 28;
    case ENAMETOOLONG: return 36;
    default: return 5;  // EIO
  }
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool inside(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

}  // namespace

HostFiles::HostFiles(const std::string& root) {
  if (root.empty()) return;
  struct stat st;
  if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::runtime_error(fmt::format("host.file_root / --files: '{}' is not a directory", root));
  root_ = real_path(root);
}

HostFiles::~HostFiles() {
  for (const auto& [fd, host_fd] : fds_) ::close(host_fd);
}

int32_t HostFiles::refuse(unsigned pe, const std::string& op, const std::string& path,
                          const char* why) {
  notes_.push_back(fmt::format("PE {}: {}(\"{}\") refused: {}", pe, op, path, why));
  return -13;  // EACCES
}

std::string HostFiles::confine(unsigned pe, const std::string& op, const std::string& path,
                               bool creating) {
  if (root_.empty()) {
    refuse(pe, op, path, "no files directory (emx run --files DIR)");
    return {};
  }
  if (path.empty() || path[0] == '/') {
    refuse(pe, op, path, "an absolute or empty path (paths are relative to the --files directory)");
    return {};
  }
  for (std::size_t at = 0; at <= path.size();) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    if (path.compare(at, end - at, "..") == 0 && end - at == 2) {
      refuse(pe, op, path, "'..' in the path");
      return {};
    }
    at = end + 1;
  }
  const std::string full = root_ + "/" + path;
  // What exists of the path (symbolic links followed) must be inside the root: the file
  // itself, or else its deepest existing directory (a file to be made, or one that is not
  // there: not even its absence outside is told). The last component is opened with
  // O_NOFOLLOW, so a dangling link cannot make a file outside.
  std::string existing = full, real;
  while ((real = real_path(existing)).empty()) {
    const std::size_t slash = existing.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    existing.resize(slash);
  }
  (void)creating;
  if (real.empty() || !inside(real, root_)) {
    refuse(pe, op, path, "a symbolic link leading out of the --files directory");
    return {};
  }
  return full;
}

HostFiles::Done HostFiles::serve(unsigned pe, uint32_t request, mem::LocalMemory& memory) {
  if ((request & 3) || !memory.valid(request, sizeof(emx_host_file_request)))
    throw std::runtime_error(fmt::format("file request at 0x{:08x} is not in local memory", request));
  const uint32_t op = memory.read32(request + 4), a = memory.read32(request + 8),
                 b = memory.read32(request + 12), c = memory.read32(request + 16);
  Done d{0, sizeof(emx_host_file_request)};
  auto string_at = [&](uint32_t addr) {
    std::string s;
    for (uint32_t p = addr; s.size() < PATH_MAX; ++p) {
      if (!memory.valid(p, 1)) throw std::runtime_error("file path outside local memory");
      const char ch = static_cast<char>(memory.bytes()[p]);
      if (!ch) break;
      s += ch;
    }
    d.bytes += s.size() + 1;
    return s;
  };
  auto host_fd = [&](uint32_t fd) { auto it = fds_.find(static_cast<int32_t>(fd)); return it == fds_.end() ? -1 : it->second; };
  auto buffer = [&](uint32_t addr, uint32_t n) {
    if (!memory.valid(addr, n ? n : 1))
      throw std::runtime_error(fmt::format("file buffer 0x{:08x} of {} bytes is not in local memory", addr, n));
    return memory.bytes() + addr;
  };
  switch (op) {
    case EMX_FILE_OPEN: {
      const std::string path = string_at(a);
      const std::string full = confine(pe, "open", path, (b & EMX_O_CREAT) != 0);
      if (full.empty()) return d.result = -13, d;
      int flags = O_NOFOLLOW | O_CLOEXEC;
      switch (b & EMX_O_ACCMODE) {
        case EMX_O_WRONLY: flags |= O_WRONLY; break;
        case EMX_O_RDWR: flags |= O_RDWR; break;
        default: flags |= O_RDONLY; break;
      }
      if (b & EMX_O_CREAT) flags |= O_CREAT;
      if (b & EMX_O_EXCL) flags |= O_EXCL;
      if (b & EMX_O_TRUNC) flags |= O_TRUNC;
      if (b & EMX_O_APPEND) flags |= O_APPEND;
      const int h = ::open(full.c_str(), flags, static_cast<mode_t>(c & 0777));
      if (h < 0) return d.result = -program_errno(errno), d;
      const int32_t fd = next_fd_++;
      fds_[fd] = h;
      d.result = fd;
      return d;
    }
    case EMX_FILE_CLOSE: {
      const int h = host_fd(a);
      if (h < 0) return d.result = -9, d;
      ::close(h);
      fds_.erase(static_cast<int32_t>(a));
      return d;
    }
    case EMX_FILE_READ:
    case EMX_FILE_WRITE: {
      const int h = host_fd(a);
      if (h < 0) return d.result = -9, d;
      uint8_t* p = buffer(b, c);
      const ssize_t n = op == EMX_FILE_READ ? ::read(h, p, c) : ::write(h, p, c);
      if (n < 0) return d.result = -program_errno(errno), d;
      d.result = static_cast<int32_t>(n);
      d.bytes += static_cast<uint64_t>(n);
      return d;
    }
    case EMX_FILE_SEEK: {
      const int h = host_fd(a);
      if (h < 0) return d.result = -9, d;
      if (c > 2) return d.result = -22, d;
      const off_t at = ::lseek(h, static_cast<int32_t>(b), c == 0 ? SEEK_SET : c == 1 ? SEEK_CUR : SEEK_END);
      if (at < 0) return d.result = -program_errno(errno), d;
      if (at > INT32_MAX) return d.result = -22, d;
      d.result = static_cast<int32_t>(at);
      return d;
    }
    case EMX_FILE_REMOVE: {
      const std::string path = string_at(a);
      const std::string full = confine(pe, "remove", path, false);
      if (full.empty()) return d.result = -13, d;
      if (::unlink(full.c_str()) != 0) return d.result = -program_errno(errno), d;
      return d;
    }
    default:
      throw std::runtime_error(fmt::format("unknown file operation {}", op));
  }
}

}  // namespace emx::host
