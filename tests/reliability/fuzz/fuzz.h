// The fuzz harnesses of docs/reliability.md: seeded, bounded, deterministic. Each target
// makes `cases` inputs from a seed (case k uses seed + k), feeds them to one part of the
// simulator, and checks that it either works or fails with its own clean error; anything
// else (another exception, a broken invariant) is a finding, printed with the case's seed
// and written to the findings directory as a reproducer. A crash or a hang ends the
// process, which the test runner reports.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace emx::fuzz {

using Rng = std::mt19937_64;

struct Options {
  uint64_t seed = 1;
  uint64_t cases = 0;        // 0: the target's CI default times scale
  double scale = 1;          // multiplies the default
  std::string corpus;        // directory of inputs run first (the regression corpus)
  std::string source;        // the source tree (configs/)
  std::string findings = "fuzz-findings";  // where reproducers go
  std::vector<std::string> elves;           // ELF files to mutate
};

struct Report {
  uint64_t cases = 0, accepted = 0, rejected = 0, findings = 0;
};

// One finding: prints it and saves `input` as findings/<target>-<seed><suffix>.
void finding(Report& r, const Options& o, const std::string& target, uint64_t seed,
             const std::string& what, const std::string& input, const std::string& suffix);

Report fuzz_config(const Options& o);
Report fuzz_elf(const Options& o);
Report fuzz_iss(const Options& o);

// Random code for the ISS: mostly instructions of the table (the EMC-Y custom opcodes
// included), some random words; registers biased to a few that hold data addresses.
std::vector<uint32_t> random_code(Rng& rng, std::size_t words);
// A minimal RV32 ELF (ilp32f, one code and one data segment) holding `code` at 0x1000.
std::vector<uint8_t> make_elf(const std::vector<uint32_t>& code, uint32_t data_bytes);

inline uint64_t pick(Rng& rng, uint64_t n) { return n ? rng() % n : 0; }

}  // namespace emx::fuzz
