/* A static Linux user-mode program without a C library (bench/host/README.md): the
 * kernel (here qemu-riscv32) starts at _start with argc, argv on the stack. */
#include <stdarg.h>

int main(int argc, char **argv);

static long sys(long n, long a, long b, long c) {
  register long a0 __asm__("a0") = a, a1 __asm__("a1") = b, a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = n;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

/* The compiler turns zeroing loops into calls of it (and would turn this one into one). */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memset(void *d, int c, unsigned long n) {
  for (unsigned char *p = d; n--;) *p++ = (unsigned char)c;
  return d;
}

int atoi(const char *s) {
  int v = 0, neg = *s == '-';
  for (s += neg; *s >= '0' && *s <= '9'; ++s) v = v * 10 + (*s - '0');
  return neg ? -v : v;
}

int printf(const char *fmt, ...) {
  char out[256];
  int n = 0;
  va_list ap;
  va_start(ap, fmt);
  for (; *fmt && n < 200; ++fmt) {
    if (*fmt != '%') {
      out[n++] = *fmt;
      continue;
    }
    ++fmt;
    long v = *fmt == 'd' ? va_arg(ap, int) : (long)va_arg(ap, unsigned);
    unsigned long u = v < 0 && *fmt == 'd' ? (out[n++] = '-', -(unsigned long)v) : (unsigned long)(unsigned)v;
    char digits[12];
    int k = 0;
    do digits[k++] = (char)('0' + u % 10); while (u /= 10);
    while (k) out[n++] = digits[--k];
  }
  va_end(ap);
  return (int)sys(64, 1, (long)out, n);
}

void __attribute__((noreturn)) start_c(long *sp) {
  const int argc = (int)sp[0];
  sys(93, main(argc, (char **)(sp + 1)), 0, 0);
  for (;;) {
  }
}

__asm__(".globl _start\n_start:\n  mv a0, sp\n  .option push\n  .option norelax\n"
        "  la gp, __global_pointer$\n  .option pop\n  call start_c\n");
