/* stdlib.h: the small functions (malloc is in malloc.c). */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <emx/emx.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }
long long llabs(long long x) { return x < 0 ? -x : x; }

/* The common part of the strto(u)l(l) family: the magnitude (saturated at `limit`,
 * errno ERANGE), the sign, and where parsing stopped; *end = s when there are no digits. */
typedef unsigned long long ull;
static ull parse(const char *s, char **end, int base, ull limit, int *negative) {
  const char *p = s;
  while (isspace((unsigned char)*p)) ++p;
  *negative = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 0x20) == 'x' && isxdigit((unsigned char)p[2])) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = *p == '0' ? 8 : 10;
  }
  ull value = 0;
  int any = 0, overflow = 0;
  for (;; ++p, any = 1) {
    int digit = isdigit((unsigned char)*p) ? *p - '0'
              : isalpha((unsigned char)*p) ? (*p | 0x20) - 'a' + 10 : 99;
    if (digit >= base) break;
    if (value > (limit - (ull)digit) / (ull)base) overflow = 1;
    else value = value * (ull)base + (ull)digit;
  }
  if (end) *end = (char *)(any ? p : s);
  if (overflow) errno = ERANGE;
  return overflow ? limit : value;
}

/* Signed: the magnitude of the minimum is one more than the maximum. */
static long long parse_signed(const char *s, char **end, int base, long long max) {
  int negative;
  const ull m = parse(s, end, base, (ull)max + 1, &negative);
  if (negative) return (long long)(0 - m);
  if (m > (ull)max) errno = ERANGE;
  return m > (ull)max ? max : (long long)m;
}
static ull parse_unsigned(const char *s, char **end, int base, ull max) {
  int negative;
  const ull m = parse(s, end, base, max, &negative);
  return negative && m != max ? (0 - m) & max : m; /* C: "-1" is the maximum */
}

long strtol(const char *s, char **end, int base) { return (long)parse_signed(s, end, base, LONG_MAX); }
long long strtoll(const char *s, char **end, int base) { return parse_signed(s, end, base, LLONG_MAX); }
unsigned long strtoul(const char *s, char **end, int base) {
  return (unsigned long)parse_unsigned(s, end, base, ULONG_MAX);
}
unsigned long long strtoull(const char *s, char **end, int base) {
  return parse_unsigned(s, end, base, ULLONG_MAX);
}
long long atoll(const char *s) { return strtoll(s, NULL, 10); }

div_t div(int a, int b) { return (div_t){a / b, a % b}; }
ldiv_t ldiv(long a, long b) { return (ldiv_t){a / b, a % b}; }

int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
long atol(const char *s) { return strtol(s, NULL, 10); }

void exit(int code) { emx_exit(code); }

void abort(void) {
  emx_console_flush();
  __builtin_trap(); /* ebreak: the simulator reports a fault at this PC */
}

void emx_assert_fail(const char *expr, const char *file, int line, const char *func) {
  printf("%s:%d: %s: Assertion `%s' failed.\n", file, line, func, expr);
  abort();
}
