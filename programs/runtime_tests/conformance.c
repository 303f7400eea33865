/* The C library (picolibc) on the simulated PE, against the host's: tests/runtime/
 * test_libc.py runs each part and checks what it prints.
 *
 *   rt_conformance printf N    N doubles, N floats, N integers: their bits and their
 *                              formatted forms, which the test formats again with the
 *                              host's snprintf
 *   rt_conformance scanf N     strings and what sscanf and strtod/strtof make of them
 *   rt_conformance libm N      inputs and results of libm functions (bits), for the
 *                              test's ULP comparison with the host's libm
 *   rt_conformance local       checks that need no host: strtod round trips, qsort and
 *                              bsearch, string and memory functions at every alignment,
 *                              malloc/free/realloc stress, errno values
 *   rt_conformance files       stdio on host files (emx run --files DIR)
 *   rt_conformance threads     errno and stdio in computations that suspend in the
 *                              middle of a file call
 * Values come from a fixed generator, so a run is the same every time. */
#include <emx/emc.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { /* xorshift64* */
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 2685821657736338717ull;
}

/* The same bits as another type: a double or float and its integer. */
#define AS(type, x) (((union { __typeof__(x) from; type to; }){.from = (x)}).to)
#define from_bits(b) AS(double, (uint64_t)(b))
#define bits(d) AS(uint64_t, (double)(d))
#define from_bits32(b) AS(float, (uint32_t)(b))
#define bits32(f) AS(uint32_t, (float)(f))

/* Edges first (zeros, subnormals, extremes, infinities, NaN, ties), then a mix of random
 * bit patterns (every exponent), numbers near powers of ten and short decimals. */
static const double edges[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.125, 0.3, 1e22, 1e23, 9007199254740993.0,
    5e-324, 1e-320, 2.2250738585072009e-308, DBL_MIN, DBL_MAX, -DBL_MAX, DBL_EPSILON,
    1.0 / 3, 2.0 / 3, 123456.5, 0.0005, 0.00049999999999999999, 999999.5, 9.5, 0.95, 0.05,
    1e-5, 1e15, 1e16, 1e17, 1e21, 4.35, 1.005, 2.675, 1e100, 1e-100, 1.7976931348623157e308};
enum { EDGES = sizeof edges / sizeof edges[0] };

static double sample_double(unsigned k) {
  if (k < EDGES) return edges[k];
  if (k == EDGES) return INFINITY;
  if (k == EDGES + 1) return -INFINITY;
  if (k == EDGES + 2) return NAN;
  const uint64_t r = next();
  switch (k % 4) {
    case 0: return from_bits(r); /* any bits: subnormals, NaNs, every exponent */
    case 1: return from_bits(r & 0x800FFFFFFFFFFFFFull); /* subnormal */
    case 2: return (double)(int64_t)(r >> 20) / 1000.0; /* decimal-ish */
    default: return ldexp((double)(r >> 11), (int)(r % 200) - 150); /* near 1, ties */
  }
}

static float sample_float(unsigned k) {
  if (k < EDGES) return (float)edges[k];
  const uint32_t r = (uint32_t)next();
  switch (k % 3) {
    case 0: return from_bits32(r);
    case 1: return from_bits32(r & 0x807FFFFFu); /* subnormal */
    default: return (float)(int32_t)r / 1024.0f;
  }
}

static void print_doubles(unsigned n) {
  for (unsigned k = 0; k < n; ++k) {
    const double d = sample_double(k);
    printf("D %016" PRIx64 "|%.17g|%e|%.3f|%g|%a|%.0f|%-+#14.5g|%.40e\n", bits(d), d, d, d,
           d, d, d, d, d);
  }
}

static void print_floats(unsigned n) {
  for (unsigned k = 0; k < n; ++k) {
    const float f = sample_float(k);
    printf("F %08" PRIx32 "|%.9g|%e|%.2f|%G|%a\n", bits32(f), (double)f, (double)f, (double)f,
           (double)f, (double)f);
  }
}

