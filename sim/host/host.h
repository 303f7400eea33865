// The host interface (a SPARCstation on S-BUS in the real machine): it loads the
// program into the PEs, and serves host packets — console output, exit codes and
// result records (runtime/include/emx/host_protocol.h).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/host/host_files.h"
#include "sim/loader/elf_image.h"
#include "sim/mem/local_memory.h"

namespace emx::host {

// Longer result names are an error (not cut short): they name figures.
constexpr std::size_t kMaxResultName = 255;

struct ResultRecord {
  unsigned pe;
  std::string name;
  nlohmann::json value;  // a number, or "nan", "inf", "-inf" (JSON has no such numbers)
  uint64_t cycle;  // when the record reached the host
};

// The link to the host: its rate, for the time file transfers take.
struct HostLink {
  double clock_mhz = 20.0;
  double bandwidth_mb_s = 1.5;
  std::string file_root;  // files of the program (HostFiles); empty: none
};

class Host {
 public:
  Host(unsigned pes, std::ostream& console, const HostLink& link = {});

  // Copy the program into a PE's memory (but for `in_place`, mapped there already) and
  // lay out argc/argv below `stack_top`;
  // returns the initial sp and the address of argv. Throws loader::ElfError when the
  // program leaves no stack, std::runtime_error when the arguments do not fit.
  struct Start {
    uint32_t sp, argv;
  };
  static Start load(const loader::ElfImage& prog, const std::vector<std::string>& args,
                    mem::LocalMemory& memory, uint32_t stack_top,
                    loader::Span in_place = {});

  // An answer to send to a PE: an I-structure write of `value` to global address
  // `gaddr`, leaving the host at clock `cycle`.
  struct Answer {
    uint64_t cycle;
    uint32_t gaddr, value;
  };
  // A host packet arrived from PE `src` (memory: that PE's, for result names and file
  // data). Throws std::runtime_error for malformed packets (the caller names the PE and
  // PC). Returns the answer of a file request.
  std::optional<Answer> receive(unsigned src, uint32_t addr, uint32_t data, uint64_t cycle,
                                mem::LocalMemory& memory);
  const std::vector<std::string>& file_notes() const { return files_.notes(); }
  // Closes the program's files (at the end of the run, before emx writes its outputs).
  void close_files() { files_.close_all(); }
  // Print what is left in the console line buffers (at the end of the run).
  void flush();

  const std::vector<ResultRecord>& results() const { return results_; }
  std::optional<int> exit_code(unsigned pe) const { return exit_codes_[pe]; }
  unsigned exited() const { return exited_; }

 private:
  struct PendingResult {
    std::string name;
    uint32_t lo = 0, kind = 0;
    int stage = 0;  // 0 idle, 1 have name, 2 have low word
  };
  std::ostream& console_;
  std::vector<std::string> lines_;
  std::vector<std::optional<int>> exit_codes_;
  std::vector<PendingResult> pending_;
  std::vector<ResultRecord> results_;
  unsigned exited_ = 0;
  HostLink link_;
  HostFiles files_;
  uint64_t link_free_ = 0;  // the clock the host link finishes its last transfer
};

}  // namespace emx::host
