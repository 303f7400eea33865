/* math.h subset for the simulated EM-X: the single-precision functions the F extension
 * does in one instruction, and the sign operations on doubles. There is no errno, and
 * no double-precision sqrt, exp, log or trigonometry yet. */
#ifndef EMX_MATH_H
#define EMX_MATH_H

#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf_sign(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)

float sqrtf(float x);
float fabsf(float x);
float fminf(float a, float b);
float fmaxf(float a, float b);
float copysignf(float x, float sign);
float fmaf(float a, float b, float c);
double fabs(double x);
double copysign(double x, double sign);

#endif
