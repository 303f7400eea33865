/* Single-precision floating point on the F extension: arithmetic, the fused
 * multiply-add GCC -O2 forms from a*b+c, sqrt, conversions, special values; and
 * doubles (soft-float in libgcc) for printing. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

static volatile float vf[] = {1.5f, -2.25f, 3.0f, 0.1f, 1.000244140625f, -1.00048828125f,
                              16777217.0f, 1e30f, 0.0f, -1.0f};
static volatile int32_t vi[] = {16777217, -7, 2147483647};
static volatile uint32_t vu[] = {3000000000u, 4294967295u};

/* Compiled to one fmadd.s: a*b is not rounded before the add. */
static float mac(float a, float b, float c) { return a * b + c; }

/* fcvt.w.s saturates out-of-range values and NaN; C calls those conversions undefined. */
#ifdef __riscv
static int32_t cvt_w(float f) {
  int32_t r;
  __asm__ volatile("fcvt.w.s %0, %1, rtz" : "=r"(r) : "f"(f));
  return r;
}
#else
static int32_t cvt_w(float f) { return f != f || f >= 2147483648.0f ? 2147483647 : f < -2147483648.0f ? (-2147483647 - 1) : (int32_t)f; }
#endif

static float harmonic(int n) {
  float s = 0;
  for (int k = 1; k <= n; ++k) s += 1.0f / (float)k;
  return s;
}

int main(void) {
  const float a = vf[0], b = vf[1], c = vf[2], tenth = vf[3];
  printf("arith: %g %g %g %g\n", a + b, a - b, a * b, a / b);
  printf("tenth*3: %.9g, sum of ten tenths: %.9g\n", tenth * c, tenth + tenth + tenth + tenth +
         tenth + tenth + tenth + tenth + tenth + tenth);
  printf("fma: %.9g %.9g\n", mac(vf[4], vf[4], vf[5]), mac(a, b, c));
  printf("sqrt: %.9g %.9g %.9g\n", __builtin_sqrtf(2.0f * a / a), __builtin_sqrtf(c * c),
         __builtin_sqrtf(vf[7]));
  printf("sqrt(-1): %f\n", __builtin_sqrtf(vf[9]));
  printf("inf: %f %f %e\n", 1.0f / vf[8], -1.0f / vf[8], vf[7] * vf[7]);
  printf("float->int: %d %d %d %d\n", (int)(c + 0.99f), (int)(-c - 0.99f), (int)b, (int)vf[6]);
  printf("int->float: %.1f %.1f %.1f\n", (float)vi[0], (float)vi[1], (float)vi[2]);
  printf("unsigned: %.1f %u %.1f\n", (float)vu[0], (uint32_t)(float)vu[0], (float)vu[1]);
  printf("saturate: %d %d %d\n", cvt_w(vf[7]), cvt_w(-vf[7]), cvt_w(__builtin_sqrtf(vf[9])));
  printf("compare: %d %d %d\n", a < c, b > a, __builtin_sqrtf(vf[9]) != __builtin_sqrtf(vf[9]));
  printf("min/max/abs: %g %g %g %g\n", fminf(a, b), fmaxf(a, b), fabsf(b),
         copysignf(c, b));
  printf("harmonic(1000): %.7f\n", harmonic(1000));
  double d = (double)tenth;
  printf("double: %.17g %.3e %.10f\n", d, d * 1e100, d / 3);
  return 0;
}
