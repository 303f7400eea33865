/* Errors of the ACP layer: a clear message, then every rank stops (or, after
 * acp_errors_return(1), the call returns its null value). */
#include <stdarg.h>
#include <stdio.h>

#include "acp_internal.h"

static int errors_return;

void acp_errors_return(int on) { errors_return = on; }

static void acp_h_abort(uint32_t code, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  emx_exit((int)code);
}
EMX_HANDLER(acp_h_abort);

void acp__error(const char *fn, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("acp error on rank %u in %s: ", emx_pe_id(), fn);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (errors_return) return;
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  for (unsigned pe = 0; pe < pes; ++pe)
    if (pe != me) EMX_INVOKE(pe, acp_h_abort, 0, ACP_ERROR_EXIT);
  emx_exit(ACP_ERROR_EXIT);
}
