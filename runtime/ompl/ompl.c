/* OMPL (ompl.h): puts, gets and flags over the EM-C-like layer. */
#include <emx/bytes.h>
#include <emx/emc.h>
#include <ompl.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/layer_internal.h"

/* PEs this PE has put to since it last fenced them: a flag to another PE must wait
 * until their data has landed (pes/8 bytes). */
static uint32_t *dirty;
static unsigned ndirty;

int ompl_init(void) {
  dirty = calloc((emx_pe_count() + 31) / 32, sizeof *dirty);
  if (!dirty) __emx_fatal("ompl_init: no memory");
  emx_barrier();
  return 0;
}

static void check_rank(const char *fn, int rank) {
  if (rank < 0 || (unsigned)rank >= emx_pe_count()) {
    printf("ompl error on rank %u in %s: rank %d does not exist (%u ranks)\n", emx_pe_id(), fn,
           rank, emx_pe_count());
    abort();
  }
}

void ompl_put(const void *src, int target_rank, void *dst, size_t len) {
  check_rank("ompl_put", target_rank);
  emx_put_bytes_paced((unsigned)target_rank, dst, src, len);
  const unsigned pe = (unsigned)target_rank;
  if (pe != emx_pe_id() && !(dirty[pe / 32] & 1u << pe % 32)) {
    dirty[pe / 32] |= 1u << pe % 32;
    ++ndirty;
  }
}

void ompl_get(const void *src, int target_rank, void *dst, size_t len) {
  check_rank("ompl_get", target_rank);
  emx_get_bytes(dst, (unsigned)target_rank, src, len);
}

/* Fences every dirty PE but `except` (whose data the flag's own path orders). A put
 * issued while we wait marks its PE again, for the next flag. */
static void fence_others(unsigned except) {
  const unsigned words = (emx_pe_count() + 31) / 32;
  for (unsigned w = 0; w < words; ++w) {
    uint32_t bits = dirty[w] & ~(except / 32 == w ? 1u << except % 32 : 0);
    dirty[w] &= ~bits;
    for (; bits; bits &= bits - 1) {
      --ndirty;
      emx_fence_bytes(32 * w + (unsigned)__builtin_ctz(bits));
    }
  }
}

/* On the flag's PE, in one thread: wake the waiting task (it continues in this very
 * thread) or count the signal. */
static void signal_here(volatile uint32_t *f, int direct) {
  if (emx_rtag(f) & OMPL_TAG_WAITER) {
    emx_ctx_t *c = (emx_ctx_t *)(uintptr_t)*f;
    *f = 0;
    emx_wtag(f, 0);
    if (direct) __emx_resume_direct(c, 0, 0, c->cont);
    emx_send(EMX_PKT_invoke1, c->cont, 0);
  } else {
    ++*f;
  }
}

static void ompl_h_signal(uint32_t flag, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  signal_here((volatile uint32_t *)(uintptr_t)flag, 1);
}
EMX_HANDLER(ompl_h_signal);

void ompl_put_word(int target_rank, uint32_t *flag_addr) {
  check_rank("ompl_put_word", target_rank);
  const unsigned pe = (unsigned)target_rank;
  if (ndirty > (pe != emx_pe_id() && (dirty[pe / 32] & 1u << pe % 32) ? 1u : 0u))
    fence_others(pe);
  if (pe == emx_pe_id()) signal_here(flag_addr, 0);
  else EMX_INVOKE(pe, ompl_h_signal, 0, (uint32_t)(uintptr_t)flag_addr);
}

int ompl_poll(uint32_t *flag_addr) {
  volatile uint32_t *f = flag_addr;
  if (!(emx_rtag(f) & OMPL_TAG_WAITER) && *f) {
    --*f;
    return 1;
  }
  emx_yield();
  return 0;
}

void __ompl_wait_error(volatile uint32_t *flag) {
  printf("ompl error on rank %u in ompl_wait: another task already waits on the flag at %p\n",
         emx_pe_id(), (void *)flag);
  abort();
}

void ompl_finalize(void) {
  fence_others(emx_pe_id());
  emx_barrier();
}
