/* Compute-bound benchmark for one PE: radix-sort counting, an LCG, a float matrix
 * product (fmadd.s at -O2) and calls. Arguments: repetitions (default 20) and the parts
 * to run (default 3: 1 the integer half, the LCG and the counting; 2 the float half, the
 * matrix product). The checksum is reported so the work cannot be optimised away. */
#include <emx/emx.h>
#include <stdio.h>
#include <stdlib.h>

#define N 48
#define KEYS 4096
static float A[N][N], B[N][N], C[N][N];
static unsigned keys[KEYS], cnt[256];

static unsigned count_digits(int shift) {
  unsigned s = 0;
  for (int i = 0; i < 256; ++i) cnt[i] = 0;
  for (int i = 0; i < KEYS; ++i) cnt[(keys[i] >> shift) & 255]++;
  for (int i = 0; i < 256; ++i) s += cnt[i] * (unsigned)i;
  return s;
}

static float matmul(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      float t = 0;
      for (int k = 0; k < N; ++k) t += A[i][k] * B[k][j];
      C[i][j] = t;
    }
  return C[N / 2][N / 3];
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 20;
  const int parts = argc > 2 ? atoi(argv[2]) : 3;
  unsigned seed = 1, sum = 0;
  float f = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      A[i][j] = (float)(i + j) * 0.5f;
      B[i][j] = (float)(i - j) * 0.25f;
    }
  for (int r = 0; r < reps; ++r) {
    if (parts & 1) {
      for (int i = 0; i < KEYS; ++i) keys[i] = seed = seed * 1103515245u + 12345u;
      for (int sh = 0; sh < 32; sh += 8) sum += count_digits(sh);
    }
    if (parts & 2) f += matmul();
  }
  printf("checksum %u %d\n", sum, (int)f);
  emx_result_int("checksum", sum);
  return 0;
}