static void print_integers(unsigned n) {
  for (unsigned k = 0; k < n; ++k) {
    const uint64_t r = next() >> (k % 64);
    const int i = (int)r;
    const long long ll = (long long)r * (k & 1 ? -1 : 1);
    printf("I %08x %016llx|%d|%u|%x|%#o|%+8d|%-6i|%05d|%hhd|%hd|%lld|%llu|%#llx|%.0d|%20.12lld\n",
           (unsigned)i, (unsigned long long)ll, i, (unsigned)i, (unsigned)i, (unsigned)i, i, i, i,
           (signed char)i, (short)i, ll, (unsigned long long)ll, (unsigned long long)ll,
           i & 1 ? i : 0, ll);
  }
}

/* The strings scanf gets: this PE's own formatting of samples, and decimals with many
 * digits (correct rounding), exponents at the edges and hexadecimal floats. */
static void scan_one(const char *s) {
  double d = -1;
  float f = -1;
  int i = -1;
  char *end_d, *end_f;
  const int nd = sscanf(s, "%lf", &d), nf = sscanf(s, "%f", &f), ni = sscanf(s, "%i", &i);
  const double sd = strtod(s, &end_d);
  const float sf = strtof(s, &end_f);
  printf("S %s|%d %016" PRIx64 "|%d %08" PRIx32 "|%d %d|%016" PRIx64 " %d|%08" PRIx32 " %d\n", s,
         nd, bits(d), nf, bits32(f), ni, i, bits(sd), (int)(end_d - s), bits32(sf),
         (int)(end_f - s));
}

static void scan_strings(unsigned n) {
  static const char *fixed[] = {
      "0", "-0", "1e400", "-1e400", "1e-400", "4.9406564584124654e-324", "2.4703282292062327e-324",
      "2.4703282292062328e-324", "inf", "-Infinity", "nan", "0x1.8p1", "0x1p-1074",
      "0.1e1", "123abc", ".5", "5.", "  42", "0x1F", "017", "1.00000000000000011102230246251565404236316680908203125",
      "1.000000059604644775390625", "3.4028235677973366e38", "1.17549435e-38", "1e39"};
  for (unsigned k = 0; k < sizeof fixed / sizeof fixed[0]; ++k) scan_one(fixed[k]);
  char buf[64];
  for (unsigned k = 0; k < n; ++k) {
    const double d = sample_double(k + 3 * EDGES);
    switch (k % 3) {
      case 0: snprintf(buf, sizeof buf, "%.17g", d); break;
      case 1: snprintf(buf, sizeof buf, "%.*e", (int)(k % 25), d); break;
      default: snprintf(buf, sizeof buf, "%" PRIu64 ".%" PRIu64 "e%d", next() % 100000000000ull,
                        next() % 10000000000ull, (int)(next() % 700) - 350);
    }
    scan_one(buf);
  }
}

/* libm: the functions, their argument ranges; the test knows the bounds. */
typedef double (*fn1)(double);
typedef float (*fn1f)(float);
static const struct {
  const char *name;
  fn1 f;
  double lo, hi;
} math1[] = {{"sqrt", sqrt, 0, 1e300},  {"exp", exp, -700, 700},    {"log", log, 1e-300, 1e300},
             {"sin", sin, -1e4, 1e4},   {"cos", cos, -1e4, 1e4},    {"tan", tan, -1e3, 1e3},
             {"atan", atan, -1e4, 1e4}, {"asin", asin, -1, 1},      {"acos", acos, -1, 1},
             {"sinh", sinh, -700, 700}, {"cosh", cosh, -700, 700},  {"tanh", tanh, -20, 20},
             {"log10", log10, 1e-300, 1e300}, {"log2", log2, 1e-300, 1e300},
             {"exp2", exp2, -1000, 1000}, {"cbrt", cbrt, -1e300, 1e300},
             {"expm1", expm1, -50, 700}, {"log1p", log1p, -0.999, 1e300},
             {"floor", floor, -1e20, 1e20}, {"round", round, -1e20, 1e20}};
