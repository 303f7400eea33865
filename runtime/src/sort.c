/* qsort (a heap sort: no recursion, no memory, O(n log n) whatever the order) and
 * bsearch. */
#include <stdlib.h>

static void swap(char *a, char *b, size_t size) {
  for (size_t k = 0; k < size; ++k) {
    const char t = a[k];
    a[k] = b[k];
    b[k] = t;
  }
}

static void sift(char *base, size_t root, size_t n, size_t size,
                 int (*cmp)(const void *, const void *)) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0) ++child;
    if (cmp(base + root * size, base + child * size) >= 0) return;
    swap(base + root * size, base + child * size, size);
  }
}

void qsort(void *p, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  char *base = p;
  if (n < 2 || !size) return;
  for (size_t k = n / 2; k-- > 0;) sift(base, k, n, size, cmp);
  for (size_t end = n - 1; end > 0; --end) {
    swap(base, base + end * size, size);
    sift(base, 0, end, size, cmp);
  }
}

void *bsearch(const void *key, const void *p, size_t n, size_t size,
              int (*cmp)(const void *, const void *)) {
  const char *base = p;
  while (n) {
    const char *mid = base + (n / 2) * size;
    const int c = cmp(key, mid);
    if (c == 0) return (void *)mid;
    if (c > 0) {
      base = mid + size;
      n -= n / 2 + 1;
    } else {
      n /= 2;
    }
  }
  return 0;
}
