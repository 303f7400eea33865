/* Host services of emx.h: exit code and result records (host_protocol.h). */
#include <emx/emx.h>

void emx_exit(int code) {
  emx_console_flush();
  emx_host_send(EMX_HOST_EXIT, 0, (uint32_t)code);
  for (;;) emx_end(); /* never resumed: nothing names this code in a continuation */
}

static void send_result(const char *name, unsigned kind, uint64_t bits) {
  emx_host_send(EMX_HOST_RESULT_NAME, 0, (uint32_t)(uintptr_t)name);
  emx_host_send(EMX_HOST_RESULT_VALUE_LO, kind, (uint32_t)bits);
  emx_host_send(EMX_HOST_RESULT_VALUE_HI, kind, (uint32_t)(bits >> 32));
}

void emx_result_int(const char *name, long long value) {
  send_result(name, EMX_RESULT_INT, (uint64_t)value);
}

void emx_result(const char *name, double value) {
  union {
    double d;
    uint64_t u;
  } b = {value};
  send_result(name, EMX_RESULT_FLOAT, b.u);
}

/* picolibc's exit (and a return from main) ends here, after the atexit functions. */
void _exit(int code) { emx_exit(code); }
