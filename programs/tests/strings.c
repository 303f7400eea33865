/* string.h and the number parsing of stdlib.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile size_t three = 3; /* volatile: no compile-time truncation warning */

static int sign(int v) { return (v > 0) - (v < 0); }

int main(void) {
  char buf[64];
  printf("strlen: %u %u\n", (unsigned)strlen(""), (unsigned)strlen("sixteen chars!!!"));
  printf("strcmp: %d %d %d %d\n", sign(strcmp("abc", "abd")), sign(strcmp("abc", "abc")),
         sign(strcmp("b", "abc")), sign(strcmp("ab", "abc")));
  printf("strncmp: %d %d %d\n", sign(strncmp("abcX", "abcY", 3)), sign(strncmp("abcX", "abcY", 4)),
         strncmp("x", "y", 0));
  printf("strcpy: %s\n", strcpy(buf, "copied"));
  printf("strcat: %s\n", strcat(buf, " and appended"));
  printf("strncat: %s\n", strncat(buf, "!!!???", three));
  memset(buf, 'x', sizeof buf);
  strncpy(buf, "pad", 6);
  printf("strncpy: %s %d %d %c\n", buf, buf[4], buf[5], buf[6]);
  const char *s = "find the last t in this";
  printf("strchr: %s | strrchr: %s | missing: %d\n", strchr(s, 't'), strrchr(s, 't'),
         strchr(s, 'z') == NULL);
  printf("strchr NUL: %d\n", strchr(s, '\0') == s + strlen(s));
  printf("strstr: %s\n", strstr(s, "last"));
  printf("memcmp: %d %d\n", sign(memcmp("\x01\x80", "\x01\x7f", 2)), memcmp("same", "same", 4));

  /* memcpy/memmove/memset at every alignment and length 0..40 against byte loops. */
  static unsigned char src[64], a[80], b[80];
  for (int k = 0; k < 64; ++k) src[k] = (unsigned char)(k * 7 + 1);
  int ok = 1;
  for (int off = 0; off < 4; ++off)
    for (int soff = 0; soff < 4; ++soff)
      for (int n = 0; n <= 40; ++n) {
        memset(a, 0xee, sizeof a);
        memset(b, 0xee, sizeof b);
        memcpy(a + off, src + soff, (size_t)n);
        for (int k = 0; k < n; ++k) b[off + k] = src[soff + k];
        ok &= memcmp(a, b, sizeof a) == 0;
        memset(a + off, 0x5a, (size_t)n);
        for (int k = 0; k < n; ++k) b[off + k] = 0x5a;
        ok &= memcmp(a, b, sizeof a) == 0;
      }
  printf("memcpy/memset all alignments: %d\n", ok);
  ok = 1;
  for (int shift = -9; shift <= 9; ++shift) {
    for (int k = 0; k < 80; ++k) a[k] = b[k] = (unsigned char)k;
    memmove(a + 20 + shift, a + 20, 33);
    unsigned char tmp[33];
    for (int k = 0; k < 33; ++k) tmp[k] = b[20 + k];
    for (int k = 0; k < 33; ++k) b[20 + shift + k] = tmp[k];
    ok &= memcmp(a, b, sizeof a) == 0;
  }
  printf("memmove overlapping both ways: %d\n", ok);

  char *end;
  printf("strtol: %ld %ld %ld %ld %ld\n", strtol("  -1234xyz", &end, 10), strtol("0x1F", NULL, 0),
         strtol("0777", NULL, 0), strtol("z", NULL, 36), strtol("101", NULL, 2));
  printf("strtol end: [%s]\n", end);
  printf("strtol limits: %d %d\n", strtol("99999999999", NULL, 10) == LONG_MAX,
         strtol("-99999999999", NULL, 10) == LONG_MIN);
  long v = strtol("nothing", &end, 10);
  printf("no digits: %ld, end at start %d\n", v, *end == 'n');
  printf("strtoul: %lu %lu\n", strtoul("4000000000", NULL, 10), strtoul("ff", NULL, 16));
  printf("atoi: %d %d %d\n", atoi("42"), atoi("-17 apples"), atoi("+8"));
  printf("abs: %d %ld %lld\n", abs(-5), labs(-70000L), llabs(-5000000000LL));
  char *dup = strdup("duplicate");
  printf("strdup: %s %d\n", dup, dup != NULL);
  free(dup);
  return 0;
}
