/* 64-bit integers: multiply inline (mul/mulhu), divide and modulo through libgcc
 * (__divdi3, __moddi3, __udivdi3, __umoddi3), shifts by variable amounts. */
#include <stdint.h>
#include <stdio.h>

static volatile int64_t vs[] = {123456789012345LL, 1000003, -9876543210987LL, 12345, -1};
static volatile uint64_t vu[] = {0xfedcba9876543210ull, 0x12345ull, 10, 0xffffffffull};
static volatile int vshift[] = {1, 31, 32, 33, 63};

static uint64_t factorial(unsigned n) { return n <= 1 ? 1 : n * factorial(n - 1); }

int main(void) {
  printf("mul: %lld\n", vs[0] * vs[1]);
  printf("mul neg: %lld\n", vs[2] * vs[3]);
  printf("div: %lld %lld %lld\n", vs[2] / vs[3], vs[0] / vs[2], vs[2] / vs[4]);
  printf("mod: %lld %lld\n", vs[2] % vs[3], vs[0] % vs[1]);
  printf("udiv: %llu %llu\n", vu[0] / vu[1], vu[0] / vu[2]);
  printf("umod: %llu %llu\n", vu[0] % vu[1], vu[0] % vu[3]);
  printf("hex: %llx %llX\n", vu[0] * vu[1], vu[3] * vu[3]);
  for (int k = 0; k < 5; ++k)
    printf("shift %2d: %016llx %016llx %lld\n", vshift[k], vu[0] << vshift[k],
           vu[0] >> vshift[k], (int64_t)vu[0] >> vshift[k]);
  printf("20! = %llu\n", factorial(20));
  uint64_t sum = 0;
  for (uint64_t k = 1; k <= 100000; ++k) sum += k * k;
  printf("sum k^2 to 1e5 = %llu\n", sum);
  printf("compare: %d %d\n", vs[2] < vs[3], (uint64_t)vs[2] < (uint64_t)vs[3]);
  printf("to 32: %d %u\n", (int32_t)vs[0], (uint32_t)vu[0]);
  return 0;
}
