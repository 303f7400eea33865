/* Every conversion, flag, width and precision the runtime's printf supports. Each line
 * is bracketed so padding shows. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile int vneg = -42;

int main(void) {
  printf("[%d] [%i] [%d] [%d]\n", 0, 123, -456, (int)0x80000000);
  printf("[%5d] [%-5d] [%05d] [%+d] [% d] [%+5d] [%-+5d]\n", 42, 42, 42, 42, 42, 42, 42);
  /* C ignores the 0 flag when there is a precision ([%08.3d]); GCC warns, on purpose here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
  printf("[%05d] [%.3d] [%8.3d] [%-8.3d] [%08.3d] [%.0d] [%5.0d]\n", vneg, 7, -7, 7, 7, 0, 0);
#pragma GCC diagnostic pop
  printf("[%u] [%u] [%10u] [%-10u|]\n", 0u, 4294967295u, 3000000000u, 17u);
  printf("[%x] [%X] [%#x] [%#X] [%08x] [%#010x] [%.4x] [%#x]\n", 0xbeefu, 0xbeefu, 255u, 255u,
         0xabcu, 0xabcu, 0x1fu, 0u);
  printf("[%o] [%#o] [%5o] [%#o]\n", 8u, 8u, 511u, 0u);
  printf("[%c] [%3c] [%-3c] [%c%c%c]\n", 'A', 'b', 'c', 'x', 'y', 'z');
  printf("[%s] [%10s] [%-10s] [%.3s] [%10.2s] [%s]\n", "hello", "right", "left", "truncate",
         "ab", "");
  printf("[%p] [%p]\n", (void *)0x1234, (void *)(uintptr_t)0xdeadbeef);
  printf("[%%] [100%%]\n");
  printf("[%ld] [%lu] [%lx] [%li]\n", -123456789L, 123456789UL, 0x7fffffffUL, 2147483647L);
  printf("[%lld] [%llu] [%llx] [%20lld] [%-20llu|]\n", -9223372036854775807LL - 1,
         18446744073709551615ULL, 0x123456789abcdefULL, 1234567890123LL, 42ULL);
  printf("[%zu] [%zd] [%hhd] [%hd] [%hu] [%hhx]\n", sizeof(double[3]), (ptrdiff_t)-5, 300, 70000,
         70000, 0x1ff);
  printf("[%*d] [%-*d] [%.*d] [%*.*s]\n", 6, 1, 6, 2, 4, 3, 5, 2, "xyz");
  printf("[%f] [%.0f] [%.1f] [%.2f] [%10.3f] [%-10.3f] [%010.3f] [%+.2f]\n", 3.14159265, 2.5,
         0.05, 1.005, -3.14159, 3.14159, -3.14159, 1.0);
  printf("[%f] [%.3f] [%f] [%.10f] [%.0f] [%#.0f]\n", 0.0, -0.0, 1e-7, 1.0 / 3, 1e15, 7.0);
  printf("[%f] [%.2f] [%f]\n", 123456789.125, 1e20, 4294967296.5);
  printf("[%e] [%.0e] [%.2e] [%E] [%12.3e] [%-12.3e] [%e]\n", 12345.678, 15000.0, 0.000123456,
         -1e-10, 6.02214076e23, 1.0, 0.0);
  printf("[%e] [%e] [%.3e] [%e]\n", 1e100, 1.7976931348623157e308, 2.2250738585072014e-308,
         9.9999999);
  printf("[%g] [%g] [%g] [%g] [%g] [%g] [%g]\n", 100000.0, 1000000.0, 0.0001, 0.00001, 123.456,
         1e-300, 0.0);
  printf("[%.3g] [%.10g] [%G] [%#g] [%.0g] [%10.4g] [%-10g|] [%g]\n", 3.14159, 1.0 / 3, 1e-20,
         1.5, 25.0, 2.0 / 3, 0.5, -2.5e-5);
  printf("[%f] [%e] [%g] [%5.1f] [%-6F|] [%E]\n", 1.0 / 0.0, -1.0 / 0.0, 1.0 / 0.0,
         __builtin_nan(""), 1.0 / 0.0, -1.0 / 0.0);
  char buf[16];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation" /* truncating is what is tested */
  int n = snprintf(buf, sizeof buf, "%s-%d-%s", "truncated", 12345, "string");
#pragma GCC diagnostic pop
  printf("snprintf: %d [%s] %u\n", n, buf, (unsigned)strlen(buf));
  n = snprintf(buf, 0, "%d", 123);
  printf("snprintf size 0: %d\n", n);
  n = sprintf(buf, "%03d|%.1f", 7, 2.25);
  printf("sprintf: %d [%s]\n", n, buf);
  n = printf("count me\n");
  printf("printf returned %d\n", n);
  putchar('p');
  putchar('\n');
  puts("puts line");
  fputs("fputs to stdout\n", stdout);
  fprintf(stderr, "fprintf to stderr (the console too): %d\n", 5);
  return 0;
}
