/* The POSIX-style calls picolibc's stdio is built on (open, read, write, lseek, close,
 * unlink): files through the host (emx run --files DIR). Every call is a host request
 * (host_protocol.h) answered by an I-structure write, at the time the bytes take at the
 * host link's rate; the computation waits for it (it suspends: other threads run). The
 * console is not here: stdout and stderr are FILEs of their own (stdio_console.c), and
 * descriptors 1 and 2 lead to the same console. */
#include <emx/emc.h>
#include <emx/emx.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime_internal.h"

static int host_file(unsigned op, uint32_t a, uint32_t b, uint32_t c) {
  struct emx_host_file_request req __attribute__((aligned(4)));
  emx_istruct_clear(&req.done, 1);
  req.op = op;
  req.a = a;
  req.b = b;
  req.c = c;
  emx_host_send(EMX_HOST_FILE, 0, (uint32_t)(uintptr_t)&req);
  const int r = (int)emx_iread(emx_gaddr_mine(&req.done));
  /* errno after the suspension, so that no other computation's call can change it
   * before the caller looks. */
  if (r < 0) {
    EMX_PE_ERRNO = -r; /* the host answers in picolibc's numbers */
    return -1;
  }
  return r;
}

static int fail(int e) {
  EMX_PE_ERRNO = e;
  return -1;
}

static uint32_t addr(const void *p) { return (uint32_t)(uintptr_t)p; }

/* picolibc's O_* flags in the protocol's (Linux's) values. */
static uint32_t host_flags(int flags) {
  uint32_t h = (uint32_t)(flags & O_ACCMODE);
  if (flags & O_CREAT) h |= EMX_O_CREAT;
  if (flags & O_EXCL) h |= EMX_O_EXCL;
  if (flags & O_TRUNC) h |= EMX_O_TRUNC;
  if (flags & O_APPEND) h |= EMX_O_APPEND;
  return h;
}

int open(const char *path, int flags, ...) {
  unsigned mode = 0;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, unsigned);
    va_end(ap);
  }
  return host_file(EMX_FILE_OPEN, addr(path), host_flags(flags), mode);
}

int creat(const char *path, mode_t mode) { return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

static int console(int fd) { return fd == STDOUT_FILENO || fd == STDERR_FILENO; }

/* Descriptors 0-2: stdin is empty, 1 and 2 are the console. */
ssize_t read(int fd, void *buf, size_t n) {
  if (fd == STDIN_FILENO) return 0;
  if (console(fd)) return fail(EBADF);
  return host_file(EMX_FILE_READ, (uint32_t)fd, addr(buf), (uint32_t)n);
}

ssize_t write(int fd, const void *buf, size_t n) {
  if (console(fd)) {
    emx_console_write(buf, n);
    return (ssize_t)n;
  }
  if (fd == STDIN_FILENO) return fail(EBADF);
  return host_file(EMX_FILE_WRITE, (uint32_t)fd, addr(buf), (uint32_t)n);
}

off_t lseek(int fd, off_t offset, int whence) {
  if (fd >= 0 && fd <= STDERR_FILENO) return fail(ESPIPE);
  return host_file(EMX_FILE_SEEK, (uint32_t)fd, (uint32_t)offset, (uint32_t)whence);
}

int close(int fd) {
  if (fd >= 0 && fd <= STDERR_FILENO) return 0;
  return host_file(EMX_FILE_CLOSE, (uint32_t)fd, 0, 0) < 0 ? -1 : 0;
}

int unlink(const char *path) { return host_file(EMX_FILE_REMOVE, addr(path), 0, 0) < 0 ? -1 : 0; }
