/* The console: stdout and stderr for picolibc's stdio (tinystdio FILEs with put and
 * flush functions; stdin is empty). Bytes go to the host in EMX_HOST_CONSOLE packets of
 * up to 4 bytes. A line is buffered first so a line costs ceil(length/4) packets, not
 * one per byte; the buffer is flushed at a newline, when full, at fflush and at exit.
 * Each PE has its own memory, hence its own buffer; threads of one PE never interleave
 * inside a call because a thread is never interrupted. */
#include <emx/emx.h>
#include <stdio.h>

#include "runtime_internal.h"

enum { CONSOLE_BUFFER = 128 };

/* Word-aligned, a multiple of 4 bytes: a packet's data word is one load. */
static unsigned char line[CONSOLE_BUFFER] __attribute__((aligned(4)));
static unsigned line_len;

void emx_console_flush(void) {
  for (unsigned k = 0; k < line_len; k += 4) {
    const unsigned n = line_len - k < 4 ? line_len - k : 4;
    /* Little-endian: the first byte is the low byte; the host takes only n bytes. */
    const uint32_t word = *(const uint32_t *)(const void *)(line + k);
    emx_host_send(EMX_HOST_CONSOLE, n, word);
  }
  line_len = 0;
}

/* The stream's put function, called once per character: the buffering is here rather
 * than in a function it calls, which would cost a call per character. */
static int put(char c, FILE *f) {
  (void)f;
  line[line_len++] = (unsigned char)c;
  if (c == '\n' || line_len == CONSOLE_BUFFER) emx_console_flush();
  return (unsigned char)c;
}

static int flush(FILE *f) {
  (void)f;
  emx_console_flush();
  return 0;
}

static int get(FILE *f) {
  (void)f;
  return _FDEV_EOF;
}

static FILE console = FDEV_SETUP_STREAM(put, NULL, flush, _FDEV_SETUP_WRITE);
static FILE empty_input = FDEV_SETUP_STREAM(NULL, get, NULL, _FDEV_SETUP_READ);

FILE *const stdout = &console;
FILE *const stderr = &console;
FILE *const stdin = &empty_input;

/* write(1 or 2, ...) (posix_io.c). */
void emx_console_write(const char *s, size_t n) {
  while (n--) put(*s++, &console);
}
