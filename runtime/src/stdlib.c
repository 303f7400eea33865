/* stdlib.h: the small functions (malloc is in malloc.c). */
#include <assert.h>
#include <ctype.h>
#include <emx/emx.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }
long long llabs(long long x) { return x < 0 ? -x : x; }

/* The common part of strtol and strtoul: the magnitude (saturated at `limit`), the
 * sign, and where parsing stopped; *end = s when there are no digits. */
static unsigned long parse(const char *s, char **end, int base, unsigned long limit,
                           int *negative) {
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
  unsigned long value = 0;
  int any = 0, overflow = 0;
  for (;; ++p, any = 1) {
    int digit = isdigit((unsigned char)*p) ? *p - '0'
              : isalpha((unsigned char)*p) ? (*p | 0x20) - 'a' + 10 : 99;
    if (digit >= base) break;
    if (value > (limit - (unsigned long)digit) / (unsigned long)base) overflow = 1;
    else value = value * (unsigned long)base + (unsigned long)digit;
  }
  if (end) *end = (char *)(any ? p : s);
  return overflow ? limit : value;
}

long strtol(const char *s, char **end, int base) {
  int negative;
  /* The magnitude of LONG_MIN is one more than LONG_MAX. */
  unsigned long m = parse(s, end, base, (unsigned long)LONG_MAX + 1, &negative);
  if (negative) return (long)(0 - m);
  return m > LONG_MAX ? LONG_MAX : (long)m;
}

unsigned long strtoul(const char *s, char **end, int base) {
  int negative;
  unsigned long m = parse(s, end, base, ULONG_MAX, &negative);
  return negative && m != ULONG_MAX ? 0 - m : m; /* C: "-1" is ULONG_MAX */
}

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
