/* string.h. The memory functions move whole words when both pointers allow it: a PE
 * has no cache and pays per instruction, and a misaligned word access faults, so the
 * byte loops are only for the unaligned rest. This file is compiled with
 * -fno-tree-loop-distribute-patterns so GCC cannot turn these loops into calls to
 * themselves. */
#include <stdint.h>
#include <stdlib.h>
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

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (; n; --n, ++x, ++y)
    if (*x != *y) return *x - *y;
  return 0;
}

void *memchr(const void *s, int c, size_t n) {
  for (const unsigned char *p = s; n; --n, ++p)
    if (*p == (unsigned char)c) return (void *)p;
  return NULL;
}

size_t strlen(const char *s) {
  const char *p = s;
  while (*p) ++p;
  return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && s[n]) ++n;
  return n;
}

int strcmp(const char *a, const char *b) {
  for (; *a && *a == *b; ++a, ++b) {
  }
  return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n) {
  for (; n && *a && *a == *b; --n, ++a, ++b) {
  }
  return n ? (unsigned char)*a - (unsigned char)*b : 0;
}

char *strcpy(char *restrict dst, const char *restrict src) {
  char *d = dst;
  while ((*d++ = *src++)) {
  }
  return dst;
}

char *strncpy(char *restrict dst, const char *restrict src, size_t n) {
  size_t k = 0;
  for (; k < n && src[k]; ++k) dst[k] = src[k];
  for (; k < n; ++k) dst[k] = '\0'; /* C: pad with NULs to n */
  return dst;
}

char *strcat(char *restrict dst, const char *restrict src) {
  strcpy(dst + strlen(dst), src);
  return dst;
}

char *strncat(char *restrict dst, const char *restrict src, size_t n) {
  char *d = dst + strlen(dst);
  for (; n && *src; --n) *d++ = *src++;
  *d = '\0';
  return dst;
}

char *strchr(const char *s, int c) {
  for (;; ++s) {
    if (*s == (char)c) return (char *)s;
    if (!*s) return NULL;
  }
}

char *strrchr(const char *s, int c) {
  const char *last = NULL;
  for (;; ++s) {
    if (*s == (char)c) last = s;
    if (!*s) return (char *)last;
  }
}

char *strstr(const char *haystack, const char *needle) {
  const size_t n = strlen(needle);
  for (; *haystack; ++haystack)
    if (strncmp(haystack, needle, n) == 0) return (char *)haystack;
  return n ? NULL : (char *)haystack;
}

char *strdup(const char *s) {
  const size_t n = strlen(s) + 1;
  char *copy = malloc(n);
  return copy ? memcpy(copy, s, n) : NULL;
}
