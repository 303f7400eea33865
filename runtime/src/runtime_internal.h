/* Functions shared by the runtime's own files; not part of the user API. */
#ifndef EMX_RUNTIME_INTERNAL_H
#define EMX_RUNTIME_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* console.c */
void emx_console_putc(char c);
void emx_console_write(const char *s, size_t n);

/* The printf engine (format.c): formats into `put`, returns the number of characters. */
typedef void (*emx_put_fn)(char c, void *ctx);
int emx_vformat(emx_put_fn put, void *ctx, const char *fmt, va_list ap);

/* Writes the digits of u in base 8, 10 or 16 backwards, ending just before `end`;
 * returns how many (none for 0). */
int emx_digits(char *end, uint64_t u, unsigned base, int upper);

/* The floating-point conversions of the engine (format_float.c): writes the digits of
 * `value` for conversion `conv` (one of f F e E g G) with `precision` and the # flag
 * `alt` into buf (at least EMX_FLOAT_BUF bytes), without the sign; returns the length
 * and sets *negative to the sign bit. */
enum { EMX_FLOAT_BUF = 352 };
int emx_format_double(char *buf, double value, char conv, int precision, int alt,
                      int *negative);

#endif
