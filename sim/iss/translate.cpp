// The block translator (translate.h): one segment entry to x86-64 code.
//
// Host registers while blocks run (the trampoline sets them up, blocks jump to blocks):
//   rbx  &Hart::x[0] (f[], instret, the clock limit and Translation::table_, the block of
//        each entry or null, at fixed offsets from it)
//   rbp  the local memory's bytes          r12  cycles
//   r13 r14 r15              sp, a0, a5 in every block (kPinned)
//   rsi rdi r8-r11 rdx       other guest integer registers of the block
//   xmm1-xmm14               guest FP registers of the block
//   rax rcx xmm0 xmm15       scratch
// A block: the clock check and the segment's charge (as the interpreter at a segment's
// entry), the loads of the registers it uses, the instructions, and exits that store the
// registers it writes. A branch back to the block's own entry stays in host registers; a
// branch not taken runs on into the next segment in the same block (a clock check and
// that segment's charge between them), up to kMaxContinued times.
#include "translate.h"

#include "hart.h"

#if defined(__x86_64__)
#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <iterator>

#include "fp_env.h"
#include "isa/csr_numbers.h"
#include "x86_asm.h"

namespace emx::iss {
namespace {
using namespace x86;
using isa::Op;

// What a block hands back: kind << 32 | entry index (Translation::Exit).
constexpr int32_t at(size_t offset) { return static_cast<int32_t>(offset); }
using Frame = Translation::Frame;

constexpr int kIntPool[] = {RSI, RDI, R8, R9, R10, R11, RDX};
// Guest registers held in host registers from block to block (the ones MPI code loads and
// stores most at a block's edges: sp, a0, a5): the trampoline loads them and its exit
// stores them; a block stores them before it calls the hart (which reads the registers
// there) and loads them again after a call that may change them. Callee-saved host
// registers, so a call leaves them as they were.
struct Pinned {
  unsigned guest;
  int host;
};
constexpr Pinned kPinned[] = {{2, R13}, {10, R14}, {15, R15}};
constexpr uint32_t kPinnedMask = [] {
  uint32_t m = 0;
  for (const Pinned& p : kPinned) m |= 1u << p.guest;
  return m;
}();
constexpr int kFpPool = 14;  // xmm1 .. xmm14
// A block that stops before an instruction outside the subset (inside its segment) is
// only worth its entry and exit when it runs this many instructions first.
constexpr uint32_t kMinPartial = 4;
// A block runs on into at most this many segments after its first (past a conditional
// branch, translate()), and this many instructions in all.
constexpr std::size_t kMaxContinued = 7;
constexpr uint32_t kMaxBlock = 256;

// An environment instruction: a send, a thread or tag instruction, a CSR access (the last
// of its segment). A block calls the row's Hart::run_env for it: the interpreter's own
// semantics.
// Not the FP CSRs: blocks round as frm was when they were entered.
bool is_env(const Decoded& d) {
  const isa::TimingClass c = isa::insn_info(d.op).tclass;
  if (isa::environment_class(c)) return true;
  switch (c) {
    case isa::TimingClass::csr: {
      const uint32_t csr = static_cast<uint32_t>(d.imm);
      return csr < isa::csr::fflags || csr > isa::csr::fcsr;
    }
    default: return false;
  }
}

// A CSR instruction that only reads a hart field (Hart::csr_field): csrrs or csrrc of x0,
// csrrsi or csrrci of 0.
bool csr_read_field(const Decoded& d) {
  switch (d.op) {
    case Op::csrrs: case Op::csrrc: case Op::csrrsi: case Op::csrrci:
      return d.rs1 == 0 && Hart::csr_field(static_cast<uint32_t>(d.imm)) != nullptr;
    default: return false;
  }
}

// The operands of an instruction of the subset; false when it is not in the subset.
struct Operands {
  bool x1 = false, x2 = false, xd = false, f1 = false, f2 = false, f3 = false, fd = false;
  bool x1_written = false;  // lw.ai's auto-increment
};
bool operands(const Decoded& d, bool host_fma, Operands& o) {
  const bool dyn_rm = (d.rs3_rm >> 5) == fp::kDyn;
  switch (d.op) {
    case Op::lui: case Op::auipc: o.xd = true; return true;
    case Op::jal: o.xd = true; return d.near_target();
    case Op::jalr: o.x1 = o.xd = true; return true;
    case Op::beq: case Op::bne: case Op::blt: case Op::bge: case Op::bltu: case Op::bgeu:
    case Op::sb: case Op::sh: case Op::sw:
      o.x1 = o.x2 = true;
      return true;
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu:
    case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori: case Op::andi:
    case Op::slli: case Op::srli: case Op::srai:
      o.x1 = o.xd = true;
      return true;
    case Op::add: case Op::sub: case Op::sll: case Op::slt: case Op::sltu: case Op::xor_:
    case Op::srl: case Op::sra: case Op::or_: case Op::and_:
    case Op::mul: case Op::mulh: case Op::mulhsu: case Op::mulhu:
    case Op::div: case Op::divu: case Op::rem: case Op::remu:
      o.x1 = o.x2 = o.xd = true;
      return true;
    case Op::lw_ai: o.x1 = o.xd = o.x1_written = true; return true;
    case Op::flw: o.x1 = o.fd = true; return true;
    case Op::fsw: o.x1 = o.f2 = true; return true;
    case Op::fadd_s: case Op::fsub_s: case Op::fmul_s:
      o.f1 = o.f2 = o.fd = true;
      return dyn_rm;
    case Op::fmadd_s: o.f1 = o.f2 = o.f3 = o.fd = true; return dyn_rm && host_fma;
    case Op::fsgnj_s: case Op::fsgnjn_s: case Op::fsgnjx_s:
      o.f1 = o.f2 = o.fd = true;
      return true;
    case Op::fmv_x_w: o.f1 = o.xd = true; return true;
    case Op::fmv_w_x: o.x1 = o.fd = true; return true;
    // Tag instructions: in the block (rtag when the element is present; otherwise, and for
    // a wrong address, the call or the interpreter).
    case Op::rtag: o.x1 = o.xd = true; return true;
    case Op::wtag: o.x1 = o.x2 = true; return true;
    default:
      // A send's address and data are computed in host registers; a CSR read that only
      // reads a hart field is a load (Hart::csr_field); the other environment instructions
      // read theirs in memory (the call's).
      if (isa::insn_info(d.op).tclass == isa::TimingClass::send) o.x1 = o.x2 = true;
      if (csr_read_field(d)) o.xd = true;
      return is_env(d);
  }
}

// Byte offsets from &Hart::x[0] (the same for every hart).
template <class T>
int32_t offset_from_x(const Hart& h, const T& field) {
  return static_cast<int32_t>(reinterpret_cast<const char*>(&field) -
                              reinterpret_cast<const char*>(h.x.data()));
}

}  // namespace

// The layout facts the emitter needs from a hart (a friend of Hart).
struct TranslationLayout {
  int32_t f, instret, last_index, tags, cycles, hart, limit, table, direct_send, direct_send_ctx;
  uint32_t code_base, code_bytes, mem_span;
  const Hart& hart_;
  explicit TranslationLayout(const Hart& h)
      : f(offset_from_x(h, h.f)),
        instret(offset_from_x(h, h.instret)),
        last_index(offset_from_x(h, h.last_index_)),
        tags(offset_from_x(h, h.tags_)),
        cycles(offset_from_x(h, h.cycles)),
        hart(offset_from_x(h, h)),
        limit(offset_from_x(h, h.block_limit_)),
        table(offset_from_x(h, h.block_table_)),
        direct_send(offset_from_x(h, h.direct_send_)),
        direct_send_ctx(offset_from_x(h, h.direct_send_ctx_)),
        code_base(h.code_base_),
        code_bytes(h.code_bytes_),
        mem_span(h.mem_span_),
        hart_(h) {}
  // Where the field a CSR read reads is (Hart::csr_field).
  int32_t csr_field(uint32_t csr) const { return offset_from_x(hart_, hart_.*Hart::csr_field(csr)); }
  // What a block calls for the environment instruction op.
  static uint64_t env_entry(isa::Op op, bool direct_tried = false) {
    return reinterpret_cast<uint64_t>(Hart::env_entry(op, direct_tried));
  }
};

std::unique_ptr<Translation> Translation::make(const Hart& h, const Decoded* code, uint32_t words) {
  // Generous for any program: blocks are made only for segments that run often.
  const size_t bytes = std::min<size_t>(size_t{64} << 20, (size_t{1} << 20) + size_t{96} * words * 4);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE | PROT_EXEC,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::unique_ptr<Translation>(
      new Translation(h, code, words, static_cast<uint8_t*>(p), bytes));
}

Translation::Translation(const Hart& h, const Decoded* code, uint32_t words, uint8_t* space,
                         size_t bytes)
    : code_(code),
      words_(words),
      base_(h.code_base_),
      taken_extra_(h.taken_extra_),
      mem_span_(h.mem_span_),
      space_(space),
      space_bytes_(bytes),
      table_(words + 1, nullptr),
      heat_(words + 1, 0) {
  // The trampoline: save the callee-saved registers and the frame, load the fixed
  // registers, jump to the block. The exit: kind in eax, index in edx.
  Asm a(space_);
  for (int r : {RBX, RBP, R12, R13, R14, R15, RDI}) a.push(r);
  a.load(RBX, {RDI, at(offsetof(Frame, x))}, true);
  a.load(RBP, {RDI, at(offsetof(Frame, mem))}, true);
  a.load(R12, {RDI, at(offsetof(Frame, cycles))}, true);
  for (const Pinned& p : kPinned) a.load(p.host, {RBX, static_cast<int32_t>(4 * p.guest)});
  a.jmp_m({RDI, at(offsetof(Frame, target))});
  const int exit_at = a.pos();
  for (const Pinned& p : kPinned) a.store({RBX, static_cast<int32_t>(4 * p.guest)}, p.host);
  a.pop(RDI);
  a.store({RDI, at(offsetof(Frame, cycles))}, R12, true);
  a.shift_i(Asm::SHL, RAX, 32, true);
  a.alu_rr(Asm::OR, RAX, RDX, true);
  for (int r : {R15, R14, R13, R12, RBP, RBX}) a.pop(r);
  a.ret();
  std::memcpy(space_, a.bytes().data(), a.bytes().size());
  enter_ = space_;
  exit_ = space_ + exit_at;
  used_ = (a.bytes().size() + 63) & ~size_t{63};
}

Translation::~Translation() { munmap(space_, space_bytes_); }

bool Translation::fits(const Hart& h) const {
  return h.code_base_ == base_ && h.code_bytes_ / 4 == words_ && h.taken_extra_ == taken_extra_ &&
         h.mem_span_ == mem_span_;
}

namespace {

// One block's emission.
class BlockEmitter {
 public:
  BlockEmitter(Asm& a, const TranslationLayout& lay, const Decoded* code, uint32_t entry,
               uint32_t taken_extra, const uint8_t* exit, const void* const* table)
      : a_(a), lay_(lay), code_(code), entry_(entry), taken_extra_(taken_extra), exit_(exit),
        table_(table) {
    pin();
    bails_.reserve(64);  // (most blocks have fewer exits: no copies as it grows)
  }

