/* -mpi-option=NAME[,NAME...] (repeatable): the library's shortcuts and older mechanisms,
 * each switched on by name over the paper's mechanisms (the default). One table: name,
 * the flag it sets, what it changes (docs/experiments/mpi.md, "Options", has the measured
 * effect of each). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mpi_internal.h"

mpi_options mpi_opt;

static const struct {
  const char *name;
  size_t flag; /* offset in mpi_options */
} options[] = {
    {"rreq-pairs", offsetof(mpi_options, rreq_pairs)},
    {"sreq-inline", offsetof(mpi_options, sreq_inline)},
    {"staged-records", offsetof(mpi_options, staged_records)},
    {"done-sized", offsetof(mpi_options, done_sized)},
    {"fetch-per-word", offsetof(mpi_options, fetch_per_word)},
    {"local-isend", offsetof(mpi_options, local_isend)},
    {"block-read", offsetof(mpi_options, block_read)},
};
enum { N_OPTIONS = sizeof options / sizeof *options };

static int set_one(const char *name, size_t len) {
  if (len == 3 && strncmp(name, "all", 3) == 0) {
    for (int k = 0; k < N_OPTIONS; ++k) ((uint8_t *)&mpi_opt)[options[k].flag] = 1;
    return 1;
  }
  for (int k = 0; k < N_OPTIONS; ++k)
    if (strlen(options[k].name) == len && strncmp(name, options[k].name, len) == 0) {
      ((uint8_t *)&mpi_opt)[options[k].flag] = 1;
      return 1;
    }
  return 0;
}

int mpi_parse_option(const char *arg, int *bad) {
  if (strncmp(arg, "-mpi-option=", 12) != 0) return 0;
  for (const char *p = arg + 12;;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (!set_one(p, len)) {
      *bad = 1;
      if (emx_pe_id() == 0) {
        printf("MPI_Init: unknown option '%.*s' in %s (known:", (int)len, p, arg);
        for (int k = 0; k < N_OPTIONS; ++k) printf(" %s,", options[k].name);
        printf(" all)\n");
      }
      return 1;
    }
    if (!end) return 1;
    p = end + 1;
  }
}
