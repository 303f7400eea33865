/* Offsets shared by butterfly.S and the C runtime (emx/butterfly.h's __emx_bfly_step,
 * checked by _Static_assert in collective.c). */
#ifndef EMX_BUTTERFLY_LAYOUT_H
#define EMX_BUTTERFLY_LAYOUT_H

#include "context_layout.h"

/* A step of the plan (__emx_bfly_step). */
#define BFLY_TO 0      /* the first target's element; 0: after the last step */
#define BFLY_EXTRA 4   /* targets beyond the first (-1: none) */
#define BFLY_ELEM 8    /* this PE's element (local address) */
#define BFLY_SELF 12   /* its global address */
#define BFLY_LOWER 16  /* all ones if the partner block comes first, else 0 */
#define BFLY_STRIDE 20 /* global-address step to the next target */
#define BFLY_BYTES 24
#define BFLY_MAX_STEPS 10 /* EMX__BFLY_MAX_STEPS */
#define BFLY_SET_BYTES ((BFLY_MAX_STEPS + 1) * BFLY_BYTES) /* one set's plan, its end */

/* The collectives' frame (an emx_ctx_t): words 3-6 keep sp, ra, tp and s0 of the waiting
 * computation (context_layout.h); while butterfly.S's steps wait, words 1, 2 and 7 keep
 * their live values (replies are 1-input packets: they write no slot). The replies of
 * its waits come to slots 3 (a sum) and 4 (a sum and prefix). */
#define BFLY_F_VALUE 4
#define BFLY_F_LOWER 8
#define BFLY_F_STEP 28
#define BFLY_SLOT_SUM 3
#define BFLY_SLOT_SCAN 4

/* Packet types (isa/packet_types.def): iwr, ird. */
#define BFLY_PKT_IWRITE 6
#define BFLY_PKT_IREAD 7

#endif