  // The jumps to entries that had no block yet: the rel32 field's position, the entry.
  struct Chain {
    int at;
    uint32_t entry;
  };
  const std::vector<Chain>& chains() const { return chains_; }

  // Registers: false when the instruction would need more than the pools hold.
  bool allocate(const Decoded& d, const Operands& o) {
    // The registers the instruction names (a field it does not use may hold anything).
    unsigned xs[3], fs[4];
    int nxs = 0, nfs = 0;
    if (o.x1) xs[nxs++] = d.rs1;
    if (o.x2) xs[nxs++] = d.rs2;
    if (o.xd) xs[nxs++] = d.rd;
    if (o.f1) fs[nfs++] = d.rs1;
    if (o.f2) fs[nfs++] = d.rs2;
    if (o.f3) fs[nfs++] = d.rs3_rm & 31u;
    if (o.fd) fs[nfs++] = d.rd;
    // (First whether they fit, then the new ones their host registers.)
    int x_new = nx_, f_new = nf_;
    uint32_t xs_new = 0, fs_new = 0;
    for (int k = 0; k < nxs; ++k) {
      const unsigned r = xs[k];
      if (r == 0 || r == 32 || xmap_[r] >= 0 || (xs_new >> r & 1)) continue;
      xs_new |= 1u << r;
      if (++x_new > static_cast<int>(std::size(kIntPool))) return false;
    }
    for (int k = 0; k < nfs; ++k) {
      const unsigned r = fs[k];
      if (fmap_[r] >= 0 || (fs_new >> r & 1)) continue;
      fs_new |= 1u << r;
      if (++f_new > kFpPool) return false;
    }
    for (int k = 0; k < nxs; ++k)
      if (const unsigned r = xs[k]; xs_new >> r & 1 && xmap_[r] < 0) xmap_[r] = kIntPool[nx_++];
    for (int k = 0; k < nfs; ++k)
      if (const unsigned r = fs[k]; fs_new >> r & 1 && fmap_[r] < 0) fmap_[r] = 1 + nf_++;
    if (o.xd && d.rd != 32) xwritten_ |= 1u << d.rd;
    if (o.x1_written && d.rs1 != 0) xwritten_ |= 1u << d.rs1;
    if (o.fd) fwritten_ |= 1u << d.rd;
    return true;
  }

  void prologue() {
    a_.cmp_rm(R12, {RBX, lay_.limit}, true);
    a_.jcc(AE, limit_);
    charge(entry_);
    loads();
    a_.bind(body_);
  }
  // The guest registers of the instructions allocated since the last region's start (with
  // lazy loads, only the integer ones the region reads before it writes them).
  void loads() {
    for (int r = 1; r < 32; ++r)
      if (xmap_[r] >= 0 && !(kPinnedMask >> r & 1) && (!lazy_ || (read_first_ >> r & 1)))
        a_.load(xmap_[r], {RBX, 4 * r});
    for (int r = 0; r < 32; ++r)
      if (fmap_[r] >= 0) a_.movss_load(fmap_[r], {RBX, lay_.f + 4 * r});
  }
  // More registers than the host holds: the registers written so far go back to the hart,
  // and the next instructions get host registers afresh (then loads()).
  void next_region() {
    stores();
    std::fill(std::begin(xmap_), std::end(xmap_), -1);
    std::fill(std::begin(fmap_), std::end(fmap_), -1);
    pin();
    nx_ = nf_ = 0;
    xwritten_ = fwritten_ = 0;
    ++regions_;
  }

