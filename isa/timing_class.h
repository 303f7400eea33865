// Timing classes: every instruction of the table names one; its cost in clocks comes
// from the PE timing config (sim/iss/timing_config.h), never from the table itself.
#pragma once
#include <cstdint>

namespace emx::isa {

#define EMX_TIMING_CLASSES(X)                                                  \
  X(alu)     /* integer ALU, lui/auipc, moves                             */   \
  X(load)    /* integer and FP loads (+ memory penalty)                    */   \
  X(store)   /* integer and FP stores (+ memory penalty)                   */   \
  X(mul)     /* mul, mulh*                                                 */   \
  X(div)     /* div*, rem*                                                 */   \
  X(branch)  /* conditional branch; taken adds branch_taken - branch       */   \
  X(jump)    /* jal, jalr                                                  */   \
  X(csr)     /* csr* (fcsr, counters, EMC-Y machine registers)             */   \
  X(fadd)    /* fadd.s, fsub.s                                             */   \
  X(fmul)    /* fmul.s                                                     */   \
  X(fma)     /* fmadd.s, fmsub.s, fnmadd.s, fnmsub.s                       */   \
  X(fdiv)    /* fdiv.s                                                     */   \
  X(fsqrt)   /* fsqrt.s                                                    */   \
  X(fmisc)   /* sign injection, min/max, compares, fclass, cvt, moves      */   \
  X(send)    /* EMC-Y packet send                                          */   \
  X(thread)  /* EMC-Y thread end                                           */   \
  X(tag_read)  /* rtag: a memory reference, a load's clocks (+ memory penalty)  */ \
  X(tag_write) /* wtag: a memory reference, a store's clocks (+ memory penalty) */ \
  X(system)  /* fence, ecall, ebreak                                       */

enum class TimingClass : uint8_t {
#define X(n) n,
  EMX_TIMING_CLASSES(X)
#undef X
};
constexpr unsigned kTimingClassCount = 0
#define X(n) +1
    EMX_TIMING_CLASSES(X)
#undef X
    ;

const char* timing_class_name(TimingClass c);

// The classes whose instructions act on the PE around the hart (sends, thread end, tag
// access): the ISS runs them through the environment, and each ends its segment.
constexpr bool environment_class(TimingClass c) {
  return c == TimingClass::send || c == TimingClass::thread || c == TimingClass::tag_read ||
         c == TimingClass::tag_write;
}

}  // namespace emx::isa
