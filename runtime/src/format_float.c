/* %f %e %g for the printf engine, in double arithmetic (soft-float on an RV32F PE).
 *
 * Digits come from scaling the value by a power of ten and rounding the result to an
 * integer, ties to even. The scaling is done in double-double arithmetic (about 104
 * bits), so the printed digits are correctly rounded: they could differ from the exact
 * decimal expansion only when it lies within about 1e-30 (relative) of a rounding
 * boundary. At most MAX_SIG significant digits are computed; further digits print as 0
 * where glibc prints the exact binary expansion. Precision is capped at MAX_PRECISION.
 * tests/programs/format_host_check.c compares this with glibc. */
#include <stdint.h>

#include "runtime_internal.h"

enum { MAX_SIG = 19, MAX_PRECISION = 40 };

/* |v| ~ the digits d[0..n) with d[0] at 10^e (n == 0: the value is zero). */
struct decimal {
  char d[24];
  int n, e;
};

static const uint64_t pow10_u64[] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

/* 10^k for 0 <= k <= 22 by squaring: every factor is exact, so is the result. */
static double pow10_exact(int k) {
  double r = 1, b = 10;
  for (; k; k >>= 1, b *= b)
    if (k & 1) r *= b;
  return r;
}

/* Double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi) / 2. */
typedef struct {
  double hi, lo;
} dd;

static dd quick_two_sum(double a, double b) { /* |a| >= |b| */
  double s = a + b;
  return (dd){s, b - (s - a)};
}

/* a = hi + lo with 26-bit halves (Veltkamp), so products of halves are exact. */
static void split(double a, double *hi, double *lo) {
  double t = 134217729.0 * a; /* 2^27 + 1 */
  *hi = t - (t - a);
  *lo = a - *hi;
}

