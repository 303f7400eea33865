/* Errors: error handlers, messages, MPI_Abort. Under MPI_ERRORS_ARE_FATAL (the default)
 * an erroneous call prints rank, function and reason and stops every rank, so a bad
 * argument never reaches the matching structures or someone's memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static const char *const messages[MPI_ERR_LASTCODE + 1] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer",
    [MPI_ERR_COUNT] = "invalid count",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimensions",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
};

/* An invalid code is an error of the call (MPI_ERR_ARG), as in MPICH and Open MPI. */
int MPI_Error_string(int code, char *string, int *resultlen) {
  if (code < 0 || code > MPI_ERR_LASTCODE) {
    snprintf(string, MPI_MAX_ERROR_STRING, "invalid error code %d", code);
    *resultlen = (int)strlen(string);
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string", "invalid error code %d",
                     code);
  }
  strncpy(string, messages[code], MPI_MAX_ERROR_STRING - 1);
  string[MPI_MAX_ERROR_STRING - 1] = 0;
  *resultlen = (int)strlen(string);
  return MPI_SUCCESS;
}

int MPI_Error_class(int code, int *errorclass) {
  if (code < 0 || code > MPI_ERR_LASTCODE) {
    *errorclass = MPI_ERR_UNKNOWN;
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class", "invalid error code %d",
                     code);
  }
  *errorclass = code;
  return MPI_SUCCESS;
}

/* ---- Stopping every rank --------------------------------------------------------------- */

static void mpi_h_abort(uint32_t code, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  emx_exit((int)code);
}
EMX_HANDLER(mpi_h_abort);

/* The other ranks exit when their handler runs, i.e. as soon as they block or finish a
 * thread; the run ends when every PE has exited, with this code. */
static void abort_all(int code) __attribute__((noreturn));
static void abort_all(int code) {
  const unsigned me = emx_pe_id(), pes = emx_pe_count();
  for (unsigned pe = 0; pe < pes; ++pe)
    if (pe != me) EMX_INVOKE(pe, mpi_h_abort, 0, (uint32_t)code);
  emx_exit(code);
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;
  printf("MPI_Abort on rank %u: error code %d\n", emx_pe_id(), errorcode);
  abort_all(errorcode);
}

/* ---- Reporting -------------------------------------------------------------------------- */

int mpi_error(MPI_Comm comm, int code, const char *fn, const char *fmt, ...) {
  const mpi_comm *c = comm_get(comm);
  if (!c) c = comm_get(MPI_COMM_WORLD), comm = MPI_COMM_WORLD;
  if (c && c->errhandler == MPI_ERRORS_RETURN) return code;
  if (c && c->errhandler > MPI_ERRORS_RETURN) return errhandler_call(comm, c, code);
  printf("MPI error on rank %u in %s: ", emx_pe_id(), fn);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf(" (%s)\n", code >= 0 && code <= MPI_ERR_LASTCODE ? messages[code] : "?");
  abort_all(code);
}

void mpi_internal_error(const char *what) {
  printf("MPI internal error on rank %u: %s\n", emx_pe_id(), what);
  abort_all(MPI_ERR_INTERN);
}

/* User error handlers (Comm_create_errhandler, Errhandler_create): handle 3 + k. */
static MPI_Comm_errhandler_function **user_handlers;
static int user_handler_count;

static int handler_valid(MPI_Errhandler h) {
  const int k = h - (MPI_ERRORS_RETURN + 1);
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN ||
         (k >= 0 && k < user_handler_count && user_handlers[k]);
}

int errhandler_call(MPI_Comm comm, const mpi_comm *c, int code) {
  MPI_Comm_errhandler_function *fn = user_handlers[c->errhandler - (MPI_ERRORS_RETURN + 1)];
  fn(&comm, &code);
  return code;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *h) {
  if (!fn) return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_create_errhandler", "no function");
  int k = 0;
  while (k < user_handler_count && user_handlers[k]) ++k;
  if (k == user_handler_count) {
    MPI_Comm_errhandler_function **t = realloc(user_handlers, (k + 4) * sizeof *t);
    if (!t) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler", "no memory");
    for (int j = k; j < k + 4; ++j) t[j] = 0;
    user_handlers = t;
    user_handler_count = k + 4;
  }
  user_handlers[k] = fn;
  *h = MPI_ERRORS_RETURN + 1 + k;
  return MPI_SUCCESS;
}
int MPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *h) {
  return MPI_Comm_create_errhandler(fn, h);
}

int MPI_Errhandler_free(MPI_Errhandler *h) {
  if (!handler_valid(*h))
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler %d", *h);
  /* A communicator that uses it keeps calling it (MPI frees it with the last user);
   * the slot is not reused, so nothing dangles. */
  *h = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

static int set_handler(MPI_Comm comm, MPI_Errhandler h, const char *fn) {
  mpi_comm *c;
  const int err = check_comm(comm, fn, &c);
  if (err) return err;
  if (!handler_valid(h)) return mpi_error(comm, MPI_ERR_ARG, fn, "unknown error handler %d", h);
  c->errhandler = h;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler h) {
  return set_handler(comm, h, "MPI_Comm_set_errhandler");
}
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler h) {
  return set_handler(comm, h, "MPI_Errhandler_set");
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *h) {
  mpi_comm *c;
  const int err = check_comm(comm, "MPI_Comm_get_errhandler", &c);
  if (err) return err;
  *h = c->errhandler;
  return MPI_SUCCESS;
}
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *h) {
  return MPI_Comm_get_errhandler(comm, h);
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int code) {
  return mpi_error(comm, code, "MPI_Comm_call_errhandler", "error code %d", code);
}
