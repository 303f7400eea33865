/* stdlib.h subset for the simulated EM-X (runtime/src/malloc.c, runtime/src/stdlib.c). */
#ifndef EMX_STDLIB_H
#define EMX_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);

int abs(int x);
long labs(long x);
long long llabs(long long x);
int atoi(const char *s);
long atol(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
long long atoll(const char *s);
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
double atof(const char *s);
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t n, size_t size,
              int (*cmp)(const void *, const void *));
typedef struct {
  int quot, rem;
} div_t;
typedef struct {
  long quot, rem;
} ldiv_t;
div_t div(int a, int b);
ldiv_t ldiv(long a, long b);

/* exit(code) is emx_exit(code): flush the console, report the code, end the thread. */
void exit(int code) __attribute__((noreturn));
/* abort() flushes the console and executes ebreak: the simulator stops with a fault
 * report naming the PC. */
void abort(void) __attribute__((noreturn));

#endif
