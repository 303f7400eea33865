/* strtod, strtof, atof: decimal and hexadecimal floating point, inf and nan. The
 * decimal digits are gathered exactly in 64 bits (19 significant digits) and scaled by
 * powers of ten: within an ulp or two of the correctly rounded value. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

static double pow10i(int e) {
  double r = 1.0, p = 10.0;
  for (unsigned n = (unsigned)(e < 0 ? -e : e); n; n >>= 1, p *= p)
    if (n & 1) r *= p;
  return e < 0 ? 1.0 / r : r;
}

static int match(const char *p, const char *word) {
  for (; *word; ++p, ++word)
    if ((*p | 0x20) != *word) return 0;
  return 1;
}

double strtod(const char *s, char **end) {
  const char *p = s;
  while (isspace((unsigned char)*p)) ++p;
  const int negative = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  double v;
  if (match(p, "inf")) {
    p += match(p, "infinity") ? 8 : 3;
    v = __builtin_inf();
  } else if (match(p, "nan")) {
    p += 3;
    v = __builtin_nan("");
  } else {
    const int hex = p[0] == '0' && (p[1] | 0x20) == 'x';
    if (hex) p += 2;
    const unsigned base = hex ? 16 : 10;
    unsigned long long m = 0;
    int scale = 0, any = 0, dot = 0;
    for (;; ++p) {
      if (*p == '.' && !dot) {
        dot = 1;
        continue;
      }
      const int d = isdigit((unsigned char)*p) ? *p - '0'
                    : hex && isxdigit((unsigned char)*p) ? (*p | 0x20) - 'a' + 10 : -1;
      if (d < 0) break;
      any = 1;
      if (m < (hex ? (1ull << 59) : 1000000000000000000ull)) {
        m = m * base + (unsigned)d;
        if (dot) --scale;
      } else if (!dot) {
        ++scale; /* digits beyond 64 bits */
      }
    }
    if (!any) {
      if (end) *end = (char *)s;
      return 0.0;
    }
    int exp = 0;
    if ((*p | 0x20) == (hex ? 'p' : 'e')) {
      const char *q = p + 1;
      const int eneg = *q == '-';
      if (*q == '-' || *q == '+') ++q;
      if (isdigit((unsigned char)*q)) {
        for (; isdigit((unsigned char)*q); ++q)
          if (exp < 100000) exp = exp * 10 + (*q - '0');
        if (eneg) exp = -exp;
        p = q;
      }
    }
    if (hex) {
      v = (double)m;
      for (int k = 0; k < -scale * 4 - exp; ++k) v *= 0.5;
      for (int k = 0; k < exp + scale * 4; ++k) v *= 2.0;
    } else {
      const int e = exp + scale;
      /* Two steps keep 10^e in range for values near the limits. */
      v = e < -300 ? (double)m * pow10i(e + 300) * 1e-300 : (double)m * pow10i(e);
    }
    if (v == __builtin_inf() || (v == 0.0 && m != 0)) errno = ERANGE;
  }
  if (end) *end = (char *)p;
  return negative ? -v : v;
}

float strtof(const char *s, char **end) { return (float)strtod(s, end); }
double atof(const char *s) { return strtod(s, NULL); }