  // Word loads and stores off one base register whose value does not change between them
  // (a function's frame, a saved context) share one range check, and their stores one
  // test of the guard tags per four words, emitted at the first of them: when any of them
  // would not pass its own checks, the block leaves there, before any of them ran, and the
  // interpreter runs them one by one. Plans a region (the entries ks[0, n), in the order
  // they run) before it is emitted.
  struct Group {
    uint32_t first;  // the entry of its first access, where its checks are
    int32_t at, lo, hi;  // the first's offset; the lowest and highest
    uint32_t count, stores;
  };
  void plan(const uint32_t* ks, size_t n) {
    read_first_ = written_now_ = 0;
    region_last_ = ks[n - 1];
    uint32_t seen = 0;  // the registers an instruction of the region has named so far
    // (With lazy loads, the registers of a segment the block runs on into are loaded at its
    // boundary, segment_entry: not on the way out of the segments before it.)
    bool first_segment = true;
    groups_.clear();
    member_.clear();
    int open[33];
    std::fill(std::begin(open), std::end(open), -1);
    for (size_t p = 0; p < n; ++p) {
      const uint32_t k = ks[p];
      const Decoded& d = code_[k];
      const bool store = (d.op == Op::sw || d.op == Op::fsw) && one_compare();
      // (group_member's sum needs a memory below 2 GiB: see there.)
      if ((store || d.op == Op::lw || d.op == Op::flw) && d.rs1 != 0 &&
          lay_.mem_span <= 0x7fff0000u) {
        int& g = open[d.rs1];
        if (g < 0) {
          g = static_cast<int>(groups_.size());
          groups_.push_back({k, d.imm, d.imm, d.imm, 0, 0});
        }
        Group& G = groups_[static_cast<size_t>(g)];
        const int32_t lo = std::min(G.lo, d.imm), hi = std::max(G.hi, d.imm);
        // The same alignment as the first (the lowest's then decides all), 64 words at most.
        if ((d.imm - G.at) % 4 == 0 && hi - lo < 4 * 64) {
          G.lo = lo;
          G.hi = hi;
          ++G.count;
          if (store) ++G.stores;
          member_.emplace_back(k, g);
        }
      }
      Operands o;
      operands(d, true, o);
      if (o.xd && d.rd < 32) open[d.rd] = -1;  // (after its own access: the address came first)
      if (o.x1_written) open[d.rs1] = -1;
      // rtag's rd counts as read: where the element is absent the call stores it as it is.
      const uint32_t reads = (o.x1 ? 1u << d.rs1 : 0u) | (o.x2 ? 1u << d.rs2 : 0u) |
                             (d.op == Op::rtag && d.rd < 32 ? 1u << d.rd : 0u);
      if (p > 0 && lazy_ && continued(k - 1)) first_segment = false;
      if (first_segment) read_first_ |= reads & ~seen;
      seen |= reads | written_by(d, o);
    }
    // A group of one checks as usual.
    member_.erase(std::remove_if(member_.begin(), member_.end(),
                                 [&](const auto& m) { return groups_[static_cast<size_t>(m.second)].count < 2; }),
                  member_.end());
  }

  // The integer registers the instruction writes.
  static uint32_t written_by(const Decoded& d, const Operands& o) {
    return (o.xd && d.rd < 32 ? 1u << d.rd : 0u) | (o.x1_written ? 1u << d.rs1 : 0u);
  }
  // Lazy loads (no branch back to the block's own entry, where the registers stay in host
  // registers from one round to the next): a region loads only the integer registers it
  // reads before writing, and an exit inside it stores only those written so far (the
  // others are as the hart holds them).
  void set_lazy(bool lazy) { lazy_ = lazy; }
  // The conditional branches whose next segment (the not-taken path) the block runs on
  // into (Translation::translate).
  void set_continued(std::vector<uint32_t> at) { continued_ = std::move(at); }
  bool continued(uint32_t k) const {
    return std::find(continued_.begin(), continued_.end(), k) != continued_.end();
  }
  // After instruction k's code.
  void retire(uint32_t k) {
    Operands o;
    operands(code_[k], true, o);
    written_now_ |= written_by(code_[k], o);
  }

  // One instruction at entry k; control transfers end the block themselves.
  void emit(uint32_t k) {
    const Decoded& d = code_[k];
    const uint32_t pc = lay_.code_base + 4 * k;
    switch (d.op) {
      case Op::lui: set_x(d.rd, static_cast<uint32_t>(d.imm)); break;
      case Op::auipc: set_x(d.rd, pc + static_cast<uint32_t>(d.imm)); break;
      case Op::addi: alu_i(Asm::ADD, d); break;
      case Op::xori: alu_i(Asm::XOR, d); break;
      case Op::ori: alu_i(Asm::OR, d); break;
      case Op::andi: alu_i(Asm::AND, d); break;
      case Op::slti: set_i(L, d); break;
      case Op::sltiu: set_i(B, d); break;
      case Op::slli: shift_i(Asm::SHL, d); break;
      case Op::srli: shift_i(Asm::SHR, d); break;
      case Op::srai: shift_i(Asm::SAR, d); break;
      case Op::add: alu_r(Asm::ADD, d); break;
      case Op::sub: alu_r(Asm::SUB, d); break;
      case Op::xor_: alu_r(Asm::XOR, d); break;
      case Op::or_: alu_r(Asm::OR, d); break;
      case Op::and_: alu_r(Asm::AND, d); break;
      case Op::slt: set_r(L, d); break;
      case Op::sltu: set_r(B, d); break;
      case Op::sll: shift_r(Asm::SHL, d); break;
      case Op::srl: shift_r(Asm::SHR, d); break;
      case Op::sra: shift_r(Asm::SAR, d); break;
      case Op::mul:
        if (d.rd == 32) break;
        a_.mov_rr(RAX, src(d.rs1, RAX));
        a_.imul(RAX, src(d.rs2, RCX));
        a_.mov_rr(xmap_[d.rd], RAX);
        break;
      case Op::mulh: case Op::mulhsu: case Op::mulhu: {
        if (d.rd == 32) break;
        const int s1 = src(d.rs1, RAX), s2 = src(d.rs2, RCX);
        if (d.op == Op::mulhu) a_.mov_rr(RAX, s1); else a_.movsxd(RAX, s1);
        if (d.op == Op::mulh) a_.movsxd(RCX, s2); else a_.mov_rr(RCX, s2);
        a_.imul(RAX, RCX, true);
        a_.shift_i(Asm::SHR, RAX, 32, true);
        a_.mov_rr(xmap_[d.rd], RAX);
        break;
      }
      case Op::div: case Op::divu: case Op::rem: case Op::remu: divide(d); break;
      case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw: load(k, d); break;
      case Op::sb: case Op::sh: case Op::sw: case Op::fsw: store(k, d); break;
      case Op::lw_ai: load_increment(k, d); break;
      case Op::fadd_s: case Op::fsub_s: case Op::fmul_s: case Op::fmadd_s: {
        if (d.op == Op::fmadd_s) {
          a_.movaps(0, fmap_[d.rs3_rm & 31u]);
          a_.vfmadd231ss(0, fmap_[d.rs1], fmap_[d.rs2]);
        } else {
          a_.movaps(0, fmap_[d.rs1]);
          a_.sse(d.op == Op::fadd_s ? Asm::ADDSS : d.op == Op::fsub_s ? Asm::SUBSS : Asm::MULSS, 0,
                 fmap_[d.rs2]);
        }
        // A NaN result: the interpreter runs it again (canonical NaN, fma's NV rule); the
        // host's flags are sticky, so raising them twice changes nothing.
        a_.ucomiss(0, 0);
        a_.jcc(P, bail(k));
        a_.movaps(fmap_[d.rd], 0);
        break;
      }
      case Op::fsgnj_s: case Op::fsgnjn_s: case Op::fsgnjx_s:
        a_.movd_rx(RAX, fmap_[d.rs1]);
        a_.movd_rx(RCX, fmap_[d.rs2]);
        if (d.op == Op::fsgnjn_s) a_.not_r(RCX);
        a_.alu_ri(Asm::AND, RCX, static_cast<int32_t>(0x80000000u));
        if (d.op == Op::fsgnjx_s) {
          a_.alu_rr(Asm::XOR, RAX, RCX);
        } else {
          a_.alu_ri(Asm::AND, RAX, 0x7fffffff);
          a_.alu_rr(Asm::OR, RAX, RCX);
        }
        a_.movd_xr(fmap_[d.rd], RAX);
        break;
      case Op::fmv_x_w:
        if (d.rd != 32) a_.movd_rx(xmap_[d.rd], fmap_[d.rs1]);
        break;
      case Op::fmv_w_x: a_.movd_xr(fmap_[d.rd], src(d.rs1, RAX)); break;
      case Op::beq: branch(k, d, E); break;
      case Op::bne: branch(k, d, NE); break;
      case Op::blt: branch(k, d, L); break;
      case Op::bge: branch(k, d, GE); break;
      case Op::bltu: branch(k, d, B); break;
      case Op::bgeu: branch(k, d, AE); break;
      case Op::jal:
        set_x(d.rd, pc + 4);
        stores();
        go_to(k + static_cast<uint32_t>(d.imm / 4), false);
        break;
      case Op::jalr: jalr(k, d, pc); break;
      case Op::rtag: tag_read(k, d); break;
      case Op::wtag: tag_write(k, d); break;
      default:  // operands() said it is an environment instruction
        if (csr_read_field(d)) csr_read(k, d);
        else env_call(k);
        break;
    }
  }

