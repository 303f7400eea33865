// The instruction-set simulator of one EMC-Y execution unit: plain C++, no SystemC.
// A SystemC module (sim/pe) drives it with temporal decoupling: run() executes until the
// PE's local clock reaches a limit, and the packet and thread instructions call out to
// a HartEnv, which may advance the clock (a stalled send, an idle wait for a packet).
#pragma once
#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "fault.h"
#include "isa/isa.h"
#include "sim/iss/timing_config.h"
#include "sim/iss/translate.h"
#include "sim/mem/local_memory.h"

namespace emx::iss {

class Hart;

// What the ISS needs from the PE around it.
class HartEnv {
 public:
  virtual ~HartEnv() = default;
  // A send instruction. h.cycles is the local time after the send's own clock; the env
  // may add stall clocks to it. Throwing Trap reports a fault at the send.
  virtual void send(Hart& h, isa::PacketType type, uint32_t addr, uint32_t data) = 0;
  // The end instruction. The env sets up the next thread (pc, registers, cycles) or
  // calls h.request_stop().
  virtual void end_thread(Hart& h) = 0;
  // Apply to memory every packet that has arrived at this PE by h.cycles (the memory
  // unit's work): an interaction point for reads whose answer arrivals may change.
  virtual void settle(Hart& h) { (void)h; }
  // The program reads the clock (CSR cycle or time): the env makes h.cycles exact first
  // (a PE that deferred its stall clocks takes them now).
  virtual void clock_read(Hart& h) { (void)h; }
  // CSR emx.timer_arm written with `clocks` at h.cycles (exact: a CSR ends a segment): in
  // `clocks` clocks a 1-input invocation with data 0 reaches continuation `cont`.
  virtual void arm_timer(Hart& h, uint32_t cont, uint32_t clocks) { (void)h, (void)cont, (void)clocks; }
};

// The tag bit the memory unit sets when an I-structure element receives its value
// (sim/pe/thread_token.h names the others).
constexpr uint8_t kTagPresent = 0x01;
// A stack guard word [ours]: a store to it is a stack overflow. The runtime tags the words
// below every thread stack it makes (runtime/src/context.c), so deep recursion faults at
// once instead of overwriting the heap below.
constexpr uint8_t kTagGuard = 0x20;

// One instruction, decoded once when the code is loaded.
struct Decoded {
  int32_t imm = 0;
  // Where run() finds the semantics (an offset in its code, set by set_code): the
  // dispatch jumps there without looking the op up in a table first.
  int32_t handler = 0;
  // Clocks and instructions from this one to the end of its segment: a run of code that
  // ends at a control transfer or an environment call (or after 255 instructions). run()
  // charges a segment when it enters it, at any entry, so the instructions inside it
  // dispatch without a clock check; the clock is exact wherever it is read (the segment's
  // last instruction, the environment) and is put right when an instruction faults.
  uint16_t seg_cost = 1;
  uint8_t seg_count = 1;
  isa::Op op = isa::Op::illegal;
  uint8_t rd = 0;  // 32 (a sink) when the destination is integer register x0
  uint8_t rs1 = 0, rs2 = 0;
  // rs3 | rm << 5 (only fused FP operations have rs3). For a pc-relative jump or branch
  // (formats B and J, which have neither), kNearTarget when its target is an aligned
  // address in the code: it jumps to its entry with no check.
  uint8_t rs3_rm = 0;
  static constexpr uint8_t kNearTarget = 1;
  bool near_target() const { return rs3_rm == kNearTarget; }
  // The instruction's own clocks (its timing class, memory penalty included).
  uint32_t cost() const { return seg_cost - (seg_count > 1 ? this[1].seg_cost : 0u); }
};
static_assert(sizeof(Decoded) == 16, "a power of two keeps the fetch a shift");

class Hart {
 public:
  enum class Stop : uint8_t { limit, stopped, fault };

  Hart(mem::LocalMemory& memory, const TimingConfig& timing);

