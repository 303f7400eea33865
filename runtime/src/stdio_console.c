/* stdin, stdout and stderr for picolibc's stdio (tinystdio's FILE with put, get and
 * flush functions): stdout and stderr are both the host console (console.c: buffered
 * per PE, sent in 4-byte host packets at each newline, when 128 bytes are buffered, at
 * fflush and at exit); stdin is empty. */
#include <emx/emx.h>
#include <stdio.h>

#include "runtime_internal.h"

static int put(char c, FILE *f) {
  (void)f;
  emx_console_putc(c);
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
