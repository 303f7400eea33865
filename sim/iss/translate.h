// Block translation [ours, a host-speed feature]: the hot subset of the ISA (RV32IM with
// its loads, stores, branches and jumps, and the common single-precision operations)
// translated to x86-64 machine code, one block per segment entry (Decoded::seg_cost) that
// runs on into the segments after its branches not taken, with the guest registers a block
// uses held in host registers across it (sp, a0 and a5 from block to block). The interpreter
// (execute.cpp) stays the reference: a block charges exactly the clocks and instructions
// the interpreter charges at a segment's entry, and anything out of the ordinary (an
// instruction not in the subset, an access or jump that would fault, a NaN result, the
// clock limit) leaves the block with the guest state written back, and the interpreter
// runs that instruction. So every simulated figure is the interpreter's; the fuzzer
// (tests/reliability/fuzz/fuzz_iss.cpp) compares the two on random code.
//
// The semantics of the subset's rows are written here a second time, as host code: a
// change to one of those rows in isa/*.def needs the same change in translate.cpp, and
// reliability.fuzz_iss (which runs every case both ways) is what holds the two equal.
//
// The translation belongs to the decoded code (Hart::DecodedCode), so the PEs of a machine
// that share one decoding share its blocks. Built only on x86-64 hosts; elsewhere (or with
// Hart::translate off) run() is the interpreter alone.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace emx::iss {

class Hart;
struct Decoded;

#if defined(__x86_64__)
constexpr bool kTranslationBuilt = true;
#else
constexpr bool kTranslationBuilt = false;
#endif

class Translation {
 public:
  // What a block hands back (with the entry index it stopped at).
  enum class Exit : uint32_t {
    limit,    // at a segment's entry, before charging it: the clock limit is reached
    resume,   // inside a charged segment: the interpreter runs this instruction on
    segment,  // at a segment's entry with no block yet
    env,      // after an environment instruction (Hart::run_env: pc and the outcome set)
  };
  struct Result {
    Exit exit;
    uint32_t index;
  };

  // nullptr when the host gives no executable memory (the interpreter alone then).
  static std::unique_ptr<Translation> make(const Hart& h, const Decoded* code, uint32_t words);
  ~Translation();
  Translation(const Translation&) = delete;
  Translation& operator=(const Translation&) = delete;

  // Whether a hart can run these blocks (same code placement, memory size and branch timing).
  bool fits(const Hart& h) const;
  // The block entered at entry `index`, or nullptr.
  const void* block(uint32_t index) const { return table_[index]; }
  // Translate the segment entered at `index`; nullptr (and no retry for a long while) when
  // its first instruction is not in the subset or the code space is full.
  const void* translate(const Hart& h, uint32_t index);
  // Run from `block` until an exit; h.cycles and h.instret are kept up to date, the
  // registers written back. (Inline, hart.h: at every entry into the blocks.)
  Result run(Hart& h, const void* block, uint64_t limit);
  // What the trampoline is given.
  struct Frame {
    uint32_t* x;
    uint8_t* mem;
    uint64_t cycles;
    const void* target;
  };

  // Interpreter visits of each segment entry; translated when it reaches Hart::translate_after.
  std::vector<int32_t>& heat() { return heat_; }
  const void* const* table() const { return table_.data(); }

 private:
  Translation(const Hart& h, const Decoded* code, uint32_t words, uint8_t* space, size_t bytes);
  const Decoded* code_;
  uint32_t words_, base_, taken_extra_, mem_span_;
  uint8_t* space_;
  size_t space_bytes_, used_ = 0;
  // The trampoline: prologue, then jump to the block (none where blocks are not built).
  const uint8_t* enter_ = nullptr;
  const uint8_t* exit_ = nullptr;   // the common exit: epilogue
  std::vector<const void*> table_;
  std::vector<int32_t> heat_;
  // By entry with no block yet: the rel32 fields of the jumps to it (pointed at its block
  // when it is made).
  std::unordered_map<uint32_t, std::vector<uint8_t*>> waiting_;
};

}  // namespace emx::iss
