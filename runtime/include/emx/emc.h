/* The EM-C-like programming layer in one include: global pointers, threads and
 * suspension, remote memory access, I- and Q-structures, collectives.
 * docs/runtime.md, "The EM-C-like layer". */
#ifndef EMX_EMC_H
#define EMX_EMC_H

#include "collective.h"
#include "gptr.h"
#include "istructure.h"
#include "queue.h"
#include "remote.h"
#include "threads.h"

#endif
