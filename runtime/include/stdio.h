/* stdio subset for the simulated EM-X: formatted output to the host console.
 * stdout and stderr are both the console (the host has one output stream per PE).
 * Conversions supported by the printf family: runtime/src/format.c. */
#ifndef EMX_STDIO_H
#define EMX_STDIO_H

#include <stdarg.h>
#include <stddef.h>

#define EOF (-1)

typedef struct emx_file FILE;
extern FILE *const stdout;
extern FILE *const stderr;

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vsprintf(char *buf, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vfprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

int putchar(int c);
int puts(const char *s);
int fputc(int c, FILE *f);
int putc(int c, FILE *f);
int fputs(const char *s, FILE *f);
size_t fwrite(const void *p, size_t size, size_t count, FILE *f);
int fflush(FILE *f);

#endif
