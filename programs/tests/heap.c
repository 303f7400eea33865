/* malloc, calloc, realloc, free: alignment, contents, reuse, and running out. */
#include <emx/emx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes whose product does not fit in size_t (volatile: GCC would refuse to compile the
 * call it can see overflow). */
static volatile size_t huge_count = 0x10000, huge_size = 0x10001;

static int all_bytes(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t k = 0; k < n; ++k)
    if (p[k] != v) return 0;
  return 1;
}

int main(void) {
  enum { N = 50 };
  unsigned char *blocks[N];
  int aligned = 1, intact = 1;
  for (int k = 0; k < N; ++k) {
    size_t size = (size_t)(1 + k * 37 % 200);
    blocks[k] = malloc(size);
    aligned &= ((uintptr_t)blocks[k] & 7) == 0;
    memset(blocks[k], k, size);
  }
  for (int k = 0; k < N; ++k) intact &= all_bytes(blocks[k], (size_t)(1 + k * 37 % 200), (unsigned char)k);
  printf("50 blocks: 8-byte aligned %d, contents intact %d\n", aligned, intact);

  for (int k = 0; k < N; k += 2) free(blocks[k]); /* holes for first fit to reuse */
  unsigned char *small = malloc(16);
  int reused = 0;
  for (int k = 0; k < N; k += 2) reused |= small == blocks[k];
  printf("a freed hole is reused: %d\n", reused);
  free(small);
  for (int k = 1; k < N; k += 2) free(blocks[k]);
  printf("all freed, bytes in use: %u\n", (unsigned)emx_heap_in_use());

  int *zeros = calloc(1000, sizeof(int));
  int zero = 1;
  for (int k = 0; k < 1000; ++k) zero &= zeros[k] == 0;
  printf("calloc zeroed: %d\n", zero);
  /* calloc clears only what the heap handed out before (local memory starts zeroed):
   * a block over used and never-used heap, its used part dirtied first. */
  int *wide = calloc(16000, sizeof(int));
  zero = 1;
  for (int k = 0; k < 16000; ++k) zero &= wide[k] == 0;
  memset(wide, 0x5a, 16000 * sizeof(int));
  free(wide);
  wide = calloc(20000, sizeof(int));
  for (int k = 0; k < 20000; ++k) zero &= wide[k] == 0;
  free(wide);
  printf("calloc over used and fresh heap zeroed: %d\n", zero);

  char *text = malloc(6);
  strcpy(text, "hello");
  text = realloc(text, 4000);
  strcat(text, ", realloc");
  printf("realloc kept: %s\n", text);
  free(text);
  free(zeros);

  printf("malloc(1 GiB) = %s\n", malloc(1u << 30) ? "a block?!" : "NULL");
  printf("calloc overflow = %s\n", calloc(huge_count, huge_size) ? "a block?!" : "NULL");

  /* Fill the heap with 64 KiB blocks until it refuses, free all, and do it again:
   * the same number must fit (nothing leaked, neighbours merged). */
  int rounds[2];
  for (int r = 0; r < 2; ++r) {
    void *list = NULL;
    int count = 0;
    for (void **b; (b = malloc(64 * 1024)); ++count) {
      *b = list;
      list = b;
    }
    while (list) {
      void *next = *(void **)list;
      free(list);
      list = next;
    }
    rounds[r] = count;
  }
  printf("64 KiB blocks until full: same both rounds %d, at least one %d\n",
         rounds[0] == rounds[1], rounds[0] > 0);
  printf("bytes in use at the end: %u, peak above 64 KiB: %d\n", (unsigned)emx_heap_in_use(),
         emx_heap_peak() > 64 * 1024);
  free(NULL);
  return 0;
}