static const struct {
  const char *name;
  fn1f f;
  float lo, hi;
} math1f[] = {{"sqrtf", sqrtf, 0, 1e38f},   {"expf", expf, -87, 88},    {"logf", logf, 1e-38f, 1e38f},
              {"sinf", sinf, -1e4f, 1e4f},  {"cosf", cosf, -1e4f, 1e4f}, {"tanf", tanf, -1e3f, 1e3f},
              {"atanf", atanf, -1e4f, 1e4f}, {"exp2f", exp2f, -126, 127}, {"log2f", log2f, 1e-38f, 1e38f},
              {"powf2", 0, 0, 0}};

static double uniform(double lo, double hi) {
  /* Log-uniform over wide positive ranges, else uniform. */
  const double u = (double)(next() >> 11) / 9007199254740992.0;
  if (lo > 0 && hi / lo > 1e6) return exp(log(lo) + u * (log(hi) - log(lo)));
  return lo + u * (hi - lo);
}

static void print_libm(unsigned n) {
  for (unsigned m = 0; m < sizeof math1 / sizeof math1[0]; ++m)
    for (unsigned k = 0; k < n; ++k) {
      const double x = uniform(math1[m].lo, math1[m].hi);
      printf("M %s %016" PRIx64 " %016" PRIx64 "\n", math1[m].name, bits(x), bits(math1[m].f(x)));
    }
  for (unsigned m = 0; math1f[m].f; ++m)
    for (unsigned k = 0; k < n; ++k) {
      const float x = (float)uniform(math1f[m].lo, math1f[m].hi);
      printf("MF %s %08" PRIx32 " %08" PRIx32 "\n", math1f[m].name, bits32(x), bits32(math1f[m].f(x)));
    }
  for (unsigned k = 0; k < n; ++k) {
    const double x = uniform(1e-3, 1e3), y = uniform(-50, 50);
    printf("M2 pow %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n", bits(x), bits(y), bits(pow(x, y)));
    const double a = uniform(-1e3, 1e3), b = uniform(-1e3, 1e3);
    printf("M2 atan2 %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n", bits(a), bits(b), bits(atan2(a, b)));
    printf("M2 fmod %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n", bits(a), bits(b), bits(fmod(a, b)));
    printf("M2 hypot %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n", bits(a), bits(b), bits(hypot(a, b)));
  }
}

static unsigned failures;
static void expect(int ok, const char *what, long detail) {
  if (!ok && failures++ < 20) printf("FAIL %s (%ld)\n", what, detail);
}

