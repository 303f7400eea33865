/* Files through the host (emx run --files DIR): every call is a host request
 * (host_protocol.h) answered by an I-structure write, at the time the bytes take at the
 * host link's rate; the computation waits for it. */
#include <emx/emc.h>
#include <emx/emx.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime_internal.h"

int emx_host_file(unsigned op, uint32_t a, uint32_t b, uint32_t c) {
  struct emx_host_file_request req __attribute__((aligned(4)));
  emx_istruct_clear(&req.done, 1);
  req.op = op;
  req.a = a;
  req.b = b;
  req.c = c;
  emx_host_send(EMX_HOST_FILE, 0, (uint32_t)(uintptr_t)&req);
  const int r = (int)emx_iread(emx_gaddr_mine(&req.done));
  if (r < 0) {
    errno = -r;
    return -1;
  }
  return r;
}

static uint32_t addr(const void *p) { return (uint32_t)(uintptr_t)p; }

int open(const char *path, int flags, ...) {
  unsigned mode = 0;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, unsigned);
    va_end(ap);
  }
  return emx_host_file(EMX_FILE_OPEN, addr(path), (uint32_t)flags, mode);
}

int creat(const char *path, mode_t mode) { return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

/* Descriptors 0-2 are the console (stdin empty). */
ssize_t read(int fd, void *buf, size_t n) {
  if (fd == STDIN_FILENO) return 0;
  if (fd == STDOUT_FILENO || fd == STDERR_FILENO) {
    errno = EBADF;
    return -1;
  }
  return emx_host_file(EMX_FILE_READ, (uint32_t)fd, addr(buf), (uint32_t)n);
}

ssize_t write(int fd, const void *buf, size_t n) {
  if (fd == STDOUT_FILENO || fd == STDERR_FILENO) {
    fwrite(buf, 1, n, stdout);
    return (ssize_t)n;
  }
  if (fd == STDIN_FILENO) {
    errno = EBADF;
    return -1;
  }
  return emx_host_file(EMX_FILE_WRITE, (uint32_t)fd, addr(buf), (uint32_t)n);
}

off_t lseek(int fd, off_t offset, int whence) {
  if (fd >= 0 && fd <= STDERR_FILENO) {
    errno = ESPIPE;
    return -1;
  }
  return emx_host_file(EMX_FILE_SEEK, (uint32_t)fd, (uint32_t)offset, (uint32_t)whence);
}

int close(int fd) {
  if (fd >= 0 && fd <= STDERR_FILENO) return 0;
  return emx_host_file(EMX_FILE_CLOSE, (uint32_t)fd, 0, 0) < 0 ? -1 : 0;
}

int unlink(const char *path) { return emx_host_file(EMX_FILE_REMOVE, addr(path), 0, 0) < 0 ? -1 : 0; }
int remove(const char *path) { return unlink(path); }