  // After the last instruction when it is not a control transfer: on to `next`, a
  // segment's entry (complete) or an instruction inside the segment (the interpreter's).
  void fall_through(uint32_t next, bool complete) {
    stores();
    if (complete) go_to(next, false);
    else exit(Translation::Exit::resume, next);
  }

  // The cold paths, after the body.
  void epilogue() {
    a_.bind(limit_);
    exit(Translation::Exit::limit, entry_);
    if (env_exit_.used()) {
      a_.bind(env_exit_);
      exit(Translation::Exit::env, 0);
    }
    for (Bail& b : bails_) {
      a_.bind(b.label);
      store_regs(b.xmap, b.fmap, b.xwritten, b.fwritten);
      exit(b.exit, b.at);
    }
  }

 private:
  Mem x_mem(unsigned r) const { return {RBX, static_cast<int32_t>(4 * r)}; }
  // The charge of the segment entered at `at` (as the interpreter's at its entry).
  void charge(uint32_t at) {
    const Decoded& e = code_[at];
    a_.alu_ri(Asm::ADD, R12, e.seg_cost, true);
    a_.alu_mi(Asm::ADD, {RBX, lay_.instret}, e.seg_count, true);
  }
  // The host register holding x[r] (x0: `scratch`, zeroed).
  int src(unsigned r, int scratch) {
    if (r == 0) {
      a_.alu_rr(Asm::XOR, scratch, scratch);
      return scratch;
    }
    return xmap_[r];
  }
  void set_x(unsigned rd, uint32_t v) {
    if (rd != 32) a_.mov_ri(xmap_[rd], v);
  }
  void alu_i(Asm::Alu op, const Decoded& d) {
    if (d.rd == 32) return;
    const int h = xmap_[d.rd];
    if (d.rs1 == 0) return a_.mov_ri(h, op == Asm::AND ? 0u : static_cast<uint32_t>(d.imm));  // 0 op imm
    a_.mov_rr(h, xmap_[d.rs1]);
    if (d.imm || op == Asm::AND) a_.alu_ri(op, h, d.imm);  // (addi rd, rs, 0 is a move)
  }
  void shift_i(Asm::Shift op, const Decoded& d) {
    if (d.rd == 32) return;
    const int h = xmap_[d.rd];
    a_.mov_rr(h, src(d.rs1, RAX));
    a_.shift_i(op, h, static_cast<uint8_t>(d.imm & 31));
  }
  void set_i(Cond c, const Decoded& d) {
    if (d.rd == 32) return;
    a_.alu_ri(Asm::CMP, src(d.rs1, RAX), d.imm);
    a_.setcc(c, RAX);
    a_.movzx_r8(xmap_[d.rd], RAX);
  }
  void alu_r(Asm::Alu op, const Decoded& d) {
    if (d.rd == 32) return;
    const int s2 = src(d.rs2, RCX), h = xmap_[d.rd];
    if (h != s2) {  // rd = rs1 op rs2 in rd itself
      a_.mov_rr(h, src(d.rs1, RAX));
      return a_.alu_rr(op, h, s2);
    }
    a_.mov_rr(RAX, src(d.rs1, RAX));
    a_.alu_rr(op, RAX, s2);
    a_.mov_rr(h, RAX);
  }
  void set_r(Cond c, const Decoded& d) {
    if (d.rd == 32) return;
    const int s2 = src(d.rs2, RCX);
    a_.alu_rr(Asm::CMP, src(d.rs1, RAX), s2);
    a_.setcc(c, RAX);
    a_.movzx_r8(xmap_[d.rd], RAX);
  }
  void shift_r(Asm::Shift op, const Decoded& d) {
    if (d.rd == 32) return;
    a_.mov_rr(RCX, src(d.rs2, RCX));
    a_.mov_rr(RAX, src(d.rs1, RAX));
    a_.shift_cl(op, RAX);
    a_.mov_rr(xmap_[d.rd], RAX);
  }
  // RISC-V's division never traps: x / 0 = all ones, x % 0 = x, INT_MIN / -1 = INT_MIN,
  // INT_MIN % -1 = 0 (isa/rv32m.def); the host's would, so those cases go around it.
  void divide(const Decoded& d) {
    if (d.rd == 32) return;
    const bool is_signed = d.op == Op::div || d.op == Op::rem;
    const bool quotient = d.op == Op::div || d.op == Op::divu;
    a_.mov_rr(RCX, src(d.rs2, RCX));
    a_.mov_rr(RAX, src(d.rs1, RAX));
    Label by_zero, overflow, done;
    a_.test_rr(RCX, RCX);
    a_.jcc(E, by_zero);
    if (is_signed) {
      Label plain;
      a_.alu_ri(Asm::CMP, RCX, -1);
      a_.jcc(NE, plain);
      a_.alu_ri(Asm::CMP, RAX, INT32_MIN);
      a_.jcc(E, overflow);
      a_.bind(plain);
    }
    a_.push(RDX);  // edx:eax is the dividend; rdx may hold a guest register
    if (is_signed) a_.cdq();
    else a_.alu_rr(Asm::XOR, RDX, RDX);
    a_.div_r(is_signed, RCX);
    if (!quotient) a_.mov_rr(RAX, RDX);
    a_.pop(RDX);
    a_.jmp(done);
    a_.bind(by_zero);  // eax is x: the remainder
    if (quotient) a_.mov_ri(RAX, ~0u);
    if (is_signed) {
      a_.jmp(done);
      a_.bind(overflow);  // eax is INT_MIN: the quotient
      if (!quotient) a_.alu_rr(Asm::XOR, RAX, RAX);
    }
    a_.bind(done);
    a_.mov_rr(xmap_[d.rd], RAX);
  }
  // eax = x[rs1] + imm
  void address(const Decoded& d) {
    if (d.rs1 == 0) a_.mov_ri(RAX, static_cast<uint32_t>(d.imm));
    else if (d.imm) a_.lea(RAX, {xmap_[d.rs1], d.imm}, false);  // (32-bit: mod 2^32)
    else a_.mov_rr(RAX, xmap_[d.rs1]);
  }
  // An access off a register whose range check finds base + offset in memory (at 4 KiB or
  // more, below 2 GiB): the host adds the offset itself (as group_member), and the check
  // computes its index straight from the base, with no address in eax.
  bool off_base(const Decoded& d) const { return d.rs1 != 0 && lay_.mem_span <= 0x7fff0000u; }
  // ecx = the address of the access at d minus `from` (32-bit, as the guest's sum).
  void index_from(const Decoded& d, uint32_t from) {
    if (off_base(d)) return a_.lea(RCX, {xmap_[d.rs1], d.imm - static_cast<int32_t>(from)}, false);
    address(d);
    a_.lea(RCX, {RAX, -static_cast<int32_t>(from)}, false);
  }
  Mem access(const Decoded& d) const { return off_base(d) ? group_member(d) : Mem{RBP, 0, RAX}; }
  // Range and alignment in one compare, as Hart::load/store (execute.cpp).
  void range_check(uint32_t k, unsigned size_shift, const Decoded& d) {
    index_from(d, mem::kGuardBytes);
    range_check_index(k, size_shift);
  }
  // ... of the address in eax.
  void range_check_rax(uint32_t k, unsigned size_shift) {
    a_.lea(RCX, {RAX, -static_cast<int32_t>(mem::kGuardBytes)}, false);
    range_check_index(k, size_shift);
  }
  // ... with ecx = the address minus the guard's bytes.
  void range_check_index(uint32_t k, unsigned size_shift) {
    if (size_shift) a_.shift_i(Asm::ROR, RCX, static_cast<uint8_t>(size_shift));
    a_.cmp_rm(RCX, {RBX, lay_.last_index + static_cast<int32_t>(4 * size_shift)});
    a_.jcc(A, bail(k));
  }
  // The code starts where the memory does (programs are linked so): a store's range,
  // alignment and "not into the code" are one compare.
  bool one_compare() const {
    return lay_.code_base == mem::kGuardBytes &&
           lay_.code_base + lay_.code_bytes + 4 <= mem::kGuardBytes + lay_.mem_span;
  }
  // The group of the access at k (plan), or nullptr; its checks when k is its first.
  const Group* grouped(uint32_t k) {
    const auto m = std::find_if(member_.begin(), member_.end(), [k](const auto& e) { return e.first == k; });
    if (m == member_.end()) return nullptr;
    const int g = m->second;
    const Group& G = groups_[static_cast<size_t>(g)];
    if (G.first == k) group_check(k, G);
    return &G;
  }
  void group_check(uint32_t k, const Group& G) {
    const Decoded& d = code_[k];
    const int32_t span_words = (G.hi - G.lo) / 4;
    const uint32_t code_end = lay_.code_base + lay_.code_bytes, top = mem::kGuardBytes + lay_.mem_span;
    // As range_check's for a load, store()'s one compare (planned only where it applies)
    // for a store: the lowest word, with room for the highest.
    const uint32_t from = G.stores ? code_end : mem::kGuardBytes;
    const int64_t last = static_cast<int64_t>((top - from - 4) >> 2) - span_words;
    if (last < 0) return a_.jmp(bail(k));  // (a memory too small for the span)
    a_.lea(RCX, {xmap_[d.rs1], G.lo - static_cast<int32_t>(from)}, false);  // (32-bit: mod 2^32)
    a_.shift_i(Asm::ROR, RCX, 2);
    a_.alu_ri(Asm::CMP, RCX, static_cast<int32_t>(last));
    a_.jcc(A, bail(k));
    if (!G.stores) return;
    // ecx = (lowest - code_end) / 4: the lowest word's tag is at tags + ecx + code_end / 4.
    uint64_t words = 0;  // the stored words, from the lowest
    for (const auto& [j, g] : member_)
      if (g == &G - groups_.data() && (code_[j].op == Op::sw || code_[j].op == Op::fsw))
        words |= uint64_t{1} << ((code_[j].imm - G.lo) / 4);
    a_.add_rm64(RCX, {RBX, lay_.tags});
    const int32_t at = static_cast<int32_t>(code_end >> 2);
    for (int c = 0; c < 64; c += 4) {
      const unsigned m = static_cast<unsigned>(words >> c) & 15u;
      if (!m) continue;
      auto bytes = [](unsigned bits) {
        uint32_t v = 0;
        for (int b = 0; b < 4; ++b)
          if (bits >> b & 1) v |= uint32_t{kTagGuard} << (8 * b);
        return v;
      };
      if (m & 8) {
        a_.test_mi32({RCX, at + c}, bytes(m));
      } else {
        if (m & 3) {
          if (m & 2) a_.test_mi16({RCX, at + c}, static_cast<uint16_t>(bytes(m & 3)));
          else a_.test_mi8({RCX, at + c}, kTagGuard);
          if (m & 4) a_.jcc(NE, bail(k));
        }
        if (m & 4) a_.test_mi8({RCX, at + c + 2}, kTagGuard);
      }
      a_.jcc(NE, bail(k));
    }
  }
  // A group member's host address. Its group's check found base + lowest offset in memory
  // (at 4 KiB or more, below 2 GiB), which a sum that wrapped around 32 bits cannot be (the
  // offsets are 12-bit), and the host registers of guest registers hold them
  // zero-extended (every write is a 32-bit one): so the host adds the offset itself.
  Mem group_member(const Decoded& d) const { return {RBP, d.imm, xmap_[d.rs1]}; }
  void load(uint32_t k, const Decoded& d) {
    if (grouped(k)) {
      const Mem m = group_member(d);
      if (d.op == Op::flw) return a_.movss_load(fmap_[d.rd], m);
      return a_.load(d.rd == 32 ? RCX : xmap_[d.rd], m);
    }
    const unsigned sh = d.op == Op::lb || d.op == Op::lbu ? 0 : d.op == Op::lh || d.op == Op::lhu ? 1 : 2;
    range_check(k, sh, d);
    const Mem m = access(d);
    if (d.op == Op::flw) return a_.movss_load(fmap_[d.rd], m);
    const int h = d.rd == 32 ? RCX : xmap_[d.rd];
    switch (d.op) {
      case Op::lb: a_.movsx8(h, m); break;
      case Op::lbu: a_.movzx8(h, m); break;
      case Op::lh: a_.movsx16(h, m); break;
      case Op::lhu: a_.movzx16(h, m); break;
      default: a_.load(h, m); break;
    }
  }
  // lw.ai (isa/emcy.def): rd = mem32[rs1], then rs1 += imm, rd winning when rd = rs1. The
  // load's checks come first, so a fault (the interpreter's, at k) changes no register.
  void load_increment(uint32_t k, const Decoded& d) {
    if (d.rs1 == 0) a_.alu_rr(Asm::XOR, RAX, RAX);
    else a_.mov_rr(RAX, xmap_[d.rs1]);
    range_check_rax(k, 2);
    a_.load(RCX, {RBP, 0, RAX});
    if (d.rs1 != 0 && d.imm) a_.alu_ri(Asm::ADD, xmap_[d.rs1], d.imm);
    if (d.rd != 32) a_.mov_rr(xmap_[d.rd], RCX);
  }
  void store(uint32_t k, const Decoded& d) {
    const unsigned sh = d.op == Op::sb ? 0 : d.op == Op::sh ? 1 : 2;
    const uint32_t code_end = lay_.code_base + lay_.code_bytes, top = mem::kGuardBytes + lay_.mem_span;
    if (one_compare() && grouped(k)) return store_value(group_member(d), d);
    int32_t tag_at = 0;  // rcx + tag_at: the word's tag (after add tags)
    if (one_compare()) {
      // The code starts where the memory does (programs are linked so): in memory, aligned
      // and not into the code is one compare, as range_check's, from the code's end.
      index_from(d, code_end);
      if (sh) a_.shift_i(Asm::ROR, RCX, static_cast<uint8_t>(sh));
      a_.alu_ri(Asm::CMP, RCX, static_cast<int32_t>((top - code_end - (1u << sh)) >> sh));
      a_.jcc(A, bail(k));
      // A word's: ecx = (address - code_end) / 4 now, so its tag is at tags + ecx + code_end / 4.
      if (sh == 2) tag_at = static_cast<int32_t>(code_end >> 2);
    } else {
      range_check(k, sh, d);
      if (off_base(d)) a_.lea(RAX, {xmap_[d.rs1], d.imm}, false);  // (the tag's below)
      a_.lea(RCX, {RAX, -static_cast<int32_t>(lay_.code_base)}, false);  // not into the code
      a_.alu_ri(Asm::CMP, RCX, static_cast<int32_t>(lay_.code_bytes));
      a_.jcc(B, bail(k));
    }
    if (!tag_at) {  // not into a stack guard word
      if (one_compare() && off_base(d)) a_.lea(RCX, {xmap_[d.rs1], d.imm}, false);
      else a_.mov_rr(RCX, RAX);
      a_.shift_i(Asm::SHR, RCX, 2);
    }
    a_.add_rm64(RCX, {RBX, lay_.tags});
    a_.test_mi8({RCX, tag_at}, kTagGuard);
    a_.jcc(NE, bail(k));
    store_value(access(d), d);
  }
  void store_value(const Mem& m, const Decoded& d) {
    if (d.op == Op::fsw) return a_.movss_store(m, fmap_[d.rs2]);
    if (d.rs2 == 0) {
      if (d.op == Op::sb) a_.store8_i(m, 0);
      else if (d.op == Op::sh) a_.store16_i(m, 0);
      else a_.store32_i(m, 0);
      return;
    }
    const int v = xmap_[d.rs2];
    if (d.op == Op::sb) a_.store8(m, v);
    else if (d.op == Op::sh) a_.store16(m, v);
    else a_.store(m, v);
  }
  void branch(uint32_t k, const Decoded& d, Cond taken) {
    // Against x0: test sets the flags as cmp with 0 does (CF = OF = 0, ZF and SF of rs1).
    if (d.rs2 == 0 && d.rs1 != 0) {
      a_.test_rr(xmap_[d.rs1], xmap_[d.rs1]);
    } else {
      const int s2 = src(d.rs2, RCX);
      a_.alu_rr(Asm::CMP, src(d.rs1, RAX), s2);
    }
    Label not_taken;
    a_.jcc(static_cast<Cond>(taken ^ 1), not_taken);
    if (!d.near_target()) {
      a_.jmp(bail(k));  // the interpreter takes it (and faults)
    } else {
      const uint32_t target = k + static_cast<uint32_t>(d.imm / 4);
      if (taken_extra_) a_.alu_ri(Asm::ADD, R12, static_cast<int32_t>(taken_extra_), true);
      // (Lazy loads leave registers out that a later round may read: see set_lazy.)
      const bool self = target == entry_ && regions_ == 1 && !lazy_;
      if (!self) stores_so_far();
      go_to(target, self);
    }
    a_.bind(not_taken);
    if (continued(k)) return segment_entry(k + 1);
    stores();
    go_to(k + 1, false);
  }
  // On into the segment at n within the block: the clock check and charge of a block
  // entered there, the guest registers staying in host registers (at the limit, those
  // written so far go back to the hart and the run stops at n, as that block's would).
  void segment_entry(uint32_t n) {
    a_.cmp_rm(R12, {RBX, lay_.limit}, true);
    a_.jcc(AE, bail(n, Translation::Exit::limit));
    charge(n);
    if (!lazy_) return;
    // The registers this segment's part of the region reads before it writes them, and
    // that no instruction before it in the region has read or written.
    uint32_t reads_first = 0, seen = read_first_ | written_now_;
    for (uint32_t k = n; k <= region_last_ && (k == n || !continued(k - 1)); ++k) {
      const Decoded& d = code_[k];
      Operands o;
      operands(d, true, o);
      const uint32_t reads = (o.x1 ? 1u << d.rs1 : 0u) | (o.x2 ? 1u << d.rs2 : 0u) |
                             (d.op == Op::rtag && d.rd < 32 ? 1u << d.rd : 0u);
      reads_first |= reads & ~seen;
      seen |= reads | written_by(d, o);
    }
    for (uint32_t w = reads_first & ~1u & ~kPinnedMask; w; w &= w - 1) {
      const unsigned r = static_cast<unsigned>(__builtin_ctz(w));
      if (xmap_[r] >= 0) a_.load(xmap_[r], x_mem(r));
    }
    read_first_ |= reads_first;
  }
  void jalr(uint32_t k, const Decoded& d, uint32_t pc) {
    // eax = (target - code_base) rotated right by 2: the entry's index, or (misaligned or
    // out of the code) at least the code's words (the code's base is word-aligned).
    const int32_t off = d.imm - static_cast<int32_t>(lay_.code_base);
    if (d.rs1 == 0) a_.mov_ri(RAX, static_cast<uint32_t>(off));
    else a_.lea(RAX, {xmap_[d.rs1], off}, false);  // (32-bit: mod 2^32)
    a_.alu_ri(Asm::AND, RAX, ~1);
    a_.shift_i(Asm::ROR, RAX, 2);
    a_.alu_ri(Asm::CMP, RAX, static_cast<int32_t>(lay_.code_bytes / 4));
    a_.jcc(AE, bail(k));
    set_x(d.rd, pc + 4);
    stores();
    go_to_rax();
  }
  // rcx = the tag byte's host address of the word at eax (checked as a word: range_check).
  void tag_address() {
    a_.mov_rr(RCX, RAX);
    a_.shift_i(Asm::SHR, RCX, 2);
    a_.add_rm64(RCX, {RBX, lay_.tags});
  }
  // rtag (isa/emcy.def, TAG_READ): a present element's tag bits are read here; otherwise
  // the call settles first, as the interpreter does. A wrong address: the interpreter.
  void tag_read(uint32_t k, const Decoded& d) {
    a_.mov_rr(RAX, src(d.rs1, RAX));
    range_check_rax(k, 2);
    tag_address();
    a_.movzx8(RCX, {RCX});
    a_.test_ri8(RCX, kTagPresent);
    Label absent;
    a_.jcc(E, absent);
    if (d.rd != 32) a_.mov_rr(xmap_[d.rd], RCX);
    stores();
    go_to(k + 1, false);
    a_.bind(absent);  // rd still holds its value: stored as it is
    env_call(k);
  }
  // wtag (TAG_WRITE): the tag bits of the word at R1 = R2 (mem::LocalMemory::set_tag).
  void tag_write(uint32_t k, const Decoded& d) {
    a_.mov_rr(RAX, src(d.rs1, RAX));
    range_check_rax(k, 2);
    tag_address();
    a_.mov_rr(RAX, src(d.rs2, RAX));
    a_.alu_ri(Asm::AND, RAX, mem::kTagMask);
    a_.store8({RCX}, RAX);
    stores();
    go_to(k + 1, false);
  }
  // A CSR read of a hart field (csr_read_field).
  void csr_read(uint32_t k, const Decoded& d) {
    if (d.rd != 32) a_.load(xmap_[d.rd], {RBX, lay_.csr_field(static_cast<uint32_t>(d.imm))});
    stores();
    go_to(k + 1, false);
  }
  // The environment instruction at k, the segment's last: registers and clock to the
  // hart, the row's Hart::run_env, then on at the entry it names (or leave, as it says).
  void env_call(uint32_t k) {
    const Decoded& d = code_[k];
    const bool send = isa::insn_info(d.op).tclass == isa::TimingClass::send;
    if (send) {
      // The row's operands (isa/emcy.def): address R1, plus IMM in the displacement form;
      // data R2. (Into scratch registers first: the arguments' are guest registers.)
      a_.mov_rr(RAX, src(d.rs1, RAX));
      if (isa::insn_info(d.op).format == isa::Format::S && d.imm) a_.alu_ri(Asm::ADD, RAX, d.imm);
      a_.mov_rr(RCX, src(d.rs2, RCX));  // send_data
    }
    stores();
    const bool direct = send && k + 1 < lay_.code_bytes / 4;
    if (direct) {
      // First the hart's DirectSend (Hart::set_direct_send), and when it takes the send,
      // on to the next entry as run_env would (stop_requested_ is false while blocks run,
      // and it changes nothing); the clock is its argument, not stored.
      a_.mov_rr(RDX, RAX);  // addr (data in ecx)
      a_.load(RDI, {RBX, lay_.direct_send_ctx}, true);
      a_.mov_ri(RSI, static_cast<uint32_t>(isa::send_type(d.op)));
      a_.mov_ri(R8, lay_.code_base + 4 * k);  // pc
      a_.mov_rr(R9, R12, true);               // cycle
      a_.load(RAX, {RBX, lay_.direct_send}, true);
      a_.call_r(RAX);
      Label other;
      a_.alu_ri(Asm::CMP, RAX, 1);
      a_.jcc(NE, other);
      go_to(k + 1, false);
      a_.bind(other);
      // (The pinned registers are callee-saved: a taken send leaves them in place.)
      for (const Pinned& p : kPinned) a_.store(x_mem(p.guest), p.host);
      a_.store({RBX, lay_.cycles}, R12, true);
      a_.test_rr(RAX, RAX);
      a_.jcc(NE, env_exit_);  // it failed (Hart::env_failed)
      // Not taken: the row's entry, with the operands again from the hart (the call
      // clobbered the host registers; the block stored the ones it wrote).
      if (d.rs1 == 0) a_.alu_rr(Asm::XOR, RAX, RAX);
      else a_.load(RAX, x_mem(d.rs1));
      if (isa::insn_info(d.op).format == isa::Format::S && d.imm) a_.alu_ri(Asm::ADD, RAX, d.imm);
      if (d.rs2 == 0) a_.alu_rr(Asm::XOR, RCX, RCX);
      else a_.load(RCX, x_mem(d.rs2));
    }
    if (!direct) {
      for (const Pinned& p : kPinned) a_.store(x_mem(p.guest), p.host);
      a_.store({RBX, lay_.cycles}, R12, true);
    }
    if (send) a_.mov_rr(RDX, RAX);  // send_addr
    a_.lea(RDI, {RBX, lay_.hart});
    a_.mov_ri(RSI, k);
    a_.mov_ri64(RAX, TranslationLayout::env_entry(code_[k].op, direct));
    a_.call_r(RAX);  // the stack is 16-byte aligned here (the trampoline's 7 pushes)
    a_.load(R12, {RBX, lay_.cycles}, true);
    for (const Pinned& p : kPinned) a_.load(p.host, x_mem(p.guest));  // (the env may write them)
    a_.test_rr(RAX, RAX);
    a_.jcc(E, env_exit_);
    a_.alu_ri(Asm::SUB, RAX, 1);  // 32-bit: the upper half of rax is not the callee's
    go_to_rax();
  }
  // To the entry in eax (zero-extended), whose block is not known here.
  void go_to_rax() {
    a_.load(RCX, {RBX, lay_.table}, true);
    a_.load(RCX, {RCX, 0, RAX, 8}, true);
    Label none;
    a_.test_rr(RCX, RCX, true);
    a_.jcc(E, none);
    a_.jmp_r(RCX);
    a_.bind(none);
    a_.mov_rr(RDX, RAX);
    a_.mov_ri(RAX, static_cast<uint32_t>(Translation::Exit::segment));
    a_.jmp_abs(exit_);
  }
  // To the entry `target` (registers stored, unless `self`: the block's own entry, where
  // they stay in host registers).
  void go_to(uint32_t target, bool self) {
    if (self) {
      a_.cmp_rm(R12, {RBX, lay_.limit}, true);
      a_.jcc(AE, bail(entry_, Translation::Exit::limit));  // (with the registers of region 1)
      charge(entry_);
      a_.jmp(body_);
      return;
    }
    // Blocks are never replaced: a jump to one that exists goes straight there.
    if (const void* b = table_[target]) return a_.jmp_abs(static_cast<const uint8_t*>(b));
    // None yet: on to the exit below, until Translation::translate points the jump at the
    // block it makes there.
    Label none;
    a_.jmp(none);
    chains_.push_back({a_.pos() - 4, target});
    a_.bind(none);
    exit(Translation::Exit::segment, target);
  }
  void exit(Translation::Exit e, uint32_t index) {
    a_.mov_ri(RAX, static_cast<uint32_t>(e));
    a_.mov_ri(RDX, index);
    a_.jmp_abs(exit_);
  }
  void stores() { store_regs(xmap_, fmap_, xwritten_, fwritten_); }
  void pin() {
    for (const Pinned& p : kPinned) xmap_[p.guest] = p.host;
  }
  // Inside a region that runs on past a branch (set_continued): with lazy loads, the
  // region's later writes are to registers that were never loaded.
  void stores_so_far() { store_regs(xmap_, fmap_, lazy_ ? written_now_ : xwritten_, fwritten_); }
  void store_regs(const int* xmap, const int* fmap, uint32_t xwritten, uint32_t fwritten) {
    for (uint32_t w = xwritten & ~1u & ~kPinnedMask; w; w &= w - 1) {
      const unsigned r = static_cast<unsigned>(__builtin_ctz(w));
      a_.store(x_mem(r), xmap[r]);
    }
    for (uint32_t w = fwritten; w; w &= w - 1) {
      const int r = __builtin_ctz(w);
      a_.movss_store({RBX, lay_.f + 4 * r}, fmap[r]);
    }
  }
  // The exit to the interpreter at instruction k, with the registers of k's region (or,
  // Exit::limit, at the entry k of a segment the block runs on into).
  Label& bail(uint32_t k, Translation::Exit exit = Translation::Exit::resume) {
    for (Bail& b : bails_)
      if (b.at == k && b.exit == exit) return b.label;
    Bail& b = bails_.emplace_back();
    b.at = k;
    b.exit = exit;
    std::copy(std::begin(xmap_), std::end(xmap_), b.xmap);
    std::copy(std::begin(fmap_), std::end(fmap_), b.fmap);
    b.xwritten = lazy_ ? written_now_ : xwritten_;
    b.fwritten = fwritten_;
    return b.label;
  }

