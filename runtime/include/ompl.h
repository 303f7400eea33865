/* OMPL on the simulated EM-X (after "A lightweight inter-node communication layer
 * supporting a multitask PGAS model"; docs/ompl.md).
 *
 * Many tasks per PE (computations of the EM-C-like layer: emx_spawn, or handler threads
 * that block) communicate task to task through addresses that are the same on every PE
 * (SPMD statics) or that they exchanged: no channels, no tags, no matching.
 *
 * A *flag* is a word of the receiving PE that counts signals: ompl_put_word adds one,
 * ompl_wait takes one (blocking the task while there is none: the task ends its thread
 * and the signal's handler thread continues it; nothing polls), ompl_poll takes one if
 * there is one. A flag is seen only after the data of every ompl_put issued before its
 * ompl_put_word by the same PE (hence the same task): the signal is a handler thread on
 * the flag's PE, queued behind the data's remote writes and byte-handler threads on the
 * same in-order path; puts to other PEs since their last fence are fenced first. Read a
 * flag only through these calls (a waiting task's continuation is kept in it). */
#ifndef OMPL_H
#define OMPL_H

#include <emx/threads.h>
#include <stddef.h>
#include <stdint.h>

int ompl_init(void);      /* collective */
void ompl_finalize(void); /* collective: every put has landed */
static inline int ompl_rank(void) { return (int)emx_pe_id(); }
static inline int ompl_procs(void) { return (int)emx_pe_count(); }

/* len bytes from local src to dst on target_rank, any alignment. Returns at once (src
 * may be reused; on EM-X' and EM-4 a put above 4 KiB waits for each 4 KiB chunk to land,
 * which keeps the target's input buffer from overflowing); ompl_put_word orders a flag
 * after it. */
void ompl_put(const void *src, int target_rank, void *dst, size_t len);
/* len bytes from src on target_rank to local dst, any alignment; blocks the task (the
 * others run) until the data is here. */
void ompl_get(const void *src, int target_rank, void *dst, size_t len);
/* One signal to the flag at flag_addr on target_rank, after this PE's earlier puts. */
void ompl_put_word(int target_rank, uint32_t *flag_addr);

#define OMPL_TAG_WAITER 0x10u /* memory tag: the flag holds a waiting task's context */
void __ompl_wait_error(volatile uint32_t *flag) __attribute__((noreturn));

/* Takes one signal of the local flag, blocking the task until there is one. One task may
 * wait on a flag at a time. Inline: the suspension is compiled into the task. */
static inline void ompl_wait(uint32_t *flag_addr) {
  volatile uint32_t *f = flag_addr;
  if (emx_rtag(f) & OMPL_TAG_WAITER) __ompl_wait_error(f);
  if (*f) {
    --*f;
    return;
  }
  emx_ctx_t *c = __emx_ctx_get();
  *f = (uint32_t)(uintptr_t)c;
  emx_wtag(f, OMPL_TAG_WAITER);
  (void)__emx_suspend(c); /* the signal's handler thread continues here */
}

/* Takes one signal if there is one (returns 1); else lets the other ready threads run
 * once (so that a polling loop lets signals in) and returns 0. */
int ompl_poll(uint32_t *flag_addr);

#endif
