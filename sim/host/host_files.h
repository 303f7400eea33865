// Files of the simulated program, served by the host (emx run --files DIR, config key
// host.file_root): the operations of emx_host_file_op on real files inside DIR, nothing
// outside it. EM-X had no disk: its programs read and wrote files through the host at
// 1-2 MB/s, which the host link's rate models (Host: the answer's time).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/mem/local_memory.h"

namespace emx::host {

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

  // Refused accesses, for the run's report ("PE 3: open("../x"): ...").
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  int32_t refuse(unsigned pe, const std::string& op, const std::string& path, const char* why);
  // The host path for a program's path inside the root, or "" if refused (note made).
  std::string confine(unsigned pe, const std::string& op, const std::string& path, bool creating);
  std::string root_;  // real path, no trailing slash; empty: no file access
  std::map<int32_t, int> fds_;  // the program's descriptors -> host descriptors (per machine)
  int32_t next_fd_ = 3;
  std::vector<std::string> notes_;
};

}  // namespace emx::host
