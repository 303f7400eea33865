// The vocabulary of the semantics column of isa/*.def. Included only inside
// Hart::run() (execute.cpp), where these names are in scope:
//   d (const Decoded&), dp, ndp (this and the next instruction's entries), cycles,
//   instret (locals), PC_OF, GOTO_PC (execute.cpp), this (the Hart).
//
//   PC            address of this instruction        IMM      decoded immediate (int32_t)
//   R1 R2         x[rs1], x[rs2] as uint32_t        SR1 SR2  the same as int32_t
//   RS1_INDEX     the rs1 field itself (CSR uimm)    WR(v)    x[rd] = v (x0 discarded)
//   WR1(v)        x[rs1] = v (x0 discarded): an auto-increment's base update
//   JUMP(t)       continue at t (faults if t is misaligned)
//   TAKEN(t)      JUMP(t) and charge branch_taken instead of branch
//   JUMP_REL() TAKEN_REL()  the same to PC + IMM: straight to its decoded entry when it
//                 is in the code (the target is fixed: no address to compute)
//   LOAD(T, a)    load a T from local byte address a; STORE(T, a, v) store it
//   FAULT(kind)   stop with an architectural fault (FaultKind::kind)
//   CSR_OP(op, operand, write)     Zicsr read-modify-write of CSR number IMM
//   SEND(type, addr, data)         hand a packet to the PE (may stall: cycles grows)
//   END_THREAD()                   end the thread; the PE starts the next or stops us
//   TAG_READ(a) TAG_WRITE(a, v)    tag bits of the word at local byte address a
// Floating point (f holds raw bits):
//   F1 F2 F3      f[rs1..3] as float                FB1 FB2 FB3  the raw bits
//   WF(v)         f[rd] = float v, NaN made canonical (0x7fc00000)
//   WFB(b)        f[rd] = raw bits b                 FD_INDEX     the rd field
//   RM            the effective rounding mode (instruction's, or frm for dyn);
//                 an invalid one is an illegal instruction
//   FFLAGS        Hart::fflags, to OR in flags computed in software (fp::NV etc.)
//   HOST_FLAGS()  fold the host FPU's sticky flags into FFLAGS now
#pragma once

#define PC PC_OF(dp)
#define IMM d.imm
#define R1 x[d.rs1]
#define R2 x[d.rs2]
#define SR1 static_cast<int32_t>(x[d.rs1])
#define SR2 static_cast<int32_t>(x[d.rs2])
#define RS1_INDEX static_cast<uint32_t>(d.rs1)
#define FD_INDEX d.rd
#define WR(v) (x[d.rd] = static_cast<uint32_t>(v))
#define WR1(v)                                              \
  do {                                                      \
    if (d.rs1) x[d.rs1] = static_cast<uint32_t>(v);         \
  } while (0)

#define JUMP(t)                                                              \
  do {                                                                       \
    const uint32_t jump_target_ = (t);                                       \
    if (__builtin_expect(jump_target_ & 3u, 0))                              \
      throw Trap{FaultKind::misaligned_fetch, jump_target_, {}};             \
    GOTO_PC(jump_target_);                                                   \
  } while (0)
#define TAKEN(t)             \
  do {                       \
    JUMP(t);                 \
    cycles += taken_extra_;  \
  } while (0)

#define JUMP_REL()                                                                 \
  do {                                                                             \
    if (__builtin_expect(d.near_target(), 1)) /* IMM / 4 entries of 16 bytes */   \
      ndp = reinterpret_cast<const Decoded*>(reinterpret_cast<const char*>(dp) +   \
                                             static_cast<std::ptrdiff_t>(IMM) * 4); \
    else                                                                           \
      JUMP(PC + IMM);                                                              \
  } while (0)
#define TAKEN_REL()          \
  do {                       \
    JUMP_REL();              \
    cycles += taken_extra_;  \
  } while (0)

