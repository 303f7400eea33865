/* File operations through the host on the paths given (emx run --files DIR), for the
 * confinement tests and the host-path fuzzer: host_paths OP PATH [OP PATH ...] with OP
 * read (print the first line), write (create or truncate, write "written"), excl (create
 * exclusively), remove, or hold (open it again and again, never closing, until an open
 * fails). Prints one line per operation: "k OP: ok [line]" or "k OP: errno N" ("k hold:
 * N open, errno E"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int run(const char *op, const char *path, char *line, int size) {
  line[0] = 0;
  if (!strcmp(op, "remove")) return remove(path);
  int flags = O_RDONLY;
  if (!strcmp(op, "write")) flags = O_WRONLY | O_CREAT | O_TRUNC;
  else if (!strcmp(op, "excl")) flags = O_WRONLY | O_CREAT | O_EXCL;
  const int fd = open(path, flags, 0644);
  if (fd < 0) return -1;
  int r = 0;
  if (flags == O_RDONLY) {
    const int n = read(fd, line, size - 1);
    if (n < 0) r = -1;
    line[n > 0 ? n : 0] = 0;
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
  } else if (write(fd, "written\n", 8) != 8) {
    r = -1;
  }
  const int saved = errno;
  close(fd);
  errno = saved;
  return r;
}

int main(int argc, char **argv) {
  for (int k = 1; k + 1 < argc; k += 2) {
    char line[64];
    errno = 0;
    if (!strcmp(argv[k], "hold")) {
      int n = 0;
      while (open(argv[k + 1], O_RDONLY) >= 0) ++n;
      printf("%d hold: %d open, errno %d\n", k / 2, n, errno);
      continue;
    }
    if (run(argv[k], argv[k + 1], line, sizeof line) == 0)
      printf("%d %s: ok%s%s\n", k / 2, argv[k], line[0] ? " " : "", line);
    else
      printf("%d %s: errno %d\n", k / 2, argv[k], errno);
  }
  return 0;
}
