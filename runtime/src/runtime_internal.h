/* Functions shared by the runtime's own files; not part of the user API. */
#ifndef EMX_RUNTIME_INTERNAL_H
#define EMX_RUNTIME_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* console.c: bytes to the console, as write(1, ...) */
void emx_console_write(const char *s, size_t n);

/* The PE's errno, whatever tp holds: picolibc's errno lives in the thread-local block
 * (tp-relative), and a thread started by a packet has tp = its frame (0 for a special
 * handler). The platform layer sets errno through this, so a failing call sets the
 * PE's errno from any thread instead of writing into a frame (docs/runtime.md, "The C
 * library and threads"). */
extern char __tls_base[];
#define EMX_PE_ERRNO \
  (*(int *)((char *)&errno - (char *)__builtin_thread_pointer() + __tls_base))

#endif
