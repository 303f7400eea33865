/* 32-bit integer arithmetic: wrap-around, shifts, signed and unsigned division.
 * Inputs are volatile so the PE computes them, not the compiler. */
#include <stdint.h>
#include <stdio.h>

static volatile int32_t vi[] = {7, -7, 2, -2, 2147483647, (int32_t)0x80000000, 0, -17, 100};
static volatile uint32_t vu[] = {0xffffffffu, 3, 7, 0x12345678u, 0x9abcdef0u, 65536, 0x80000000u};
static volatile int shift[] = {0, 1, 4, 31, 35};

/* RISC-V defines what C leaves undefined: x/0 = -1 (all ones), x%0 = x,
 * INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0. Only the hardware can show it. */
#ifdef __riscv
#define RV_OP(op)                                                        \
  static int32_t rv_##op(int32_t a, int32_t b) {                         \
    int32_t r;                                                           \
    __asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));      \
    return r;                                                            \
  }
RV_OP(div) RV_OP(rem) RV_OP(divu) RV_OP(remu)
#else /* the host has no such instructions: the values the RISC-V spec gives */
static int32_t rv_div(int32_t a, int32_t b) { return b == 0 ? -1 : b == -1 ? (int32_t)(0u - (uint32_t)a) : a / b; }
static int32_t rv_rem(int32_t a, int32_t b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
static int32_t rv_divu(int32_t a, int32_t b) { return b == 0 ? -1 : (int32_t)((uint32_t)a / (uint32_t)b); }
static int32_t rv_remu(int32_t a, int32_t b) { return b == 0 ? a : (int32_t)((uint32_t)a % (uint32_t)b); }
#endif

int main(void) {
  const int32_t seven = vi[0], mseven = vi[1], two = vi[2], mtwo = vi[3];
  const int32_t imax = vi[4], imin = vi[5], zero = vi[6], m17 = vi[7];
  printf("add wrap: %d\n", (int32_t)((uint32_t)imax + 1u));
  printf("sub wrap: %d\n", (int32_t)((uint32_t)imin - 1u));
  printf("neg min: %d\n", (int32_t)(0u - (uint32_t)imin));
  printf("mul wrap: %u %u\n", vu[5] * vu[5], vu[3] * vu[4]);
  printf("mul signed: %d\n", (int32_t)((uint32_t)mseven * (uint32_t)imax));
  printf("mulh: %lld %llu\n", (long long)imax * mseven, (unsigned long long)vu[0] * vu[0]);
  printf("div: %d %d %d %d\n", seven / two, mseven / two, seven / mtwo, mseven / mtwo);
  printf("mod: %d %d %d %d\n", seven % two, mseven % two, seven % mtwo, mseven % mtwo);
  printf("divu: %u %u %u\n", vu[0] / vu[1], vu[0] / vu[2], vu[3] / vu[5]);
  printf("remu: %u %u %u\n", vu[0] % vu[2], vu[3] % vu[1], vu[4] % vu[5]);
  printf("div by 0: %d %d %d %d\n", rv_div(seven, zero), rv_rem(seven, zero),
         rv_divu(seven, zero), rv_remu(seven, zero));
  printf("min/-1: %d %d\n", rv_div(imin, -1), rv_rem(imin, -1));
  for (int k = 0; k < 5; ++k) {
    int s = shift[k] & 31; /* the hardware uses the low 5 bits */
    printf("shift %2d: sll %08x srl %08x sra %d\n", shift[k], 1u << s, vu[6] >> s, m17 >> s);
  }
  printf("compare: %d %d %d %d\n", m17 < seven, (uint32_t)m17 < (uint32_t)seven, imin < imax,
         zero == 0);
  printf("bits: %08x %08x %08x %08x\n", vu[3] & vu[4], vu[3] | vu[4], vu[3] ^ vu[4], ~vu[3]);
  int32_t acc = 1;
  for (int k = 0; k < 40; ++k) acc = (int32_t)((uint32_t)acc * 3u + 1u);
  printf("lcg: %d\n", acc);
  printf("char: %d %d\n", (signed char)vi[8] * 2, (int8_t)(vi[8] + 100));
  return 0;
}
