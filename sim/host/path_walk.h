// Resolving a program's path beneath a directory without trusting path strings: one
// component at a time with openat and O_NOFOLLOW from a descriptor of the directory,
// symbolic links expanded here (never by the kernel) and followed only while they stay
// beneath it. No absolute path is ever formed, so PATH_MAX does not matter (a deep tree
// of long names), and a directory moved during the walk cannot lead out of it.
//
// (openat2's RESOLVE_BENEATH does the same in the kernel where it exists; this walk gives
// the same answers on every kernel, and refusals that say which link led where.)
#pragma once
#include <string>

namespace emx::host {

// A descriptor closed when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() { const int f = fd_; fd_ = -1; return f; }

 private:
  int fd_ = -1;
};

// Symbolic links expanded in one walk before it is refused (Linux's own limit).
constexpr int kMaxLinks = 40;

struct Walked {
  UniqueFd dir;      // the directory holding the last component (O_PATH)
  std::string name;  // the last component ("." when the path is that directory itself)
  int error = 0;     // a host errno: a missing directory on the way (ENOENT), a file where
                     // a directory is due (ENOTDIR), a name over 255 bytes, no permission
  std::string refusal;  // why the path may not be used (leads out, absolute link, loop)
};

// Walks `path` (relative, no ".." of its own: the caller refuses those) beneath the
// directory `root` (an O_PATH descriptor). The last component need not exist; it is
// followed if it is a link and `follow_last` (not for remove, nor O_CREAT|O_EXCL).
Walked walk_beneath(int root, const std::string& path, bool follow_last);

}  // namespace emx::host