  void set_env(HartEnv* env) { env_ = env; }
  // A send the environment can take without the ISS's state published or its virtual
  // send: a record appended and nothing else (no stall, no clock change, no fault; the
  // usual send of a PE whose clock is provisional, Machine's floating sends). It returns
  // 1 when it took the send, 0, having done nothing, when HartEnv::send must take it, and
  // 2 when it failed: then it has called env_failed (inside its catch), and the hart stops
  // with that error. Translated blocks call it directly, before the row's full path; the
  // interpreter always calls HartEnv::send. noexcept: the blocks have no unwind
  // information. It must not use the host's FPU (the hart's FP flags and rounding mode
  // stay in it meanwhile).
  using DirectSend = uint32_t (*)(void* ctx, isa::PacketType type, uint32_t addr, uint32_t data,
                                  uint32_t pc, uint64_t cycle) noexcept;
  void set_direct_send(DirectSend fn, void* ctx) {
    direct_send_ = fn ? fn : &no_direct_send;
    direct_send_ctx_ = ctx;
  }
  // For a DirectSend, inside its catch: the send at `pc` failed with the exception being
  // handled (thrown again by run(), as the environment's own errors are).
  void env_failed(uint32_t at) noexcept {
    pc = at;
    env_error_ = std::current_exception();
    env_leave_ = Stop::fault;
  }
  // The executable region: it is decoded once here; stores into it fault. One entry more
  // than the code has words stands after it: running into it (or jumping outside the
  // code) is a fetch fault, so sequential execution needs no range check. `shared` is the
  // decoding another hart made of the same bytes with the same timing and features (the
  // PEs of a machine run one program): one copy for all keeps the host's caches for the
  // simulated memory.
  struct DecodedCode : std::vector<Decoded> {
    using std::vector<Decoded>::vector;
    // The blocks translated from this code (translate.h), made at the first run() that
    // translates: the harts that share the decoding share them.
    mutable std::unique_ptr<Translation> translation;
    mutable bool translation_tried = false;
  };
  void set_code(uint32_t base, uint32_t bytes, std::shared_ptr<const DecodedCode> shared = {});
  std::shared_ptr<const DecodedCode> decoded_code() const { return code_; }
  void set_machine_info(uint32_t pe_id, uint32_t pe_count, uint32_t clock_khz);

  // Execute until cycles >= cycle_limit, a stop request, or a fault.
  Stop run(uint64_t cycle_limit) {
    // Inline: a PE re-enters the ISS at every thread end it parks at (run_first: the rest).
    if (blocks_ && translate) return run_translated(cycle_limit);  // as found before
    return run_first(cycle_limit);
  }
  // From a HartEnv callback: return from run() after the current instruction.
  void request_stop() { stop_requested_ = true; }
  // From the environment call of an instruction (send, thread end, tag read, CSR): give
  // the instruction up, as if the run had stopped before it; it runs again when run() is
  // called next. The environment must have changed nothing.
  void request_retry() { retry_requested_ = stop_requested_ = true; }
  const Fault& fault() const { return fault_; }

  // Instruction profile (emx run --profile): per code word, how often it retired and the
  // clocks it took, stalls of a send included, the wait for the next thread excluded.
  // Off unless enabled (before run()); run() then takes a separately compiled loop.
  struct Profile {
    std::vector<uint64_t> count, cycles;  // indexed by (pc - code_base) / 4
  };
  void enable_profile();
  const Profile& profile() const { return profile_; }

  uint32_t insn_word(uint32_t pc) const;  // for reports; 0 when outside code
  Decoded decode(uint32_t word) const;  // a segment of its own

  // Architectural state. x[32] absorbs writes to x0; f holds raw single-precision bits.
  std::array<uint32_t, 33> x{};
  std::array<uint32_t, 32> f{};
  uint32_t pc = 0;
  uint32_t fflags = 0;  // NV=16 DZ=8 OF=4 UF=2 NX=1
  uint32_t frm = 0;
  uint64_t cycles = 0;   // the PE's local clock
  uint64_t instret = 0;
  // EMC-Y machine registers.
  uint32_t handler_table = 0;  // emx.handlers: local address of the special-handler table
  uint32_t features = ~0u;     // emx.features (isa/csr_numbers.h); set before set_code
  // Set before set_code: the pairs of fused_pairs.def run as one handler each. Off, every
  // instruction dispatches alone (the same results: the fuzzer compares the two).
  bool superinstructions = true;
  // Block translation to host code (translate.h; on x86-64 hosts): the same results as
  // the interpreter alone (the fuzzer compares them). A segment entry is translated when
  // the interpreter has entered it translate_after times.
  bool translate = kTranslationBuilt;
  uint32_t translate_after = 16;
  uint32_t frame_words = 32;   // emx.frame_words
  uint32_t timer_cont = 0;    // emx.timer_cont: where the next armed timer invokes
  uint32_t thread_stack = 0;   // emx.thread_stack: sp of new threads (0: the default)

  mem::LocalMemory& memory() { return mem_; }
  uint32_t code_base() const { return code_base_; }
  uint32_t code_bytes() const { return code_bytes_; }

  // CSR access (csr.cpp); false for an unknown CSR or a write to a read-only one.
  enum class CsrOp : uint8_t { write, set, clear };
  bool csr_access(unsigned csr, CsrOp op, uint32_t operand, bool do_write, uint32_t& old);
  // The hart field a read of `csr` returns, when that is all the read does (no clock, no
  // environment), else nullptr: what a translated block reads itself.
  static uint32_t Hart::* csr_field(unsigned csr);

