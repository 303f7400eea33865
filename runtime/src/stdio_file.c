/* File streams (fopen ...) over the host's files (files.c), buffered: a read fills the
 * buffer with one host request, writes go out when it is full, at a newline (_IOLBF),
 * at once (_IONBF), and at fflush, fseek and fclose. */
#include <emx/emx.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime_internal.h"

FILE *fopen(const char *path, const char *mode) {
  int flags;
  unsigned f;
  switch (mode[0]) {
    case 'r': flags = O_RDONLY, f = F_READ; break;
    case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC, f = F_WRITE; break;
    case 'a': flags = O_WRONLY | O_CREAT | O_APPEND, f = F_WRITE | F_APPEND; break;
    default: errno = EINVAL; return 0;
  }
  if (strchr(mode, '+')) flags = (flags & ~O_ACCMODE) | O_RDWR, f |= F_READ | F_WRITE;
  if (strchr(mode, 'x')) flags |= O_EXCL;
  FILE *s = malloc(sizeof *s);
  char *buf = malloc(BUFSIZ);
  if (!s || !buf) {
    free(s), free(buf);
    errno = ENOMEM;
    return 0;
  }
  const int fd = open(path, flags, 0644);
  if (fd < 0) {
    free(s), free(buf);
    return 0;
  }
  *s = (struct emx_file){fd, f | F_OWN_BUF, _IOFBF, buf, BUFSIZ, 0, 0, -1};
  return s;
}

int emx_file_flush(FILE *f) {
  if (f->fd < 0) return 0;
  int err = 0;
  if (f->flags & F_WRITING) {
    for (size_t at = 0; at < f->len;) {
      const ssize_t n = write(f->fd, f->buf + at, f->len - at);
      if (n <= 0) {
        f->flags |= F_ERR;
        err = EOF;
        break;
      }
      at += (size_t)n;
    }
    f->flags &= ~F_WRITING;
  } else if (f->pos < f->len) {
    /* Read ahead: the file position is where the program has read to. */
    lseek(f->fd, -(off_t)(f->len - f->pos), SEEK_CUR);
  }
  f->len = f->pos = 0;
  f->unget = -1;
  return err;
}

size_t emx_file_write(FILE *f, const char *p, size_t n) {
  if (!(f->flags & F_WRITE)) {
    f->flags |= F_ERR;
    errno = EBADF;
    return 0;
  }
  if (!(f->flags & F_WRITING)) {
    emx_file_flush(f); /* from reading to writing */
    f->flags |= F_WRITING;
  }
  size_t done = 0;
  while (done < n) {
    if (f->mode == _IONBF || !f->size) {
      const ssize_t w = write(f->fd, p + done, n - done);
      if (w <= 0) {
        f->flags |= F_ERR;
        return done;
      }
      done += (size_t)w;
      continue;
    }
    size_t k = f->size - f->len < n - done ? f->size - f->len : n - done;
    memcpy(f->buf + f->len, p + done, k);
    f->len += k;
    done += k;
    const int newline = f->mode == _IOLBF && memchr(p + done - k, '\n', k);
    if ((f->len == f->size || newline) && emx_file_flush(f)) return done - k;
    f->flags |= F_WRITING;
  }
  return done;
}

/* Refills the read buffer; 0 at the end of the file or on an error (flags set). */
static int fill(FILE *f) {
  if (!(f->flags & F_READ)) {
    f->flags |= F_ERR;
    errno = EBADF;
    return 0;
  }
  if (f->flags & F_WRITING) emx_file_flush(f);
  if (f->fd == FD_STDIN) return 0;
  char one;
  char *into = f->size ? f->buf : &one;
  const ssize_t n = read(f->fd, into, f->size ? f->size : 1);
  if (n <= 0) {
    f->flags |= n < 0 ? F_ERR : F_EOF;
    return 0;
  }
  if (!f->size) {
    f->unget = (unsigned char)one;
    return 1;
  }
  f->len = (size_t)n;
  f->pos = 0;
  return 1;
}

