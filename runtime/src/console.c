/* Console output: bytes go to the host in EMX_HOST_CONSOLE packets of up to 4 bytes.
 * A line is buffered first so a line costs ceil(length/4) packets, not one per byte;
 * the buffer is flushed at a newline, when full, and at exit. Each PE has its own
 * memory, hence its own buffer; threads of one PE never interleave inside a call
 * because a thread is never interrupted. */
#include <emx/emx.h>

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

void emx_console_putc(char c) {
  line[line_len++] = (unsigned char)c;
  if (c == '\n' || line_len == CONSOLE_BUFFER) emx_console_flush();
}

void emx_console_write(const char *s, size_t n) {
  while (n--) emx_console_putc(*s++);
}
