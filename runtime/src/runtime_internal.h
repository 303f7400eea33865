/* Functions shared by the runtime's own files; not part of the user API. */
#ifndef EMX_RUNTIME_INTERNAL_H
#define EMX_RUNTIME_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* console.c */
void emx_console_putc(char c);
void emx_console_write(const char *s, size_t n);

/* A stdio stream (stdio.c, stdio_file.c): the console (fd FD_CONSOLE), the empty stdin,
 * or a file through the host (files.c) with a buffer of `size` bytes holding `len`
 * bytes, read up to `pos` (reading) or written (writing: pos = len). */
enum { FD_CONSOLE = -1, FD_STDIN = -2 };
enum { F_READ = 1, F_WRITE = 2, F_EOF = 4, F_ERR = 8, F_OWN_BUF = 16, F_WRITING = 32,
       F_APPEND = 64 };
struct emx_file {
  int fd;
  unsigned flags;
  int mode;           /* _IOFBF, _IOLBF, _IONBF */
  char *buf;
  size_t size, len, pos;
  int unget;          /* a character pushed back by ungetc, or -1 */
};
/* Writes n bytes to a file stream (not the console); returns the bytes taken. Weak: a
 * program that never calls fopen (stdio_file.c) links no file code, and so none of the
 * EM-C layer it waits with. */
size_t emx_file_write(struct emx_file *f, const char *p, size_t n) __attribute__((weak));
int emx_file_flush(struct emx_file *f) __attribute__((weak));

/* files.c: a host file request (emx_host_file_op); the result, or -1 with errno. */
int emx_host_file(unsigned op, uint32_t a, uint32_t b, uint32_t c);

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
