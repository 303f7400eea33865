// Files of the simulated program, served by the host (emx run --files DIR, config key
// host.file_root): the operations of emx_host_file_op on real files inside DIR, nothing
// outside it. EM-X had no disk: its programs read and wrote files through the host at
// 1-2 MB/s, which the host link's rate models (Host: the answer's time).
//
// Confinement does not trust path strings (realpath fails beyond PATH_MAX, and the kernel
// follows links afterwards): a path is walked one component at a time from a descriptor
// of DIR with openat and O_NOFOLLOW (path_walk.h), symbolic links are followed by us only
// while they stay inside DIR, and only regular files and directories are opened (without
// blocking: a FIFO or device inside DIR is refused, not waited on).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/mem/local_memory.h"

namespace emx::host {

// Descriptors the program cannot take: emx's own outputs and libraries need some.
constexpr std::size_t kReservedDescriptors = 64;

class HostFiles {
 public:
  // root: the directory (empty: file access refused). Throws std::runtime_error if it is
  // not a directory.
  explicit HostFiles(const std::string& root);
  ~HostFiles();
  HostFiles(const HostFiles&) = delete;
  HostFiles& operator=(const HostFiles&) = delete;

  struct Done {
    int32_t result;  // >= 0, or -errno (the runtime's errno.h numbers)
    uint64_t bytes;  // bytes that crossed the host link (request, path, data)
  };
  // The request at `request` in PE `pe`'s memory. Throws std::runtime_error for a
  // request that is not in local memory (the caller names PE and PC).
  Done serve(unsigned pe, uint32_t request, mem::LocalMemory& memory);

  // Closes what the program left open (before emx writes its own outputs, so that a
  // program holding many files cannot take the descriptors they need).
  void close_all();

  // Refused accesses, for the run's report ("PE 3: open("../x"): ...").
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  int32_t refuse(unsigned pe, const std::string& op, const std::string& path, const std::string& why);
  std::string check(const std::string& path) const;  // why the path is refused, or ""
  int32_t open(unsigned pe, const std::string& path, uint32_t flags, uint32_t mode);
  int32_t remove(unsigned pe, const std::string& path);
  int root_fd_ = -1;  // the --files directory (O_PATH); -1: no file access
  std::string root_;  // as given, for notes
  std::map<int32_t, int> fds_;  // the program's descriptors -> host descriptors (per machine)
  std::size_t max_open_;  // the host's descriptor limit less a reserve for emx
  int32_t next_fd_ = 3;
  std::vector<std::string> notes_;
};

}  // namespace emx::host