#define LOAD(T, a) load<T>(a)
#define STORE(T, a, v) store<T>((a), static_cast<T>(v))
#define FAULT(kind) throw Trap{FaultKind::kind, 0, {}}

// Leaving the ISS: publish the hot locals and the FP flags; coming back: reload them.
#define SYNC_OUT()                   \
  do {                               \
    this->pc = PC;                   \
    this->cycles = cycles;           \
    this->instret = instret;         \
    fflags |= fp::take_flags();      \
  } while (0)
#define SYNC_IN()                    \
  do {                               \
    cycles = this->cycles;           \
    if (stop_requested_) limit = 0;  \
    fp::resume(frm);                 \
  } while (0)

// After an environment call: the instruction given up (Hart::request_retry). An
// environment call ends its segment, so only its own clocks were charged.
#define RETRY_POINT()                                        \
  do {                                                       \
    if (__builtin_expect(retry_requested_, 0)) {             \
      retry_requested_ = false;                              \
      if constexpr (kProfile) {                              \
        cycles -= d.cost();                                  \
        --profile_.count[dp - code];                         \
      } else {                                               \
        cycles -= d.seg_cost;                                \
      }                                                      \
      --instret;                                             \
      return dp;                                             \
    }                                                        \
  } while (0)

#define CSR_OP(op, operand, write)                                           \
  do {                                                                       \
    SYNC_OUT();                                                              \
    if (env_ && isa::csr::needs_exact_clock(static_cast<unsigned>(IMM))) {  \
      env_->clock_read(*this);                                               \
      SYNC_IN();                                                             \
      RETRY_POINT();                                                         \
    }                                                                        \
    uint32_t csr_old_;                                                       \
    if (!csr_access(static_cast<unsigned>(IMM), op, operand, write, csr_old_)) \
      FAULT(illegal_instruction);                                            \
    WR(csr_old_);                                                            \
  } while (0)

#define SEND(type, addr, data)                                               \
  do {                                                                       \
    if (!env_) FAULT(no_environment);                                        \
    const uint32_t send_addr_ = (addr), send_data_ = (data);                 \
    SYNC_OUT();                                                              \
    env_->send(*this, type, send_addr_, send_data_);                         \
    SYNC_IN();                                                               \
    RETRY_POINT();                                                           \
  } while (0)

#define END_THREAD()                                                         \
  do {                                                                       \
    SYNC_OUT();                                                              \
    if (env_) env_->end_thread(*this); else request_stop();                  \
    SYNC_IN();                                                               \
    GOTO_PC(this->pc);                                                       \
  } while (0)

// rtag: a word whose element is not present yet may have received its value by our
// clock in a packet not yet delivered (we run ahead of SystemC time): settle, then read
// again. A present element stays present for this PE's reads (it alone consumes it).
#define TAG_READ(a)                                   \
  ({                                                  \
    const uint32_t tag_at_ = checked_word(a);         \
    uint8_t tag_ = mem_.tag(tag_at_);                 \
    if (!(tag_ & kTagPresent) && env_) {              \
      SYNC_OUT();                                     \
      env_->settle(*this);                            \
      SYNC_IN();                                      \
      RETRY_POINT();                                  \
      tag_ = mem_.tag(tag_at_);                       \
    }                                                 \
    tag_;                                             \
  })
#define TAG_WRITE(a, v) mem_.set_tag(checked_word((a), true), static_cast<uint8_t>(v))

#define F1 fp_read(f[d.rs1])
#define F2 fp_read(f[d.rs2])
#define F3 fp_read(f[d.rs3_rm & 31u])
#define FB1 f[d.rs1]
#define FB2 f[d.rs2]
#define FB3 f[d.rs3_rm & 31u]
#define WF(v) fp_write_canonical(f[d.rd], v)
#define WFB(b) (f[d.rd] = static_cast<uint32_t>(b))
#define RM (Rounding{static_cast<uint32_t>(d.rs3_rm >> 5), frm})
#define FFLAGS fflags
#define HOST_FLAGS() (fflags |= fp::take_flags())