static void round_trips(unsigned n) {
  char buf[40];
  unsigned bad = 0;
  for (unsigned k = 0; k < n; ++k) {
    const double d = sample_double(k);
    if (isnan(d)) continue;
    snprintf(buf, sizeof buf, "%.17g", d);
    bad += bits(strtod(buf, 0)) != bits(d);
    const float f = sample_float(k);
    if (isnan(f)) continue;
    snprintf(buf, sizeof buf, "%.9g", (double)f);
    bad += bits32(strtof(buf, 0)) != bits32(f);
  }
  expect(bad == 0, "strtod/strtof round trips", (long)bad);
  printf("round trips: %u doubles and floats, %u wrong\n", n, bad);
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void sorting(void) {
  static int v[3000], copy[3000];
  for (unsigned n = 0; n <= 3000; n = n ? n * 3 + 1 : 1) {
    long sum = 0, sum_sorted = 0;
    for (unsigned k = 0; k < n; ++k) sum += v[k] = (int)(next() % (n / 2 + 1)) - (int)(n / 4);
    memcpy(copy, v, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_int);
    for (unsigned k = 0; k < n; ++k) {
      sum_sorted += v[k];
      expect(k == 0 || v[k - 1] <= v[k], "qsort order", (long)k);
      const int *hit = bsearch(&copy[k], v, n, sizeof *v, cmp_int);
      expect(hit && *hit == copy[k], "bsearch finds", (long)k);
    }
    const int absent = (int)n + 1;
    expect(bsearch(&absent, v, n, sizeof *v, cmp_int) == 0, "bsearch absent", (long)n);
    expect(sum == sum_sorted, "qsort keeps the elements", (long)n);
  }
  printf("qsort/bsearch: sizes 0 to 3000\n");
}

/* Every source and destination offset 0-7 and length 0-70 against byte loops. */
static void strings(void) {
  static unsigned char a[160], b[160], ref[160];
  unsigned cases = 0;
  for (unsigned so = 0; so < 8; ++so)
    for (unsigned d = 0; d < 8; ++d)
      for (unsigned n = 0; n <= 70; ++n, ++cases) {
        for (unsigned k = 0; k < sizeof a; ++k) a[k] = (unsigned char)(k * 7 + 1), b[k] = ref[k] = (unsigned char)(200 - k);
        memcpy(b + d, a + so, n);
        for (unsigned k = 0; k < n; ++k) ref[d + k] = a[so + k];
        expect(!memcmp(b, ref, sizeof b), "memcpy", (long)(so * 1000 + d * 100 + n));
        memset(b + d, (int)so, n);
        for (unsigned k = 0; k < n; ++k) ref[d + k] = (unsigned char)so;
        expect(!memcmp(b, ref, sizeof b), "memset", (long)(so * 1000 + d * 100 + n));
        /* Overlapping moves both ways inside one buffer. */
        memcpy(ref, a, sizeof a);
        memmove(a + 16 + d, a + 16 + so, n);
        for (unsigned k = 0; k < n; ++k) ref[16 + d + k] = (unsigned char)(((16 + so + k) * 7 + 1) & 0xFF);
        expect(!memcmp(a, ref, sizeof a), "memmove", (long)(so * 1000 + d * 100 + n));
        /* Strings: n characters from offset so, terminated. */
        char s[100], t[100];
        for (unsigned k = 0; k < n; ++k) s[so + k] = (char)('a' + (k * 5 + so) % 26);
        s[so + n] = 0;
        expect(strlen(s + so) == n, "strlen", (long)(so * 100 + n));
        char *c = strcpy(t + d, s + so);
        expect(c == t + d && !strcmp(t + d, s + so), "strcpy/strcmp", (long)(so * 1000 + d * 100 + n));
        if (n) {
          t[d + n - 1] ^= 1;
          expect((strcmp(t + d, s + so) < 0) == ((t[d + n - 1] & 0xFF) < (s[so + n - 1] & 0xFF)), "strcmp order", (long)n);
          expect(strncmp(t + d, s + so, n - 1) == 0, "strncmp", (long)n);
          expect(memcmp(t + d, s + so, n) != 0, "memcmp differs", (long)n);
          const char want = s[so + n / 2];
          const char *first = 0, *last = 0;
          for (unsigned k = 0; k < n; ++k)
            if (s[so + k] == want) last = s + so + k, first = first ? first : s + so + k;
          expect(strchr(s + so, want) == first && strrchr(s + so, want) == last, "strchr/strrchr", (long)n);
          expect(memchr(s + so, want, n) == first, "memchr", (long)n);
          expect(strstr(s + so, s + so + n / 2) != 0, "strstr", (long)n);
        }
        strncpy(t + d, s + so, 90 - d);
        expect(t[d + n] == 0 && t[89] == 0, "strncpy pads", (long)n);
      }
  printf("string/memory: %u cases (offsets 0-7 x 0-7, lengths 0-70)\n", cases);
}

static void heap_stress(void) {
  enum { SLOTS = 200, OPS = 20000 };
  static unsigned char *p[SLOTS];
  static size_t size[SLOTS];
  const size_t before = emx_heap_in_use();
  for (unsigned op = 0; op < OPS; ++op) {
    const unsigned k = (unsigned)(next() % SLOTS);
    if (p[k]) { /* check the pattern, then free or grow/shrink */
      for (size_t j = 0; j < size[k]; ++j)
        if (p[k][j] != (unsigned char)(k + j)) {
          expect(0, "heap contents", (long)op);
          break;
        }
      if (next() & 1) {
        free(p[k]);
        p[k] = 0;
        continue;
      }
      const size_t n = (size_t)(next() % 3000);
      unsigned char *q = realloc(p[k], n);
      expect(q != 0 || n == 0, "realloc", (long)n);
      if (!q) continue;
      for (size_t j = size[k]; j < n; ++j) q[j] = (unsigned char)(k + j);
      p[k] = q, size[k] = n;
      continue;
    }
    size[k] = (size_t)(next() % 3000);
    p[k] = next() & 1 ? malloc(size[k]) : calloc(size[k], 1);
    expect(p[k] != 0, "malloc", (long)size[k]);
    expect(((uintptr_t)p[k] & 7) == 0, "8-byte aligned", (long)op);
    for (size_t j = 0; j < size[k]; ++j) p[k][j] = (unsigned char)(k + j);
  }
  for (unsigned k = 0; k < SLOTS; ++k) free(p[k]);
  void *aligned = aligned_alloc(256, 100);
  expect(((uintptr_t)aligned & 255) == 0, "aligned_alloc", 0);
  free(aligned);
  printf("malloc/free/realloc: %u operations, all freed %d\n", OPS, emx_heap_in_use() == before);
}

static void errno_values(void) {
  errno = 0;
  strtol("99999999999999999999", 0, 10);
  printf("errno strtol overflow %d\n", errno);
  errno = 0;
  strtod("1e999", 0);
  printf("errno strtod overflow %d\n", errno);
  errno = 0;
  /* Through a pointer: with -fno-math-errno GCC assumes malloc leaves errno alone (GCC
   * bug 88576) and would reuse the 0 stored above. */
  void *(*volatile alloc)(size_t) = malloc;
  const void *big = alloc((size_t)1 << 30);
  printf("errno malloc(1 GiB) %d null %d\n", errno, big == 0);
  errno = 0;
  (void)sqrt(-1.0);
  printf("errno sqrt(-1) %d\n", errno);
  errno = 0;
  printf("errno write(stdin) %d %d\n", (int)write(0, "x", 1), errno);
  errno = 0;
  printf("errno lseek(stdout) %d %d\n", (int)lseek(1, 0, SEEK_SET), errno);
  errno = 0;
  printf("errno fopen without --files %d %d\n", fopen("x", "r") == 0, errno);
  errno = 0;
  printf("errno sysconf(-1) %ld %d\n", sysconf(-1), errno);
  printf("strerror ENOENT %s, EACCES %s, ERANGE %s\n", strerror(ENOENT), strerror(EACCES),
         strerror(ERANGE));
}

/* stdio on host files. */
static void files(void) {
  FILE *f = fopen("w.txt", "w");
  expect(f != 0, "fopen w", errno);
  fprintf(f, "%d %s %.2f\n", 42, "forty-two", 4.25);
  fputs("line two\n", f);
  expect(ftell(f) == 27, "ftell after writes", ftell(f));
  fclose(f);

  f = fopen("w.txt", "r");
  int i;
  char word[20];
  double d;
  expect(fscanf(f, "%d %19s %lf", &i, word, &d) == 3 && i == 42 && !strcmp(word, "forty-two") && d == 4.25,
         "fscanf", i);
  expect(fgetc(f) == '\n', "fgetc", 0);
  expect(ungetc('L', f) == 'L', "ungetc", 0);
  char line[40];
  expect(fgets(line, sizeof line, f) && !strcmp(line, "Lline two\n"), "fgets after ungetc", 0);
  expect(fgetc(f) == EOF && feof(f) && !ferror(f), "eof", 0);
  clearerr(f);
  expect(!feof(f), "clearerr", 0);
  expect(fseek(f, 3, SEEK_SET) == 0 && fgetc(f) == 'f' && ftell(f) == 4, "fseek SET", ftell(f));
  expect(fseek(f, 2, SEEK_CUR) == 0 && fgetc(f) == 't' && ftell(f) == 7, "fseek CUR", ftell(f));
  expect(fseek(f, -5, SEEK_END) == 0 && fgetc(f) == ' ' && ftell(f) == 23, "fseek END", ftell(f));
  rewind(f);
  expect(fgetc(f) == '4', "rewind", 0);
  fclose(f);

  f = fopen("w.txt", "a"); /* appends */
  fputs("appended\n", f);
  fclose(f);
  f = fopen("w.txt", "r+"); /* overwrites in place */
  fputs("XY", f);
  fclose(f);
  f = fopen("w.txt", "a+"); /* reads anywhere, writes at the end */
  rewind(f);
  expect(fgetc(f) == 'X', "a+ reads", 0);
  fputs("end\n", f);
  fclose(f);
  /* picolibc 1.8's fopen ignores C11's 'x' (docs/runtime.md): open() has O_EXCL. */
  expect(open("w.txt", O_WRONLY | O_CREAT | O_EXCL, 0644) == -1 && errno == EEXIST,
         "O_EXCL on an existing file", errno);
  f = fopen("missing.txt", "r");
  expect(f == 0 && errno == ENOENT, "r on a missing file", errno);
  f = fopen("../escape.txt", "w");
  expect(f == 0 && errno == EACCES, "outside the directory", errno);

  /* Unbuffered: every fputc is a host request, so the file has it at once. */
  f = fopen("unbuf.txt", "w+");
  expect(setvbuf(f, 0, _IONBF, 0) == 0, "setvbuf _IONBF", 0);
  fputc('u', f);
  FILE *g = fopen("unbuf.txt", "r");
  expect(fgetc(g) == 'u', "unbuffered write visible at once", 0);
  fclose(g);
  fclose(f);
  /* Fully buffered with the program's buffer: nothing before fflush. */
  static char buf[64];
  f = fopen("buf.txt", "w");
  expect(setvbuf(f, buf, _IOFBF, sizeof buf) == 0, "setvbuf _IOFBF", 0);
  fputs("held", f);
  g = fopen("buf.txt", "r");
  expect(fgetc(g) == EOF, "buffered write held", 0);
  fflush(f);
  clearerr(g);
  expect(fseek(g, 0, SEEK_SET) == 0 && fgetc(g) == 'h', "visible after fflush", 0);
  fclose(g);
  fclose(f);
  /* Binary data with fread/fwrite, and w+ reading back what it wrote. */
  f = fopen("data.bin", "w+");
  uint32_t out[300], in[300];
  for (unsigned k = 0; k < 300; ++k) out[k] = k * 2654435761u;
  expect(fwrite(out, sizeof out[0], 300, f) == 300, "fwrite", 0);
  rewind(f);
  expect(fread(in, sizeof in[0], 300, f) == 300 && !memcmp(in, out, sizeof in), "fread", 0);
  expect(fread(in, 1, 1, f) == 0 && feof(f), "fread at the end", 0);
  fclose(f);
  expect(remove("data.bin") == 0, "remove", errno);
  expect(remove("data.bin") == -1 && errno == ENOENT, "remove again", errno);
  printf("files: done\n");
}

/* Two computations: one waits inside fopen (a host request) for a missing file while the
 * other makes errno ERANGE; each sees its own call's errno. */
static unsigned done_count;
static void opener(uint32_t *args) {
  (void)args;
  FILE *f = fopen("missing.txt", "r");
  const int e = errno;
  printf("opener: %s errno %d\n", f ? "opened" : "failed", e);
  ++done_count;
}
static void ranger(uint32_t *args) {
  (void)args;
  errno = 0;
  strtol("99999999999999999999", 0, 10);
  printf("ranger: errno %d\n", errno);
  ++done_count;
}
static void threads(void) {
  uint32_t none = 0;
  emx_spawn(0, opener, &none, 1);
  emx_spawn(0, ranger, &none, 1);
  while (done_count < 2) emx_yield();
  printf("threads: errno after both %d\n", errno);
}

int main(int argc, char **argv) {
  if (emx_pe_id() != 0) return 0;
  const char *what = argc > 1 ? argv[1] : "local";
  const unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
  if (!strcmp(what, "printf")) print_doubles(n), print_floats(n), print_integers(n);
  else if (!strcmp(what, "scanf")) scan_strings(n);
  else if (!strcmp(what, "libm")) print_libm(n);
  else if (!strcmp(what, "files")) files();
  else if (!strcmp(what, "threads")) threads();
  else round_trips(n), sorting(), strings(), heap_stress(), errno_values();
  printf("failures: %u\n", failures);
  return failures != 0;
}
