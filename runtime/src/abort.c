/* abort(): flushes the console and executes ebreak, so the simulator stops the run with
 * a fault report naming the PE and PC (picolibc's would raise SIGABRT and exit with a
 * code, hiding where). The link takes this one (-u abort, cmake/EmxTarget.cmake). */
#include <emx/emx.h>
#include <stdlib.h>

void abort(void) {
  emx_console_flush();
  __builtin_trap(); /* ebreak */
}