  Asm& a_;
  const TranslationLayout& lay_;
  const Decoded* code_;
  uint32_t entry_, taken_extra_;
  const uint8_t* exit_;
  const void* const* table_;
  std::vector<Chain> chains_;
  int xmap_[33] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                   -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  int fmap_[32] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                   -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  int nx_ = 0, nf_ = 0;
  uint32_t xwritten_ = 0, fwritten_ = 0;
  bool lazy_ = false;
  uint32_t read_first_ = 0, written_now_ = 0;  // plan(), retire(); segment_entry()
  uint32_t region_last_ = 0;  // plan()
  int regions_ = 1;  // a branch to the entry stays in host registers only with one
  std::vector<uint32_t> continued_;  // set_continued: by the branch's entry
  Label limit_, body_, env_exit_;
  struct Bail {
    uint32_t at;
    Translation::Exit exit;
    Label label;
    int xmap[33], fmap[32];
    uint32_t xwritten, fwritten;
  };
  std::vector<Bail> bails_;  // bound after the body
  std::vector<Group> groups_;
  std::vector<std::pair<uint32_t, int>> member_;  // the grouped accesses: entry, group
};

}  // namespace

const void* Translation::translate(const Hart& h, uint32_t index) {
  heat_[index] = INT32_MIN;  // not again for a long while, whatever happens
  if (index >= words_) return nullptr;
  static const bool host_fma = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") != 0;
  }();
  const TranslationLayout lay(h);
  uint8_t* at = space_ + used_;
  Asm a(at);
  BlockEmitter e(a, lay, code_, index, taken_extra_, exit_, table_.data());
  // The instructions the block runs, in regions of as many as the host's registers hold:
  // the segment from `index`, and on into the segment after a conditional branch (its
  // not-taken path) a few times, the guest registers staying in host registers across.
  // (Running on at a jal's target too cost more to translate, the callee's code once per
  // caller, than it saved.)
  std::vector<uint32_t> trace, continued;
  trace.reserve(kMaxBlock + 255);
  bool loops = false;  // the last branch goes back to `index` (registers stay in host registers)
  for (uint32_t from = index;;) {
    const uint32_t end = from + code_[from].seg_count;  // past the segment's last
    for (uint32_t k = from; k < end; ++k) trace.push_back(k);
    const uint32_t last = end - 1;
    const Decoded& b = code_[last];
    const isa::Format format =
        b.op == isa::Op::illegal ? isa::Format::NONE : isa::insn_info(b.op).format;
    if (format != isa::Format::B) break;
    // A branch back to the entry: a loop, whose way out (run once a loop) the block leaves
    // to another (loading its registers for every round is what would cost).
    loops = b.near_target() && last + static_cast<uint32_t>(b.imm / 4) == index;
    if (loops) break;
    const uint32_t next = end;
    // Not into FP code: a block loads every FP register of a region at its start and
    // stores every one it writes at each exit (where the integer ones are loaded lazily).
    auto fp = [&](const Decoded& d) {
      Operands o;
      return operands(d, host_fma, o) && (o.f1 || o.f2 || o.f3 || o.fd);
    };
    Operands o;
    if (continued.size() == kMaxContinued || next >= words_ ||
        trace.size() + code_[next].seg_count > kMaxBlock || !operands(code_[next], host_fma, o) ||
        std::any_of(code_ + next, code_ + next + code_[next].seg_count, fp))
      break;
    continued.push_back(last);
    from = next;
  }
  e.set_lazy(!loops);
  e.set_continued(std::move(continued));
  const size_t n_trace = trace.size();
  size_t p = 0;
  for (bool first = true;; first = false) {
    size_t q = p;
    bool outside = false;  // at an instruction not in the subset
    for (; q < n_trace; ++q) {
      Operands o;
      if (!operands(code_[trace[q]], host_fma, o)) {
        outside = true;
        break;
      }
      if (!e.allocate(code_[trace[q]], o)) break;
    }
    if (q == p) break;
    e.plan(trace.data() + p, q - p);
    first ? e.prologue() : e.loads();
    for (; p < q; ++p) {
      e.emit(trace[p]);
      e.retire(trace[p]);
    }
    if (outside || p == n_trace) break;
    e.next_region();
  }
  const bool complete = p == n_trace;
  if (p == 0 || (!complete && p < kMinPartial)) return nullptr;
  const uint32_t ran = trace[p - 1];  // the last instruction emitted
  const isa::TimingClass last_class = isa::insn_info(code_[ran].op).tclass;
  if (!complete || (last_class != isa::TimingClass::branch &&
                    last_class != isa::TimingClass::jump && !is_env(code_[ran])))
    e.fall_through(complete ? ran + 1 : trace[p], complete);
  e.epilogue();
  const size_t n = a.bytes().size();
  if (used_ + n > space_bytes_) return nullptr;
  std::memcpy(at, a.bytes().data(), n);
  used_ = (used_ + n + 15) & ~size_t{15};
  table_[index] = at;
  for (const BlockEmitter::Chain& c : e.chains()) waiting_[c.entry].push_back(at + c.at);
  // The jumps that waited for this block go to it now.
  if (auto w = waiting_.find(index); w != waiting_.end()) {
    for (uint8_t* field : w->second) {
      const int32_t rel = static_cast<int32_t>(at - (field + 4));
      std::memcpy(field, &rel, 4);
    }
    waiting_.erase(w);
  }
  return at;
}

}  // namespace emx::iss

#else  // not x86-64: no translation

namespace emx::iss {
std::unique_ptr<Translation> Translation::make(const Hart&, const Decoded*, uint32_t) {
  return nullptr;
}
Translation::~Translation() = default;
bool Translation::fits(const Hart&) const { return false; }
const void* Translation::translate(const Hart&, uint32_t) { return nullptr; }
}  // namespace emx::iss

#endif
