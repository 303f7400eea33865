/* Files through the host (emx run --files DIR): round trips with stdio and with
 * open/read/write, the confinement to DIR, and the host link's rate in simulated time.
 *
 *   rt_files roundtrip | confine | nofiles | rate BYTES
 *
 * roundtrip: reads in.txt (three lines the test wrote), writes out.txt and out.bin, and
 * prints what it saw; confine: the errno of each path that must be refused; nofiles:
 * what fopen says without --files; rate: the clocks of writing and reading BYTES bytes
 * (results write_cycles, read_cycles). */
#include <emx/emx.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
static void expect(int ok, const char *what) {
  if (!ok) printf("FAILED: %s (errno %d)\n", what, errno), ++failures;
}

static void roundtrip(void) {
  FILE *in = fopen("in.txt", "r");
  expect(in != 0, "fopen in.txt");
  char line[64];
  int n = 0;
  while (fgets(line, sizeof line, in)) printf("line %d: %s", ++n, line);
  expect(feof(in) && !ferror(in), "end of in.txt");
  fclose(in);

  FILE *out = fopen("out.txt", "w");
  setvbuf(out, 0, _IOLBF, 0);
  for (int k = 0; k < 3; ++k) fprintf(out, "row %d: %d\n", k, k * k);
  fputs("last\n", out);
  expect(fclose(out) == 0, "fclose out.txt");

  /* Binary: 1000 ints, then seek and overwrite one, ftell, read back. */
  FILE *b = fopen("out.bin", "w+");
  int v[1000];
  for (int k = 0; k < 1000; ++k) v[k] = k * 7;
  expect(fwrite(v, sizeof v[0], 1000, b) == 1000, "fwrite");
  expect(ftell(b) == 4000, "ftell after fwrite");
  expect(fseek(b, 40, SEEK_SET) == 0, "fseek");
  const int x = -1;
  fwrite(&x, 4, 1, b);
  rewind(b);
  int w[1000];
  expect(fread(w, 4, 1000, b) == 1000, "fread");
  expect(w[10] == -1 && w[9] == 63 && w[999] == 6993, "binary contents");
  expect(fread(w, 4, 1, b) == 0 && feof(b), "fread at the end");
  fseek(b, -8, SEEK_END);
  expect(ftell(b) == 3992, "ftell from the end");
  fclose(b);

  /* Append, then open/read/lseek/close. */
  FILE *a = fopen("out.txt", "a");
  fprintf(a, "appended\n");
  fclose(a);
  int fd = open("out.txt", O_RDONLY);
  char buf[128];
  const ssize_t got = read(fd, buf, sizeof buf - 1);
  buf[got > 0 ? got : 0] = 0;
  expect(got == (ssize_t)strlen("row 0: 0\nrow 1: 1\nrow 2: 4\nlast\nappended\n") &&
             !strcmp(buf, "row 0: 0\nrow 1: 1\nrow 2: 4\nlast\nappended\n"),
         "out.txt by read()");
  expect(lseek(fd, 4, SEEK_SET) == 4 && read(fd, buf, 1) == 1 && buf[0] == '0', "lseek");
  expect(close(fd) == 0, "close");
  expect(close(fd) == -1 && errno == EBADF, "close twice");
  fd = open("made.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  expect(write(fd, "made\n", 5) == 5, "write");
  close(fd);
  expect(remove("out.bin") == 0, "remove");
  expect(fopen("out.bin", "r") == 0 && errno == ENOENT, "removed file opens");
  printf("roundtrip: %s\n", failures ? "FAILED" : "ok");
}

static void confine(void) {
  const char *paths[] = {"../outside.txt", "/etc/passwd", "sub/../../x", "escape/x.txt",
                         "escape_file", "inside_link/in.txt", ""};
  for (unsigned k = 0; k < sizeof paths / sizeof *paths; ++k) {
    errno = 0;
    FILE *f = fopen(paths[k], "r");
    printf("%s: %s errno %d\n", paths[k], f ? "opened" : "refused", errno);
    if (f) fclose(f);
  }
  errno = 0;
  printf("create escape/new.txt: %s errno %d\n", fopen("escape/new.txt", "w") ? "made" : "refused", errno);
  errno = 0;
  printf("remove ../x: %d errno %d\n", remove("../x"), errno);
}

static void rate(int bytes) {
  char *p = malloc(bytes);
  memset(p, 'x', bytes);
  int fd = open("rate.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  uint64_t t0 = emx_cycles();
  expect(write(fd, p, bytes) == bytes, "rate write");
  uint64_t t1 = emx_cycles();
  close(fd);
  fd = open("rate.bin", O_RDONLY);
  uint64_t t2 = emx_cycles();
  expect(read(fd, p, bytes) == bytes, "rate read");
  uint64_t t3 = emx_cycles();
  close(fd);
  emx_result_int("write_cycles", (long long)(t1 - t0));
  emx_result_int("read_cycles", (long long)(t3 - t2));
  printf("rate: %s\n", failures ? "FAILED" : "ok");
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "roundtrip";
  if (!strcmp(what, "roundtrip")) roundtrip();
  else if (!strcmp(what, "confine")) confine();
  else if (!strcmp(what, "rate")) rate(argc > 2 ? atoi(argv[2]) : 4096);
  else {
    errno = 0;
    FILE *f = fopen("in.txt", "r");
    printf("without --files: %s errno %d\n", f ? "opened" : "refused", errno);
    perror("fopen");
  }
  return failures;
}
