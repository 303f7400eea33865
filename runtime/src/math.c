/* math.h: each float function is one F-extension instruction. GCC does not inline
 * fminf/fmaxf (fmin.s differs from C's fminf for signaling NaNs), so they are here
 * as real functions; this file is compiled without builtins, hence the asm. */
#include <math.h>
#include <stdint.h>

#define F_OP2(name, insn)                                                  \
  float name(float a, float b) {                                           \
    float r;                                                               \
    __asm__(insn " %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));                \
    return r;                                                              \
  }
F_OP2(fminf, "fmin.s")
F_OP2(fmaxf, "fmax.s")
F_OP2(copysignf, "fsgnj.s")

float sqrtf(float x) {
  float r;
  __asm__("fsqrt.s %0, %1" : "=f"(r) : "f"(x));
  return r;
}

float fabsf(float x) {
  float r;
  __asm__("fsgnjx.s %0, %1, %1" : "=f"(r) : "f"(x));
  return r;
}

float fmaf(float a, float b, float c) {
  float r;
  __asm__("fmadd.s %0, %1, %2, %3" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  return r;
}

/* Doubles live in integer registers (soft-float): the sign is bit 63. */
union bits {
  double d;
  uint64_t u;
};

double fabs(double x) {
  union bits b = {x};
  b.u &= ~(1ull << 63);
  return b.d;
}

double copysign(double x, double sign) {
  union bits b = {x}, s = {sign};
  b.u = (b.u & ~(1ull << 63)) | (s.u & (1ull << 63));
  return b.d;
}
