/* The printf engine shared by printf, snprintf and friends.
 *
 * Conversions: d i u x X o c s p % and f F e E g G; flags - 0 + space #; width and
 * precision (also as *); length modifiers hh h l ll z t j. %n and wide characters
 * are not supported (an unknown conversion is printed as written). */
#include <stdint.h>

#include "runtime_internal.h"

enum { LEFT = 1, ZERO = 2, PLUS = 4, SPACE = 8, ALT = 16 };

struct out {
  emx_put_fn put;
  void *ctx;
  int count;
};

static void emit(struct out *o, const char *s, int n) {
  for (int k = 0; k < n; ++k) o->put(s[k], o->ctx);
  o->count += n;
}

static void emit_repeat(struct out *o, char c, int n) {
  for (int k = 0; k < n; ++k) o->put(c, o->ctx);
  if (n > 0) o->count += n;
}

/* A field: prefix (sign, 0x), `zeros` leading zeros, then the body, padded to `width`
 * with spaces (left or right) or, for the 0 flag, with zeros after the prefix. */
static void emit_field(struct out *o, const char *prefix, int zeros, const char *body, int len,
                       int width, int flags) {
  int plen = 0;
  while (prefix[plen]) ++plen;
  int pad = width - plen - zeros - len;
  if (pad > 0 && (flags & ZERO) && !(flags & LEFT)) {
    zeros += pad;
    pad = 0;
  }
  if (!(flags & LEFT)) emit_repeat(o, ' ', pad);
  emit(o, prefix, plen);
  emit_repeat(o, '0', zeros);
  emit(o, body, len);
  if (flags & LEFT) emit_repeat(o, ' ', pad);
}

static const char *sign_prefix(int negative, int flags) {
  return negative ? "-" : (flags & PLUS) ? "+" : (flags & SPACE) ? " " : "";
}

static int digits32(char *end, uint32_t u, unsigned base, const char *set, int min) {
  int n = 0;
  for (; u || n < min; ++n, u /= base) end[-1 - n] = set[u % base];
  return n;
}

/* 64-bit division is a libgcc call on RV32 (hundreds of clocks): split off chunks of
 * digits that fit in 32 bits so at most two such divisions are made per number. */
int emx_digits(char *end, uint64_t u, unsigned base, int upper) {
  const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  const uint32_t chunk = base == 10 ? 1000000000u : base == 16 ? 1u << 28 : 1u << 30;
  const int chunk_digits = base == 10 ? 9 : base == 16 ? 7 : 10;
  int n = 0;
  for (; u > UINT32_MAX; u /= chunk)
    n += digits32(end - n, (uint32_t)(u % chunk), base, set, chunk_digits);
  return n + digits32(end - n, (uint32_t)u, base, set, 0);
}

static void format_int(struct out *o, char conv, uint64_t u, int negative, int width,
                       int precision, int flags) {
  const unsigned base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X' || conv == 'p') ? 16 : 10;
  char buf[24];
  int len = emx_digits(buf + sizeof buf, u, base, conv == 'X');
  const int nonzero = len > 0;
  if (!nonzero && precision != 0) buf[sizeof buf - 1 - len++] = '0'; /* "%.0d" of 0 is "" */
  int zeros = precision > len ? precision - len : 0;
  if (precision >= 0) flags &= ~ZERO; /* C: a precision disables the 0 flag */
  const char *prefix = sign_prefix(negative, flags);
  if (conv == 'p' || ((flags & ALT) && nonzero && base == 16))
    prefix = conv == 'X' ? "0X" : "0x";
  else if ((flags & ALT) && base == 8 && !zeros && buf[sizeof buf - len] != '0')
    zeros = 1;
  emit_field(o, prefix, zeros, buf + sizeof buf - len, len, width, flags);
}

static void format_float(struct out *o, char conv, double v, int width, int precision, int flags) {
  char buf[EMX_FLOAT_BUF];
  int negative;
  int len = emx_format_double(buf, v, conv, precision < 0 ? 6 : precision, (flags & ALT) != 0,
                              &negative);
  if (buf[0] > '9') flags &= ~ZERO; /* inf and nan are padded with spaces */
  emit_field(o, sign_prefix(negative, flags), 0, buf, len, width, flags);
}