 private:
  // offsets_out: the loop gives its handlers' offsets (Decoded::handler) and returns.
  // kMixed: beside translated blocks (run_translated): starts inside a charged segment when
  // mid_segment, and returns at a segment entry that has a block or has become hot.
  template <bool kProfile, bool kMixed = false>
  Stop run_loop(uint64_t cycle_limit, const int32_t** offsets_out = nullptr,
                bool mid_segment = false);
  Stop run_translated(uint64_t cycle_limit);
  [[gnu::noinline]] Stop run_first(uint64_t cycle_limit);
  // For a translated block: the environment instruction kOp at entry `index` (a send, a
  // thread or tag instruction, a CSR access: the last of its segment, charged already), by
  // the interpreter's semantics; a send's address and data computed by the block. Returns
  // 1 + the entry to go on at (a segment's entry, not yet entered), or 0 when the block
  // must leave: env_leave_ says why (limit: go on at pc outside the blocks), env_error_
  // holds anything else the environment threw.
  template <isa::Op kOp, isa::TimingClass kClass>
  uint32_t run_env(uint32_t index, uint32_t send_addr, uint32_t send_data) noexcept;
  // The send at `pc` (its isa::PacketType, address and data; `cycle`: the hart's clock),
  // taken directly by the environment when it can (set_direct_send): 1 when it took it
  // (nothing else changed: the block goes on at the next entry), 0 when the row's full
  // path must run it, 2 when it failed (as run_env's 0: env_error_ holds it). (Translated
  // blocks call direct_send_ themselves.)
  uint32_t direct_send(isa::PacketType type, uint32_t addr, uint32_t data, uint32_t pc) noexcept {
    return direct_send_(direct_send_ctx_, type, addr, data, pc, cycles);
  }
  static uint32_t no_direct_send(void*, isa::PacketType, uint32_t, uint32_t, uint32_t,
                                 uint64_t) noexcept {
    return 0;
  }
  // run_env without a send's direct path (set_direct_send): the row's semantics, out of
  // line so that a direct send does not pay for its frame.
  template <isa::Op kOp, isa::TimingClass kClass>
  [[gnu::noinline]] uint32_t run_env_full(uint32_t index, uint32_t send_addr, uint32_t send_data) noexcept;
  // A block's `end` at entry `index` (charged already): END_THREAD's semantics
  // (semantics.h) as run_env_full<end> runs them, without its frame: the block stored the
  // clock and instret, so only the pc is published. Returns as run_env. (Most ends park
  // the PE: this entry and the way out of the blocks are what a thread end costs.)
  uint32_t run_end(uint32_t index) noexcept;
  // After an environment instruction, go on at entry `next` (run_env's return value;
  // stray_pc: the pc when next is past the code).
  uint32_t env_next(uint32_t next, uint32_t stray_pc) noexcept;
  // What a block calls for an instruction op of an environment timing class
  // (isa::environment_class) or the CSR class (nullptr for the others): run_env<op>, or,
  // `direct_tried` (the block called direct_send_ for the send already), run_env_full<op>.
  using EnvEntry = uint32_t (*)(Hart*, uint32_t index, uint32_t send_addr, uint32_t send_data) noexcept;
  static EnvEntry env_entry(isa::Op op, bool direct_tried = false);
  template <isa::Op kOp, isa::TimingClass kClass, bool kDirectTried>
  static constexpr EnvEntry env_entry_of();
  // The blocks run() found for this code and hart (Translation::fits; set_code and
  // enable_profile drop them): later runs go straight to run_translated.
  Translation* blocks_ = nullptr;
  Stop env_leave_ = Stop::limit;
  // While blocks run (Translation::run): the clock limit and the blocks' table, which they
  // read at fixed offsets from x (the host registers hold guest registers instead).
  uint64_t block_limit_ = 0;
  const void* const* block_table_ = nullptr;
  std::exception_ptr env_error_;
  friend class Translation;
  friend struct TranslationLayout;
  template <class T>
  T load(uint32_t a) const;
  template <class T>
  void store(uint32_t a, T v);

  mem::LocalMemory& mem_;
  uint8_t* bytes_;
  const uint8_t* tags_;  // the memory's tag bits, a byte per word
  uint32_t mem_span_;  // size - guard: valid offsets from the guard are [0, mem_span_)
  uint32_t mem_bytes_;  // the memory's size (CSR emx.mem_bytes)
  // By log2 of an access's size: the last valid offset from the guard, shifted right by it.
  std::array<uint32_t, 3> last_index_{};
  std::array<uint32_t, isa::kTimingClassCount> costs_{};
  uint32_t taken_extra_ = 0;  // branch_taken - branch
  HartEnv* env_ = nullptr;
  DirectSend direct_send_ = &no_direct_send;  // set_direct_send (only with env_)
  void* direct_send_ctx_ = nullptr;
  std::shared_ptr<const DecodedCode> code_;
  uint32_t code_base_ = 0, code_bytes_ = 0;
  uint32_t pe_id_ = 0, pe_count_ = 1, clock_khz_ = 16000;
  bool stop_requested_ = false, retry_requested_ = false;
  Fault fault_;
  Profile profile_;
};

inline Translation::Result Translation::run(Hart& h, const void* block, uint64_t limit) {
  h.block_limit_ = limit;
  h.block_table_ = table_.data();
  Frame fr{h.x.data(), h.bytes_, h.cycles, block};
  const uint64_t r = reinterpret_cast<uint64_t (*)(Frame*)>(const_cast<uint8_t*>(enter_))(&fr);
  h.cycles = fr.cycles;
  return {static_cast<Exit>(r >> 32), static_cast<uint32_t>(r)};
}

}  // namespace emx::iss
