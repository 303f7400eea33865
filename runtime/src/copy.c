/* memcpy, memmove, memset: the runtime's own, not picolibc's, because they are on the
 * machine's measured paths (MPI-EMX's copies of messages, emx_get's, the buffered
 * protocol's; docs/runtime.md "What stays hand-written"): their clocks are part of the
 * published figures, and picolibc's versions take a different number of instructions.
 * They move whole words when both pointers allow it: a PE has no cache and pays per
 * instruction, and a misaligned word access faults, so the byte loops are only for the
 * unaligned rest. This file is compiled with -fno-tree-loop-distribute-patterns so GCC
 * cannot turn these loops into calls to themselves. Being in the runtime's archive,
 * which the link searches before picolibc's, they are the ones every program gets. */
#include <stdint.h>
#include <string.h>

/* A word that may alias anything (the buffers are usually char arrays). */
typedef uint32_t __attribute__((may_alias)) word;

static int word_aligned(const void *a, const void *b) {
  return (((uintptr_t)a | (uintptr_t)b) & 3) == 0;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (word_aligned(d, s)) {
    for (; n >= 16; n -= 16, d += 16, s += 16) {
      uint32_t a = ((const word *)s)[0], b = ((const word *)s)[1];
      uint32_t c = ((const word *)s)[2], e = ((const word *)s)[3];
      ((word *)d)[0] = a;
      ((word *)d)[1] = b;
      ((word *)d)[2] = c;
      ((word *)d)[3] = e;
    }
    for (; n >= 4; n -= 4, d += 4, s += 4) *(word *)d = *(const word *)s;
  }
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d <= s || d >= s + n) return memcpy(dst, src, n); /* memcpy copies forwards */
  d += n;
  s += n;
  if (word_aligned(d, s))
    for (; n >= 4; n -= 4) *(word *)(d -= 4) = *(const word *)(s -= 4);
  while (n--) *--d = *--s;
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  for (; n && ((uintptr_t)d & 3); --n) *d++ = (unsigned char)c;
  const uint32_t fill = (unsigned char)c * 0x01010101u;
  for (; n >= 4; n -= 4, d += 4) *(word *)d = fill;
  while (n--) *d++ = (unsigned char)c;
  return dst;
}
