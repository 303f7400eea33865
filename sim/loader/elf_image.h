// A program for the simulated machine: a 32-bit RISC-V ELF executable, checked and
// ready to copy into a PE's local memory. Every problem is an ElfError whose message
// names the file and says what is wrong and how to fix it.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "symbols.h"

namespace emx::loader {

// A program file is a regular file of at most this size: its code and data fit in local
// memory, and symbols and debug sections take a few times that at most (/dev/zero or a
// FIFO as the program is an error, not read on).
std::size_t max_program_bytes(uint32_t memory_bytes);

struct ElfError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Segment {
  uint32_t vaddr = 0, filesz = 0, memsz = 0;
  bool exec = false, write = false;
  std::size_t offset = 0;  // in the file
};

// Addresses [from, to) of a PE's memory.
struct Span {
  uint32_t from = 0, to = 0;
};

class ElfImage {
 public:
  // Reads and validates `path` for a machine whose PEs have `memory_bytes` of memory.
  static ElfImage load(const std::string& path, uint32_t memory_bytes);

  const std::string& path() const { return path_; }
  uint32_t entry() const { return entry_; }
  // The executable segment: decoded once, read-only at run time.
  uint32_t code_base() const { return code_base_; }
  uint32_t code_bytes() const { return code_bytes_; }
  // Lowest address above every loaded segment (the heap starts there).
  uint32_t end() const { return end_; }
  const std::vector<Segment>& segments() const { return segments_; }
  const SymbolTable& symbols() const { return symbols_; }

  // Copies every segment into `dest` (a PE's memory bytes), except the bytes in `in_place`
  // (mapped there already); .bss is zero already.
  void copy_into(uint8_t* dest, Span in_place = {}) const;

 private:
  std::string path_;
  std::string file_;  // the whole file, as read
  std::vector<Segment> segments_;
  SymbolTable symbols_;
  uint32_t entry_ = 0, code_base_ = 0, code_bytes_ = 0, end_ = 0;
};

}  // namespace emx::loader
