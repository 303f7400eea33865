/* The counting loop of radix sort. GCC -O2 compiles count_digits' loop to 10
 * instructions with 3 memory references, the count the EM-X papers give for EMC-Y
 * (objdump -d radix_count_loop.elf, function count_digits), and the papers say it takes
 * 10 clocks per key on EM-X (13 on EM-4): the test runs the default EM-X config. */
#include <emx/emx.h>
#include <stdint.h>
#include <stdio.h>

enum { N = 4096 };
static uint32_t keys[N];
static uint32_t cnt[256];

static __attribute__((noipa)) void count_digits(const uint32_t *src, int n, int sh) {
  for (int i = 0; i < n; i++) {
    uint32_t k = src[i];
    cnt[(k >> sh) & 255]++;
  }
}

int main(void) {
  uint32_t x = 12345;
  for (int i = 0; i < N; i++) keys[i] = x = x * 1103515245u + 12345u;
  for (int sh = 0; sh < 32; sh += 8) {
    for (int d = 0; d < 256; d++) cnt[d] = 0;
    const uint64_t start = emx_cycles();
    count_digits(keys, N, sh);
    const double clocks_per_key = (double)(emx_cycles() - start) / N;
    uint32_t total = 0, max = 0, weighted = 0;
    for (int d = 0; d < 256; d++) {
      total += cnt[d];
      weighted += cnt[d] * (uint32_t)d;
      if (cnt[d] > max) max = cnt[d];
    }
    printf("shift %2d: total %u, largest bucket %u, sum of digits %u, %.2f clocks per key\n", sh,
           total, max, weighted, clocks_per_key);
  }
  return 0;
}
