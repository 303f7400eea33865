/* Contexts, thread stacks and the start-up of the EM-C-like layer (emx/threads.h;
 * the suspension itself is context.S). */
#include <emx/collective.h>
#include <emx/threads.h>
#include <stdio.h>
#include <stdlib.h>

#include "context_layout.h"
#include "layer_internal.h"

_Static_assert(__builtin_offsetof(emx_ctx_t, slot) == CTX_SLOT, "context.S layout");
_Static_assert(__builtin_offsetof(emx_ctx_t, sp) == CTX_SP, "context.S layout");
_Static_assert(__builtin_offsetof(emx_ctx_t, ra) == CTX_RA, "context.S layout");
_Static_assert(__builtin_offsetof(emx_ctx_t, tp) == CTX_TP, "context.S layout");
_Static_assert(__builtin_offsetof(emx_ctx_t, s0) == CTX_S0, "context.S layout");
_Static_assert(__builtin_offsetof(emx_ctx_t, cont) == CTX_CONT, "context.S layout");
_Static_assert(sizeof(emx_ctx_t) == 32, "a context fits the smallest frame (8 words)");

void __emx_resume(uint32_t, uint32_t, uint32_t);
/* Slots 1 and 2 of every context resume it. */
static const emx_thread_fn ctx_template[3] = {0, __emx_resume, __emx_resume};

emx_ctx_t *__emx_ctx_pool;
void *__emx_stack_pool; /* tops of free stacks, linked through STACK_NEXT */
uint32_t emx_stack_bytes = 8 * 1024;

static emx_ctx_t **ctx_by_id; /* for wake-ups by a 16-bit id (special packets) */
static unsigned ctx_count, stack_count;

emx_ctx_t *__emx_ctx_refill(void) {
  const unsigned n = __emx_frames_per_batch();
  if (ctx_count + n > EMX_CTX_ID_LIMIT) __emx_fatal("more than 65535 contexts on one PE");
  emx_ctx_t **table = realloc(ctx_by_id, (ctx_count + n + 1) * sizeof *table);
  if (!table) __emx_fatal("no memory for contexts");
  ctx_by_id = table;
  char *frames = __emx_frames_carve(n);
  for (unsigned k = 0; k < n; ++k) {
    emx_ctx_t *c = (emx_ctx_t *)(frames + k * __emx_frame_bytes);
    c->tmpl = ctx_template;
    c->id = ++ctx_count; /* ids from 1: 0 means "none" */
    c->sp = 0;
    c->cont = emx_gaddr_mine(&c->slot);
    ctx_by_id[c->id] = c;
    if (k) {
      c->ra = (uint32_t)(uintptr_t)__emx_ctx_pool;
      __emx_ctx_pool = c;
    }
  }
  return (emx_ctx_t *)frames;
}

emx_ctx_t *__emx_ctx_by_id(unsigned id) {
  if (id == 0 || id > ctx_count) __emx_fatal("wake-up for an unknown context");
  return ctx_by_id[id];
}

static void ctx_free(emx_ctx_t *c) {
  c->sp = 0;
  c->ra = (uint32_t)(uintptr_t)__emx_ctx_pool;
  __emx_ctx_pool = c;
}

emx_reply_t __emx_ctx_take_early(emx_ctx_t *c) {
  emx_reply_t r = {c->ra, c->tp, c->s0};
  ctx_free(c);
  return r;
}

/* A new thread stack: returns its top (16-byte aligned, as the ABI wants sp), with the
 * two header words above it. Called by __emx_wait when the pool is empty. With a guard,
 * the words below the stack are tagged: a store there (deep recursion) faults at once as
 * a stack overflow instead of overwriting the heap below. A frame larger than the guard
 * could step over it; 256 bytes cover the frames of ordinary code. Off unless the
 * program defines the variable (tagging costs clocks: docs/reliability.md). */
__attribute__((weak)) uint32_t emx_stack_guard_bytes = 0;
void *__emx_stack_new(void) {
  const uint32_t size = (emx_stack_bytes + 15) & ~15u;
  const uint32_t guard = (emx_stack_guard_bytes + 3) & ~3u;
  char *base = malloc(guard + size + 16 + 8);
  if (!base) __emx_fatal("no memory for a thread stack (emx_stack_bytes)");
  uint32_t *low = (uint32_t *)(((uintptr_t)base + 3) & ~(uintptr_t)3);
  for (uint32_t *w = low; w < low + guard / 4; ++w) emx_wtag(w, EMX_TAG_STACK_GUARD);
  char *bottom = (char *)(low + guard / 4);
  uint32_t *top = (uint32_t *)(((uintptr_t)bottom + size + 15) & ~(uintptr_t)15);
  top[STACK_NEXT / 4] = 0;
  top[STACK_SIZE / 4] = (uint32_t)((char *)top - bottom);
  ++stack_count;
  return top;
}

unsigned emx_stacks_made(void) { return stack_count; }
unsigned emx_contexts_made(void) { return ctx_count; }
unsigned emx_stacks_free(void) {
  unsigned n = 0;
  for (uint32_t *s = __emx_stack_pool; s; s = (uint32_t *)(uintptr_t)s[STACK_NEXT / 4]) ++n;
  return n;
}

/* Called by crt0 before main when the program uses the layer (a weak reference). Main
 * keeps the loader's stack; every other thread starts on a pool stack. */
extern const emx_thread_fn __emx_handlers_end[];
void __emx_rt_init(void) {
  __emx_frames_init();
  if (__emx_handlers_end - __emx_handlers_start > 64)
    __emx_fatal("more than 64 special handlers (EMX_HANDLER)");
  emx_set_handler_table(__emx_handlers_start);
  emx_set_thread_stack(__emx_stack_new());
  __emx_collective_init();
}

void __emx_fatal(const char *why) {
  printf("emx runtime, PE %u: %s\n", emx_pe_id(), why);
  abort();
}