static void format_string(struct out *o, const char *s, int width, int precision, int flags) {
  if (!s) s = "(null)";
  int len = 0;
  while ((precision < 0 || len < precision) && s[len]) ++len;
  emit_field(o, "", 0, s, len, width, flags & LEFT);
}

/* Reads a decimal number or '*' (the next int argument) at *pf. */
static int read_count(const char **pf, va_list *ap) {
  if (**pf == '*') {
    ++*pf;
    return va_arg(*ap, int);
  }
  int n = 0;
  while (**pf >= '0' && **pf <= '9') n = 10 * n + (*(*pf)++ - '0');
  return n;
}

/* Length modifier: the size in bytes of the integer argument (0 = int). */
static int read_length(const char **pf) {
  switch (**pf) {
    case 'h':
      ++*pf;
      if (**pf == 'h') ++*pf;
      return 0; /* char and short arrive promoted to int, and are cut below */
    case 'l':
      ++*pf;
      if (**pf == 'l') {
        ++*pf;
        return 8;
      }
      return sizeof(long);
    case 'z': case 't': case 'j':
      return *(*pf)++ == 'j' ? 8 : sizeof(size_t);
    default:
      return 0;
  }
}

int emx_vformat(emx_put_fn put, void *ctx, const char *fmt, va_list ap_in) {
  struct out o = {put, ctx, 0};
  va_list ap;
  va_copy(ap, ap_in);
  for (const char *f = fmt; *f; ++f) {
    if (*f != '%') {
      emit(&o, f, 1);
      continue;
    }
    const char *start = f++;
    int flags = 0;
    for (;; ++f) {
      int bit = *f == '-' ? LEFT : *f == '0' ? ZERO : *f == '+' ? PLUS : *f == ' ' ? SPACE
              : *f == '#' ? ALT : 0;
      if (!bit) break;
      flags |= bit;
    }
    int width = read_count(&f, &ap);
    if (width < 0) { /* a negative '*' width means '-' */
      flags |= LEFT;
      width = -width;
    }
    int precision = -1;
    if (*f == '.') {
      ++f;
      precision = read_count(&f, &ap);
      if (precision < 0) precision = -1;
    }
    const char *length_at = f;
    const int size = read_length(&f);
    const int half = length_at[0] == 'h' ? (length_at[1] == 'h' ? 1 : 2) : 0;
    const char conv = *f;
    switch (conv) {
      case 'd': case 'i': {
        int64_t s = size == 8 ? va_arg(ap, long long) : va_arg(ap, int);
        if (half) s = half == 1 ? (int64_t)(signed char)s : (int64_t)(short)s;
        format_int(&o, conv, s < 0 ? -(uint64_t)s : (uint64_t)s, s < 0, width, precision, flags);
        break;
      }
      case 'u': case 'x': case 'X': case 'o': {
        uint64_t u = size == 8 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned);
        if (half) u = half == 1 ? (uint64_t)(unsigned char)u : (uint64_t)(unsigned short)u;
        format_int(&o, conv, u, 0, width, precision, flags & ~(PLUS | SPACE));
        break;
      }
      case 'p':
        format_int(&o, 'p', (uintptr_t)va_arg(ap, void *), 0, width, precision, flags);
        break;
      case 'c': {
        char c = (char)va_arg(ap, int);
        emit_field(&o, "", 0, &c, 1, width, flags & LEFT);
        break;
      }
      case 's':
        format_string(&o, va_arg(ap, const char *), width, precision, flags);
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
        format_float(&o, conv, va_arg(ap, double), width, precision, flags);
        break;
      case '%':
        emit(&o, "%", 1);
        break;
      default: /* unknown: print it as written; stop at the end of the string */
        emit(&o, start, (int)(f - start) + (conv != 0));
        if (!conv) --f;
        break;
    }
  }
  va_end(ap);
  return o.count;
}
