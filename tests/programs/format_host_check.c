/* Host-side check of the runtime's printf engine (runtime/src/format.c and
 * format_float.c) against the host C library: the same engine runs on the PE, and it
 * is plain C, so the host can try millions of cases the simulator could not afford.
 *
 * Integers: every flag / width / precision combination for each conversion.
 * Floats: %f %e %g with various precisions on random, decimal and tie values. The
 * runtime computes at most 19 significant digits (format_float.c), so cases where the
 * host prints more are skipped. Prints the first differences; exit code 1 if any. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"

struct sink {
  char *buf;
  size_t size, len;
};

static void put(char c, void *ctx) {
  struct sink *s = ctx;
  if (s->len + 1 < s->size) s->buf[s->len] = c;
  ++s->len;
}

static int runtime_snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  struct sink s = {buf, size, 0};
  int n = emx_vformat(put, &s, fmt, ap);
  va_end(ap);
  buf[s.len < size ? s.len : size - 1] = '\0';
  return n;
}

static long checked, differ;

static void report(const char *fmt, const char *value, const char *host, const char *ours,
                   int nh, int no) {
  ++checked;
  if (!strcmp(host, ours) && nh == no) return;
  if (differ++ < 20)
    printf("%-10s %-24s host [%s] (%d)  runtime [%s] (%d)\n", fmt, value, host, nh, ours, no);
}

/* Same format and argument through both; T is the argument's type. */
#define COMPARE(fmt, T, v)                                            \
  do {                                                                \
    char h_[512], o_[512], shown_[64];                                \
    int nh_ = snprintf(h_, sizeof h_, fmt, (T)(v));                   \
    int no_ = runtime_snprintf(o_, sizeof o_, fmt, (T)(v));           \
    snprintf(shown_, sizeof shown_, "%.17g", (double)(v));            \
    report(fmt, shown_, h_, o_, nh_, no_);                            \
  } while (0)

static int significant_digits(const char *s) {
  int n = 0, started = 0;
  for (; *s && *s != 'e' && *s != 'E'; ++s) {
    if (*s >= '1' && *s <= '9') started = 1;
    if (started && *s >= '0' && *s <= '9') ++n;
  }
  return n;
}

static void check_integers(void) {
  static const char *const flags[] = {"", "-", "0", "+", " ", "#", "-+", "0 ", "#0", "-#"};
  static const char *const widths[] = {"", "1", "6", "12", "25"};
  static const char *const precisions[] = {"", ".0", ".1", ".5", ".14"};
  static const long long values[] = {0, 1, -1, 7, 42, -42, 255, 4096, 65535, 2147483647,
                                     -2147483647 - 1, 4294967295LL, 123456789012345LL,
                                     -9223372036854775807LL - 1};
  static const char convs[] = "diuxXo";
  for (size_t f = 0; f < sizeof flags / sizeof *flags; ++f)
    for (size_t w = 0; w < sizeof widths / sizeof *widths; ++w)
      for (size_t p = 0; p < sizeof precisions / sizeof *precisions; ++p)
        for (const char *c = convs; *c; ++c)
          for (size_t v = 0; v < sizeof values / sizeof *values; ++v) {
            char fmt[32];
            const int is_signed = *c == 'd' || *c == 'i';
            if (!is_signed && strpbrk(flags[f], "+ ")) continue; /* undefined in C */
            if (is_signed && strchr(flags[f], '#')) continue;
            snprintf(fmt, sizeof fmt, "%%%s%s%s%c", flags[f], widths[w], precisions[p], *c);
            if (is_signed) COMPARE(fmt, int, values[v]);
            else COMPARE(fmt, unsigned, values[v]);
            snprintf(fmt, sizeof fmt, "%%%s%s%sll%c", flags[f], widths[w], precisions[p], *c);
            if (is_signed) COMPARE(fmt, long long, values[v]);
            else COMPARE(fmt, unsigned long long, values[v]);
          }
  COMPARE("%hhd", int, 300);
  COMPARE("%hd", int, 70000);
  COMPARE("%hhu", int, -1);
  COMPARE("%hx", int, -1);
  COMPARE("[%5c]", int, 'q');
  COMPARE("[%-5c]", int, 'q');
  COMPARE("%p", void *, (uintptr_t)0x1234);
  COMPARE("%20p", void *, (uintptr_t)0xdeadbeef);
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t xorshift(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Random values of several kinds: short decimals (their binary value lies just above or
 * below a printed tie), exact binary ties, any bit pattern, a wide range. */
static double random_value(int kind) {
  static const double scale[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7};
  uint64_t u = xorshift();
  double v;
  switch (kind) {
    case 0: return (double)(u % 2000000) / scale[(u >> 32) % 8] - 1000;
    case 1: return (double)(u % 100000) / 8.0;
    case 2: return ldexp((double)(u >> 11), (int)(u % 400) - 200 - 53);
    default:
      memcpy(&v, &u, sizeof v);
      return isnan(v) ? 1.0 : v;
  }
}

static void check_floats(void) {
  static const char *const fmts[] = {
      "%f", "%.0f", "%.1f", "%.2f", "%.3f", "%.6f", "%.10f", "%.15f", "%e", "%.0e",
      "%.3e", "%.10e", "%.16e", "%.18e", "%g", "%.1g", "%.3g", "%.10g", "%.17g",
      "%#g", "%#.0f", "%#.0e", "%12.4f", "%-12.3e|", "%+g", "% .2f", "%015.3f", "%G", "%E"};
  static const double specials[] = {0.0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.05, 0.15, 0.25, 0.35,
                                    1.005, 2.675, 0.045, 1e-5, 1e-4, 9.9999999,
                                    99999.95, 1e15, 1e16, 1e17, 1e22, 1e23, 5e-324,
                                    2.2250738585072014e-308, 1.7976931348623157e308,
                                    INFINITY, -INFINITY, NAN};
  const size_t nf = sizeof fmts / sizeof *fmts;
  for (int i = 0; i < 40000; ++i) {
    const double v = i < (int)(sizeof specials / sizeof *specials) ? specials[i]
                                                                     : random_value(i % 4);
    for (size_t f = 0; f < nf; ++f) {
      char host[512], ours[512], shown[64];
      int nh = snprintf(host, sizeof host, fmts[f], v);
      int no = runtime_snprintf(ours, sizeof ours, fmts[f], v);
      if (significant_digits(host) > 19) continue; /* beyond what the runtime computes */
      snprintf(shown, sizeof shown, "%.17g", v);
      report(fmts[f], shown, host, ours, nh, no);
    }
  }
}

int main(void) {
  check_integers();
  check_floats();
  printf("%ld cases, %ld differ\n", checked, differ);
  return differ != 0;
}
