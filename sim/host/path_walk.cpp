#include "path_walk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <deque>
#include <utility>
#include <vector>

#include "sim/config/fields.h"

namespace emx::host {

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// The components of `path`, without empty ones and ".".
std::deque<std::string> components(const std::string& path) {
  std::deque<std::string> out;
  for (std::size_t at = 0; at <= path.size();) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    std::string c = path.substr(at, end - at);
    if (!c.empty() && c != ".") out.push_back(std::move(c));
    at = end + 1;
  }
  return out;
}

struct Identity {
  dev_t dev;
  ino_t ino;
};

Walked refused(std::string why) {
  Walked w;
  w.refusal = std::move(why);
  return w;
}

Walked failed(int error) {
  Walked w;
  w.error = error;
  return w;
}

}  // namespace

Walked walk_beneath(int root, const std::string& path, bool follow_last) {
  std::deque<std::string> todo = components(path);
  // The directories entered below the root, by identity: ".." from a link goes back to
  // the one before, checked to be it (a directory moved meanwhile is refused).
  std::vector<Identity> entered;
  UniqueFd here(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  if (here.get() < 0) return failed(errno);
  struct stat st;
  if (::fstat(root, &st) != 0) return failed(errno);
  const Identity root_id{st.st_dev, st.st_ino};
  int links = 0;
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {  // only from a link's target
      if (entered.empty()) return refused("a symbolic link leading out of the --files directory");
      entered.pop_back();
      UniqueFd up(::openat(here.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (up.get() < 0 || ::fstat(up.get(), &st) != 0) return failed(errno);
      const Identity want = entered.empty() ? root_id : entered.back();
      if (st.st_dev != want.dev || st.st_ino != want.ino)
        return refused("a directory on the path moved while it was resolved");
      here = std::move(up);
      continue;
    }
    const bool last = todo.empty();
    if (::fstatat(here.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT || !last) return failed(errno);
      // A file to be made (or an ENOENT of the caller's operation).
    } else if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
      if (++links > kMaxLinks)
        return refused("more than " + std::to_string(kMaxLinks) + " symbolic links (a loop?)");
      char buf[PATH_MAX];
      const ssize_t n = ::readlinkat(here.get(), name.c_str(), buf, sizeof buf);
      if (n < 0) return failed(errno);
      if (n == static_cast<ssize_t>(sizeof buf)) return failed(ENAMETOOLONG);
      const std::string target(buf, static_cast<std::size_t>(n));
      if (target.empty() || target[0] == '/')
        return refused("a symbolic link to an absolute path ('" + config::shorten(target) +
                       "'): only relative links that stay inside the --files directory are followed");
      std::deque<std::string> more = components(target);
      todo.insert(todo.begin(), more.begin(), more.end());
      continue;
    }
    if (last) {
      Walked w;
      w.dir = std::move(here);
      w.name = std::move(name);
      return w;
    }
    UniqueFd next(::openat(here.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) return failed(errno == ELOOP ? ENOTDIR : errno);
    if (::fstat(next.get(), &st) != 0) return failed(errno);
    entered.push_back({st.st_dev, st.st_ino});
    here = std::move(next);
  }
  // The path named the directory reached (".", a link to ".", "a/b/..").
  Walked w;
  w.dir = std::move(here);
  w.name = ".";
  return w;
}

}  // namespace emx::host