/* a * b exactly (Dekker): RV32F has no double-precision fma to do it in one step. */
static dd two_prod(double a, double b) {
  double p = a * b, ah, al, bh, bl;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  return (dd){p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

static dd dd_mul(dd a, double b) {
  dd p = two_prod(a.hi, b);
  return quick_two_sum(p.hi, p.lo + a.lo * b);
}

static dd dd_div(dd a, double b) {
  double q1 = a.hi / b;
  dd p = two_prod(q1, b);
  double rest = ((a.hi - p.hi) - p.lo) + a.lo; /* exact but for a.lo's rounding */
  return quick_two_sum(q1, rest / b);
}

/* v * 10^k, in steps of at most 10^22 (the largest exact power). Dekker's product
 * overflows near DBL_MAX and loses bits among subnormals, so extreme values are first
 * moved by 2^64 and moved back at the end (exact both ways). */
static dd scale10(double v, int k) {
  const double move = v > 0x1p1000 ? 0x1p-64 : v < 0x1p-960 ? 0x1p64 : 1;
  dd r = {v * move, 0};
  while (k != 0) {
    const int step = k > 22 ? 22 : k < -22 ? -22 : k;
    r = step > 0 ? dd_mul(r, pow10_exact(step)) : dd_div(r, pow10_exact(-step));
    k -= step;
  }
  r.hi /= move;
  r.lo /= move;
  return r;
}

/* Nearest integer to t (0 <= t < 1.8e19), ties to even as printf rounds. Every
 * comparison with the half is exact: adding t.lo to the fraction first could round a
 * value just above a tie onto it (0.05 * 10 = 0.5 + 2.8e-17 must round up). */
static uint64_t round_even(dd t) {
  uint64_t n = (uint64_t)t.hi;         /* floor, exact: t.hi >= 0 */
  const double frac = t.hi - (double)n; /* exact, in [0, 1) */
  if (frac != 0) {
    /* t.hi < 2^52, so |t.lo| <= 1/4: below a fraction of 1/4 nothing reaches the half;
     * from 1/4 on, frac - 1/2 is exact and the rounded sum keeps the exact sum's sign. */
    if (frac < 0.25) return n;
    const double above_half = (frac - 0.5) + t.lo;
    return above_half > 0 || (above_half == 0 && (n & 1)) ? n + 1 : n;
  }
  /* t.hi is an integer (always so from 2^52 on, where |t.lo| may exceed 1): move the
   * integer part of t.lo into n; what is left is exact and in (-1, 1). */
  const int64_t whole = (int64_t)t.lo; /* toward zero */
  n += (uint64_t)whole;
  const double r = t.lo - (double)whole;
  if (r > 0.5 || (r == 0.5 && (n & 1))) return n + 1;
  if (r < -0.5 || (r == -0.5 && (n & 1))) return n - 1;
  return n;
}

/* r = m * 10^last_exp. */
static void set_decimal(struct decimal *r, uint64_t m, int last_exp) {
  char buf[24];
  const int n = emx_digits(buf + sizeof buf, m, 10, 0);
  for (int k = 0; k < n; ++k) r->d[k] = buf[sizeof buf - n + k];
  r->n = n;
  r->e = last_exp + n - 1;
}

/* floor(log10(v)) or one less, for v > 0, from the binary exponent. */
static int estimate_exp10(double v) {
  union {
    double d;
    uint64_t u;
  } b = {v};
  int e2 = (int)(b.u >> 52) - 1023;
  if (e2 == -1023) { /* denormal: scale into the normal range first */
    b.d = v * 18446744073709551616.0;
    e2 = (int)(b.u >> 52) - 1023 - 64;
  }
  return (e2 * 78913) >> 18; /* 78913 / 2^18 = log10(2) to 6 digits; >> floors */
}

/* v > 0 rounded to `digits` (1..MAX_SIG) significant digits. */
static void significant(double v, int digits, struct decimal *r) {
  int e = estimate_exp10(v);
  uint64_t m = 0;
  for (int tries = 0; tries < 4; ++tries) { /* the estimate is off by at most one */
    const dd t = scale10(v, digits - 1 - e);
    const double limit = (double)pow10_u64[digits]; /* exact */
    if (t.hi > limit || (t.hi == limit && t.lo >= 0)) { /* also too large for round_even */
      ++e;
      continue;
    }
    m = round_even(t);
    if (m >= pow10_u64[digits]) ++e;
    else if (m < pow10_u64[digits - 1]) --e;
    else break;
  }
  set_decimal(r, m, e - digits + 1);
}

/* v >= 0 rounded to `prec` digits after the point. */
static void fixed(double v, int prec, struct decimal *r) {
  const dd t = scale10(v, prec);
  if (t.hi < 1e19) set_decimal(r, round_even(t), -prec);
  else significant(v, MAX_SIG, r); /* the rounding position is past the last digit */
}

static char digit_at(const struct decimal *r, int pos) {
  int j = r->e - pos;
  return j >= 0 && j < r->n ? r->d[j] : '0';
}

static char *put_fixed(char *p, const struct decimal *r, int prec, int alt) {
  for (int pos = r->n && r->e > 0 ? r->e : 0; pos >= -prec; --pos) {
    *p++ = digit_at(r, pos);
    if (pos == 0 && (prec > 0 || alt)) *p++ = '.';
  }
  return p;
}

static char *put_mantissa(char *p, const struct decimal *r, int prec, int alt) {
  *p++ = digit_at(r, r->e);
  if (prec > 0 || alt) *p++ = '.';
  for (int k = 1; k <= prec; ++k) *p++ = digit_at(r, r->e - k);
  return p;
}

static char *put_exponent(char *p, int e, int upper) {
  *p++ = upper ? 'E' : 'e';
  *p++ = e < 0 ? '-' : '+';
  if (e < 0) e = -e;
  if (e >= 100) *p++ = (char)('0' + e / 100);
  *p++ = (char)('0' + e / 10 % 10);
  *p++ = (char)('0' + e % 10);
  return p;
}

/* %g drops trailing zeros of the fraction, and the point if nothing is left. */
static char *strip_zeros(char *begin, char *p) {
  char *dot = begin;
  while (dot < p && *dot != '.') ++dot;
  if (dot == p) return p;
  while (p[-1] == '0') --p;
  return p[-1] == '.' ? p - 1 : p;
}

static int put_special(char *buf, const char *lower, int upper) {
  for (int k = 0; k < 3; ++k) buf[k] = (char)(upper ? lower[k] - 32 : lower[k]);
  return 3;
}

int emx_format_double(char *buf, double value, char conv, int precision, int alt,
                      int *negative) {
  const int upper = conv >= 'A' && conv <= 'Z';
  conv = (char)(conv | 0x20);
  union {
    double d;
    uint64_t u;
  } b = {value};
  *negative = (int)(b.u >> 63);
  b.u &= ~(1ull << 63);
  if ((b.u >> 52) == 0x7ff) return put_special(buf, b.u << 12 ? "nan" : "inf", upper);
  const double v = b.d;
  if (precision > MAX_PRECISION) precision = MAX_PRECISION;

  struct decimal r = {.n = 0, .e = 0};
  if (conv == 'f') {
    fixed(v, precision, &r);
    return (int)(put_fixed(buf, &r, precision, alt) - buf);
  }
  const int sig = conv == 'e' ? precision + 1 : precision ? precision : 1;
  if (v != 0) significant(v, sig < MAX_SIG ? sig : MAX_SIG, &r);
  char *p;
  if (conv == 'g') {
    if (sig > r.e && r.e >= -4) { /* C: %g uses %f style for exponents -4 .. P-1 */
      p = put_fixed(buf, &r, sig - 1 - r.e, alt);
      return (int)((alt ? p : strip_zeros(buf, p)) - buf);
    }
    p = put_mantissa(buf, &r, sig - 1, alt);
    if (!alt) p = strip_zeros(buf, p);
  } else {
    p = put_mantissa(buf, &r, precision, alt);
  }
  return (int)(put_exponent(p, r.e, upper) - buf);
}
