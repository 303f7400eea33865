/* MPI_Init and the rest of the environment: the variant options, time, attributes. */
#include <stdio.h>
#include <string.h>

#include "mpi_internal.h"

enum mpi_matching mpi_matching = MATCH_BOTH;
enum mpi_protocol mpi_protocol = PROTO_GET;
int mpi_initialized, mpi_finalized;
uint32_t mpi_counters[C_COUNTERS];
static int report_stats;

/* -mpi-matching=both|receiver, -mpi-protocol=buffered|get|sync: every PE gets the same
 * arguments, so every rank picks the same variant. 0 if `arg` is not an MPI option. */
static int parse_option(const char *arg, int *bad) {
  if (strcmp(arg, "-mpi-stats") == 0) return report_stats = 1;
  if (mpi_parse_option(arg, bad)) return 1;
  static const char *const matchings[] = {"both", "receiver"};
  static const char *const protocols[] = {"buffered", "get", "sync"};
  const char *v;
  if (strncmp(arg, "-mpi-matching=", 14) == 0) {
    v = arg + 14;
    for (int k = 0; k < 2; ++k)
      if (strcmp(v, matchings[k]) == 0) return mpi_matching = (enum mpi_matching)k, 1;
  } else if (strncmp(arg, "-mpi-protocol=", 14) == 0) {
    v = arg + 14;
    for (int k = 0; k < 3; ++k)
      if (strcmp(v, protocols[k]) == 0) return mpi_protocol = (enum mpi_protocol)k, 1;
  } else {
    return 0;
  }
  *bad = 1;
  if (emx_pe_id() == 0)
    printf("MPI_Init: unknown option %s (use -mpi-matching=both|receiver, "
           "-mpi-protocol=buffered|get|sync)\n",
           arg);
  return 1;
}

/* Removes the MPI options from argc/argv (the program sees only its own arguments). */
static void consume_options(int *argc, char ***argv) {
  if (!argc || !argv || !*argv) return;
  char **a = *argv;
  int out = 0, bad = 0;
  for (int k = 0; k < *argc; ++k)
    if (k == 0 || !a[k] || !parse_option(a[k], &bad)) a[out++] = a[k];
  a[out] = 0;
  *argc = out;
  if (bad) emx_exit(MPI_ERR_ARG);
}

int MPI_Init(int *argc, char ***argv) {
  if (mpi_initialized)
    return mpi_error(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Init", "called twice");
  consume_options(argc, argv);
  records_init();
  transfer_init();
  matching_init();
  credits_init();
  comm_init();
  mpi_initialized = 1;
  /* No protocol message may reach a PE before its tables exist: a barrier. */
  rreq_pairs_agree();
  return MPI_SUCCESS;
}

/* Every level up to MPI_THREAD_MULTIPLE: several computations of a rank may call MPI at
 * once. They share the rank's one endpoint, and the library's critical sections need no
 * lock: each runs inside one thread, which nothing interrupts, and a call blocks only
 * where the structures are consistent (docs/mpi.md, "Threads, atomicity, blocking"). */
static int thread_level = MPI_THREAD_SINGLE;

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
              : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
  thread_level = *provided;
  return MPI_Init(argc, argv);
}

int MPI_Query_thread(int *provided) {
  *provided = thread_level;
  return MPI_SUCCESS;
}

/* The computation that called MPI_Init is main's: the one with the rank's first stack. */
int MPI_Is_thread_main(int *flag) {
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen) {
  *resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                        "MPI-EMX (MPI %d.%d subset) for the simulated EM-X", MPI_VERSION,
                        MPI_SUBVERSION);
  return MPI_SUCCESS;
}

/* Result records must have literal names, in the order of enum mpi_counter, then the
 * cells (requests, records, keys) still in use: after the barrier every message is
 * complete, and once the removals still queued here have run, nothing should be left. */
static void emit_stats(void) {
  static const char *const names[C_COUNTERS + 1] = {
      "mpi_one_sided",  "mpi_send_requests", "mpi_recv_requests", "mpi_held",
      "mpi_concurrent", "mpi_unexpected",    "mpi_removals",      "mpi_fetched_words",
      "mpi_credit_waits", "mpi_credits_minted", "mpi_rreq_credit_waits", "mpi_rreq_credits_granted", "mpi_cells_in_use"};
  uint32_t mine[C_COUNTERS + 1], total[C_COUNTERS + 1];
  emx_yield();
  for (int k = 0; k < C_COUNTERS; ++k) mine[k] = mpi_counters[k];
  kq_sweep(&mpi_assoc); /* idle keys are not in use */
  kq_sweep(&mpi_isq_send);
  kq_sweep(&mpi_isq_recv);
  mine[C_COUNTERS] = pool_cells_in_use();
  MPI_Reduce(mine, total, C_COUNTERS + 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
  if (emx_pe_id() == 0)
    for (int k = 0; k <= C_COUNTERS; ++k) emx_result_int(names[k], total[k]);
}

int MPI_Finalize(void) {
  MPI_REQUIRE_INIT("MPI_Finalize");
  /* Every rank stays until all have finished communicating: a late protocol message
   * (a removal, a remote read) must still find its handler's tables. */
  emx_barrier();
  if (report_stats) {
    emit_stats();
    emx_barrier();
  }
  mpi_finalized = 1;
  mpi_comm_count = 0; /* every call now takes the checks, which report "after MPI_Finalize" */
  return MPI_SUCCESS;
}

int MPI_Initialized(int *flag) {
  *flag = mpi_initialized;
  return MPI_SUCCESS;
}

int MPI_Finalized(int *flag) {
  *flag = mpi_finalized;
  return MPI_SUCCESS;
}

/* Simulated time of this PE (its clock counter). */
double MPI_Wtime(void) { return (double)emx_cycles() / (emx_clock_khz() * 1000.0); }
double MPI_Wtick(void) { return 1.0 / (emx_clock_khz() * 1000.0); }

int MPI_Get_processor_name(char *name, int *resultlen) {
  *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "emx-pe%u", emx_pe_id());
  return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}
