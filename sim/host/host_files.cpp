#include "host_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "path_walk.h"
#include "runtime/include/emx/host_protocol.h"
#include "sim/config/fields.h"

namespace emx::host {

namespace {

// The program's errno numbers (picolibc's, which are newlib's) for the host's.
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
    case ENAMETOOLONG: return 91;
    default: return 5;  // EIO
  }
}

// What a file that is neither regular nor a directory is, for the refusal.
const char* kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

bool servable(mode_t m) { return S_ISREG(m) || S_ISDIR(m); }

}  // namespace

HostFiles::HostFiles(const std::string& root) : root_(root) {
  struct rlimit lim{};
  const rlim_t have = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur : 1024;
  max_open_ = have > kReservedDescriptors + 16 ? have - kReservedDescriptors : 16;
  if (root.empty()) return;
  root_fd_ = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0)
    throw std::runtime_error(fmt::format("host.file_root / --files: '{}' is not a directory ({})",
                                         root, std::strerror(errno)));
}

HostFiles::~HostFiles() {
  close_all();
  if (root_fd_ >= 0) ::close(root_fd_);
}

void HostFiles::close_all() {
  for (const auto& [fd, host_fd] : fds_) ::close(host_fd);
  fds_.clear();
}

int32_t HostFiles::refuse(unsigned pe, const std::string& op, const std::string& path,
                          const std::string& why) {
  notes_.push_back(fmt::format("PE {}: {}(\"{}\") refused: {}", pe, op, config::shorten(path), why));
  return -13;  // EACCES
}

// The program's own path: relative, without "..". Links are the walk's business.
std::string HostFiles::check(const std::string& path) const {
  if (root_fd_ < 0) return "no files directory (emx run --files DIR)";
  if (path.empty()) return "an empty path";
  if (path[0] == '/')
    return fmt::format("an absolute path (paths are relative to the --files directory '{}'{})",
                       root_, root_ == "/" ? ": write '" + config::shorten(path.substr(1)) + "'" : "");
  for (std::size_t at = 0; at <= path.size();) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    if (path.compare(at, end - at, "..") == 0 && end - at == 2) return "'..' in the path";
    at = end + 1;
  }
  return {};
}

int32_t HostFiles::open(unsigned pe, const std::string& path, uint32_t b, uint32_t mode) {
  if (const std::string why = check(path); !why.empty()) return refuse(pe, "open", path, why);
  if (fds_.size() >= max_open_) return -24;  // EMFILE
  const bool create = (b & EMX_O_CREAT) != 0, exclusive = create && (b & EMX_O_EXCL) != 0;
  const Walked w = walk_beneath(root_fd_, path, !exclusive);
  if (!w.refusal.empty()) return refuse(pe, "open", path, w.refusal);
  if (w.error) return -program_errno(w.error);
  struct stat st;
  if (::fstatat(w.dir.get(), w.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) return -17;  // O_CREAT|O_EXCL on a link: EEXIST
    if (!servable(st.st_mode))
      return refuse(pe, "open", path, std::string(kind_of(st.st_mode)) +
                                          ": only regular files and directories are served");
  }
  // O_NONBLOCK: should a FIFO take the place of the file now, the open does not wait on it.
  int flags = O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  switch (b & EMX_O_ACCMODE) {
    case EMX_O_WRONLY: flags |= O_WRONLY; break;
    case EMX_O_RDWR: flags |= O_RDWR; break;
    default: flags |= O_RDONLY; break;
  }
  if (create) flags |= O_CREAT;
  if (exclusive) flags |= O_EXCL;
  if (b & EMX_O_TRUNC) flags |= O_TRUNC;
  if (b & EMX_O_APPEND) flags |= O_APPEND;
  UniqueFd h(::openat(w.dir.get(), w.name.c_str(), flags, static_cast<mode_t>(mode & 0777)));
  if (h.get() < 0) return -program_errno(errno);
  if (::fstat(h.get(), &st) != 0) return -program_errno(errno);
  if (!servable(st.st_mode))
    return refuse(pe, "open", path, std::string(kind_of(st.st_mode)) +
                                        ": only regular files and directories are served");
  ::fcntl(h.get(), F_SETFL, ::fcntl(h.get(), F_GETFL) & ~O_NONBLOCK);
  const int32_t fd = next_fd_++;
  fds_[fd] = h.release();
  return fd;
}

int32_t HostFiles::remove(unsigned pe, const std::string& path) {
  if (const std::string why = check(path); !why.empty()) return refuse(pe, "remove", path, why);
  const Walked w = walk_beneath(root_fd_, path, false);  // a link is removed, not its file
  if (!w.refusal.empty()) return refuse(pe, "remove", path, w.refusal);
  if (w.error) return -program_errno(w.error);
  if (w.name == ".") return -21;  // EISDIR: the --files directory or a link's directory
  if (::unlinkat(w.dir.get(), w.name.c_str(), 0) != 0) return -program_errno(errno);
  return 0;
}

HostFiles::Done HostFiles::serve(unsigned pe, uint32_t request, mem::LocalMemory& memory) {
  if ((request & 3) || !memory.valid(request, sizeof(emx_host_file_request)))
    throw std::runtime_error(fmt::format("file request at 0x{:08x} is not in local memory", request));
  const uint32_t op = memory.read32(request + 4), a = memory.read32(request + 8),
                 b = memory.read32(request + 12), c = memory.read32(request + 16);
  Done d{0, sizeof(emx_host_file_request)};
  auto string_at = [&](uint32_t addr) {
    std::string s;
    // Up to PATH_MAX bytes; a longer path is ENAMETOOLONG (never cut short).
    for (uint32_t p = addr; s.size() <= PATH_MAX; ++p) {
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
      d.result = path.size() > PATH_MAX ? -36 : open(pe, path, b, c);
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
      d.result = path.size() > PATH_MAX ? -36 : remove(pe, path);
      return d;
    }
    default:
      throw std::runtime_error(fmt::format("unknown file operation {}", op));
  }
}

}  // namespace emx::host
