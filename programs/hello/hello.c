/* The first program: who am I, a little arithmetic, and a result record. */
#include <emx/emx.h>
#include <stdio.h>

static unsigned sum_of_squares(unsigned n) {
  unsigned s = 0;
  for (unsigned k = 1; k <= n; ++k) s += k * k;
  return s;
}

int main(void) {
  printf("Hello from PE %u of %u\n", emx_pe_id(), emx_pe_count());
  printf("1^2 + 2^2 + ... + 10^2 = %u\n", sum_of_squares(10));
  emx_result_int("answer", 42);
  return 0;
}
