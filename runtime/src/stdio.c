/* printf and friends on top of the format engine and the console. GCC turns some calls
 * into others (printf("x\n") into puts, fprintf into fwrite or fputc), so all exist. */
#include <emx/emx.h>
#include <stdio.h>

#include "runtime_internal.h"

/* The console has no separate error stream: both names lead to it. stdin is empty. */
static struct emx_file console_file = {.fd = FD_CONSOLE, .flags = F_WRITE, .unget = -1};
static struct emx_file stdin_file = {.fd = FD_STDIN, .flags = F_READ | F_EOF, .unget = -1};
FILE *const stdout = &console_file;
FILE *const stderr = &console_file;
FILE *const stdin = &stdin_file;

static void put_console(char c, void *ctx) {
  (void)ctx;
  emx_console_putc(c);
}

static void put_file(char c, void *ctx) { (void)emx_file_write(ctx, &c, 1); }

int vprintf(const char *fmt, va_list ap) { return emx_vformat(put_console, 0, fmt, ap); }

int vfprintf(FILE *f, const char *fmt, va_list ap) {
  if (f->fd == FD_CONSOLE) return vprintf(fmt, ap);
  const unsigned errors = f->flags & F_ERR;
  const int n = emx_vformat(put_file, f, fmt, ap);
  return (f->flags & F_ERR) && !errors ? -1 : n;
}

int printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vprintf(fmt, ap);
  va_end(ap);
  return n;
}

int fprintf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vfprintf(f, fmt, ap);
  va_end(ap);
  return n;
}

/* A bounded string buffer: keeps what fits, counts everything. */
struct sink {
  char *buf;
  size_t size, len;
};

static void put_buffer(char c, void *ctx) {
  struct sink *s = ctx;
  if (s->len + 1 < s->size) s->buf[s->len] = c;
  ++s->len;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
  struct sink s = {buf, size, 0};
  int n = emx_vformat(put_buffer, &s, fmt, ap);
  if (size) buf[s.len < size ? s.len : size - 1] = '\0';
  return n;
}

int vsprintf(char *buf, const char *fmt, va_list ap) {
  return vsnprintf(buf, (size_t)-1 / 2, fmt, ap);
}

int snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

int sprintf(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsprintf(buf, fmt, ap);
  va_end(ap);
  return n;
}

int putchar(int c) {
  emx_console_putc((char)c);
  return (unsigned char)c;
}

int fputc(int c, FILE *f) {
  if (f->fd != FD_CONSOLE) {
    const char ch = (char)c;
    return emx_file_write(f, &ch, 1) == 1 ? (unsigned char)c : EOF;
  }
  return putchar(c);
}

int putc(int c, FILE *f) { return fputc(c, f); }

static void console_puts(const char *s) {
  while (*s) emx_console_putc(*s++);
}

/* A file stream's string: its own function, so that the console's path calls no more. */
static int __attribute__((noinline)) file_puts(const char *s, FILE *f) {
  size_t n = 0;
  while (s[n]) ++n;
  return emx_file_write(f, s, n) == n ? 0 : EOF;
}

int fputs(const char *s, FILE *f) {
  if (f->fd != FD_CONSOLE) return file_puts(s, f);
  console_puts(s);
  return 0;
}

int puts(const char *s) {
  console_puts(s);
  emx_console_putc('\n');
  return 0;
}

size_t fwrite(const void *p, size_t size, size_t count, FILE *f) {
  if (!size || !count) return 0;
  if (f->fd != FD_CONSOLE) return emx_file_write(f, p, size * count) / size;
  emx_console_write(p, size * count);
  return count;
}

int fflush(FILE *f) {
  if (f && f->fd != FD_CONSOLE) return emx_file_flush(f);
  emx_console_flush();
  return 0;
}
