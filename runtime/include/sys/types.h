/* sys/types.h for the simulated EM-X. */
#ifndef EMX_SYS_TYPES_H
#define EMX_SYS_TYPES_H

#include <stddef.h>

typedef long ssize_t;
typedef long off_t;
typedef unsigned mode_t;
typedef int pid_t;

#endif