int fgetc(FILE *f) {
  if (f->unget >= 0) {
    const int c = f->unget;
    f->unget = -1;
    return c;
  }
  if (f->pos == f->len && !fill(f)) return EOF;
  if (f->unget >= 0) return fgetc(f); /* unbuffered: the character came in unget */
  return (unsigned char)f->buf[f->pos++];
}
int getc(FILE *f) { return fgetc(f); }
int getchar(void) { return fgetc(stdin); }

int ungetc(int c, FILE *f) {
  if (c == EOF || f->unget >= 0) return EOF;
  f->unget = (unsigned char)c;
  f->flags &= ~F_EOF;
  return (unsigned char)c;
}

size_t fread(void *p, size_t size, size_t count, FILE *f) {
  if (!size || !count) return 0;
  char *out = p;
  const size_t want = size * count;
  size_t got = 0;
  while (got < want) {
    if (f->unget >= 0 || f->pos < f->len) {
      const int c = fgetc(f);
      out[got++] = (char)c;
      size_t k = f->len - f->pos < want - got ? f->len - f->pos : want - got;
      memcpy(out + got, f->buf + f->pos, k);
      f->pos += k;
      got += k;
      continue;
    }
    if (!fill(f)) break;
  }
  return got / size;
}

char *fgets(char *s, int n, FILE *f) {
  int k = 0;
  while (k + 1 < n) {
    const int c = fgetc(f);
    if (c == EOF) break;
    s[k++] = (char)c;
    if (c == '\n') break;
  }
  if (k == 0 && n > 1) return 0;
  if (n > 0) s[k] = 0;
  return s;
}

int fseek(FILE *f, long offset, int whence) {
  if (f->fd < 0) {
    errno = ESPIPE;
    return -1;
  }
  if (emx_file_flush(f)) return -1;
  if (lseek(f->fd, offset, whence) < 0) return -1;
  f->flags &= ~F_EOF;
  return 0;
}

long ftell(FILE *f) {
  if (f->fd < 0) {
    errno = ESPIPE;
    return -1;
  }
  const long at = lseek(f->fd, 0, SEEK_CUR);
  if (at < 0) return -1;
  if (f->flags & F_WRITING) return at + (long)f->len;
  return at - (long)(f->len - f->pos) - (f->unget >= 0);
}

void rewind(FILE *f) {
  (void)fseek(f, 0, SEEK_SET);
  f->flags &= ~F_ERR;
}

int feof(FILE *f) { return (f->flags & F_EOF) != 0; }
int ferror(FILE *f) { return (f->flags & F_ERR) != 0; }
void clearerr(FILE *f) { f->flags &= ~(F_EOF | F_ERR); }
int fileno(FILE *f) { return f->fd == FD_CONSOLE ? STDOUT_FILENO : f->fd == FD_STDIN ? STDIN_FILENO : f->fd; }

int setvbuf(FILE *f, char *buf, int mode, size_t size) {
  if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF) return -1;
  f->mode = mode;
  if (f->fd < 0) return 0; /* the console is line buffered by the runtime */
  if (emx_file_flush(f)) return -1;
  if (mode == _IONBF) {
    size = 0;
  } else if (buf && size) {
    if (f->flags & F_OWN_BUF) free(f->buf);
    f->flags &= ~F_OWN_BUF;
    f->buf = buf;
  } else {
    size = f->size;
  }
  f->size = size;
  return 0;
}
void setbuf(FILE *f, char *buf) { (void)setvbuf(f, buf, buf ? _IOFBF : _IONBF, BUFSIZ); }

int fclose(FILE *f) {
  if (f->fd < 0) return 0;
  const int err = emx_file_flush(f);
  const int c = close(f->fd);
  if (f->flags & F_OWN_BUF) free(f->buf);
  free(f);
  return err || c ? EOF : 0;
}
