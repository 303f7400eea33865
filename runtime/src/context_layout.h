/* Byte offsets shared by context.S and the C runtime (struct emx_ctx in emx/threads.h,
 * checked by _Static_assert in context.c), and the header of a pool stack. */
#ifndef EMX_CONTEXT_LAYOUT_H
#define EMX_CONTEXT_LAYOUT_H

#define CTX_SLOT 4
#define CTX_SP 12   /* 0: nobody waits yet; 1: the reply came early */
#define CTX_RA 16   /* also the early reply's a0, and the free-list link */
#define CTX_TP 20   /* also the early reply's a1 */
#define CTX_S0 24   /* also the early reply's a2 */
#define CTX_CONT 28

/* A pool stack grows down from its top; two words above the top describe it. */
#define STACK_NEXT 0 /* free-list link while in the pool */
#define STACK_SIZE 4 /* usable bytes below the top */
/* The tag bit of a stack's guard words: a store to such a word faults as a stack
 * overflow (the simulator's kTagGuard, sim/iss/hart.h). */
#define EMX_TAG_STACK_GUARD 0x20

#endif
