/* The ACP basic layer on the simulated EM-X (after "Evaluation of communication
 * performance and memory usage of the ACP library"; docs/acp.md).
 *
 * One-sided, buffer-free copies between global addresses. Memory is registered locally
 * (nobody else is told); a global address (acp_ga_t) carries what the machine needs: the
 * rank (PE), the local byte address, and the registration: its slot on that rank and
 * its last byte, so a copy past a registration is refused by the rank that starts it.
 * Copies are non-blocking; a handle names one, and `order` makes a copy wait until
 * that copy and every earlier one have completed. Atomics run in a handler thread on
 * the rank that owns the word: a thread is never interrupted, so they are atomic. */
#ifndef ACP_H
#define ACP_H

#include <emx/threads.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t acp_ga_t;      /* PE 10 | slot 6 | last byte 24 | byte address 24 */
typedef uint64_t acp_atkey_t;   /* the registration's slot and PE (0: none) */
typedef int64_t acp_handle_t;   /* copies are numbered from 1 on each rank */

#define ACP_GA_NULL ((acp_ga_t)0)
#define ACP_ATKEY_NULL ((acp_atkey_t)0)
#define ACP_HANDLE_NULL ((acp_handle_t)0)  /* order: none; complete: nothing */
#define ACP_HANDLE_ALL ((acp_handle_t)-1)  /* order / complete: every earlier copy */

int acp_init(int *argc, char ***argv); /* collective; 0 on success */
int acp_finalize(void);                /* collective: completes every copy, then a barrier */
int acp_rank(void);
int acp_procs(void);
int acp_sync(void); /* barrier (it does not complete copies: use acp_complete) */
#define acp_barrier acp_sync

/* Registration: local only. Up to ACP_MAX_REGISTRATIONS at once per rank; `color` is
 * accepted and ignored (EM-X has one kind of memory). */
#define ACP_MAX_REGISTRATIONS 63
acp_atkey_t acp_register_memory(void *addr, size_t size, int color);
int acp_unregister_memory(acp_atkey_t key);
/* The global address of addr, which must lie in key's registration. Adding n to a
 * global address moves n bytes forward (keep it inside the registration). */
acp_ga_t acp_query_ga(acp_atkey_t key, void *addr);
static inline int acp_query_rank(acp_ga_t ga) { return (int)(ga >> 54); }
/* The local address a global address names (on its own rank). */
void *acp_query_address(acp_ga_t ga);

/* Copies size bytes from src to dst; each may be on any rank, the caller's included
 * (remote-to-remote too). Returns the copy's handle. */
acp_handle_t acp_copy(acp_ga_t dst, acp_ga_t src, size_t size, acp_handle_t order);
/* Blocks until copy h and every earlier copy of this rank have completed (the data is
 * in place at dst); ACP_HANDLE_ALL: every copy so far. Inline, as the EM-C-like layer's
 * blocking calls are (emx/threads.h): the suspension is compiled into the caller, whose
 * prologue saves the registers once rather than at every call. */
emx_ctx_t *__acp_wait_begin(acp_handle_t h); /* 0: complete; else the context to wait on */
static inline void acp_complete(acp_handle_t h) {
  emx_ctx_t *c = __acp_wait_begin(h);
  if (c) (void)__emx_suspend(c);
}
/* 0 if copy h and every earlier one have completed, 1 if not (does not block). */
int acp_inquire(acp_handle_t h);

/* Atomics on the word at src (4 or 8 bytes, aligned to 4), performed on src's rank; the
 * old value is written to dst (any rank). Each is a copy with a handle, as in ACP. */
#define ACP__ATOMIC_DECL(op, bits, type)                                                 \
  acp_handle_t acp_##op##bits(acp_ga_t dst, acp_ga_t src, type value, acp_handle_t order);
#define ACP__ATOMICS(X, bits, type) \
  X(add, bits, type) X(swap, bits, type) X(and, bits, type) X(or, bits, type) X(xor, bits, type)
/* acp_add4 acp_swap4 acp_and4 acp_or4 acp_xor4, and the same with 8 and uint64_t */
ACP__ATOMICS(ACP__ATOMIC_DECL, 4, uint32_t)
ACP__ATOMICS(ACP__ATOMIC_DECL, 8, uint64_t)
/* Compare-and-swap: newval is stored if the word equals oldval; dst gets the old value. */
acp_handle_t acp_cas4(acp_ga_t dst, acp_ga_t src, uint32_t oldval, uint32_t newval,
                      acp_handle_t order);
acp_handle_t acp_cas8(acp_ga_t dst, acp_ga_t src, uint64_t oldval, uint64_t newval,
                      acp_handle_t order);

/* Errors. By default an erroneous call prints "acp error on rank R in FUNCTION: why"
 * and stops every rank with exit status ACP_ERROR_EXIT. After acp_errors_return(1) it
 * prints the same and returns ACP_GA_NULL / ACP_ATKEY_NULL / ACP_HANDLE_NULL / -1. */
#define ACP_ERROR_EXIT 14
void acp_errors_return(int on);

/* Heap bytes the layer holds on this rank now (its tables, the copy ring, the event
 * frame), counted by the runtime's allocator at acp_init. */
size_t acp_memory_bytes(void);

#endif
