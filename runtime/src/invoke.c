/* Remote thread invocation with a frame, synchronisation counters, and the runtime's
 * special handlers that wake contexts (emx/threads.h). */
#include <emx/remote.h>

#include "layer_internal.h"

/* ---- Invocation with a frame ---- */

/* Slot 1 of a spawn frame starts the function whose address the invocation carries:
 * every PE runs the same program, so a code address means the same on all of them. */
static void spawn_start(uint32_t fn, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  uint32_t *frame = emx_frame();
  emx_libc_tls(); /* the function is a computation like main: errno & co. through tp */
  ((emx_frame_fn)(uintptr_t)fn)(frame + 2);
  emx_frame_free(frame);
}
static const emx_thread_fn spawn_template[2] = {0, spawn_start};

void *__emx_spawn_frame_local(void) { return emx_frame_alloc(spawn_template); }

/* data = the requester's continuation: reply with the new frame's global address. */
void __emx_h_frame_alloc(uint32_t cont, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  emx_send(EMX_PKT_invoke1, cont, emx_gaddr_mine(__emx_spawn_frame_local()));
}
EMX_HANDLER(__emx_h_frame_alloc);

void __emx_spawn_args(emx_gaddr_t frame, emx_frame_fn fn, const uint32_t *args, unsigned n) {
  if (n > emx_spawn_max_args()) __emx_fatal("emx_spawn: more arguments than a frame holds");
  /* The writes and the invocation travel the same path in order, and the memory unit
   * (EM-X) or the handler threads (EM-X', EM-4) take them in order: the arguments are in
   * place when the function starts. */
  emx_put(frame + 2, args, n);
  emx_send(EMX_PKT_invoke1, frame + 1, (uint32_t)(uintptr_t)fn);
}

/* ---- Synchronisation counters ---- */

void emx_sync_done(emx_sync_t *s) {
  if (--s->count == 0 && s->waiter) {
    emx_ctx_t *c = s->waiter;
    s->waiter = 0;
    emx_send(EMX_PKT_invoke1, c->cont, 0); /* the waiter runs after this thread */
  }
}

void __emx_sync_done_tail(emx_sync_t *s) {
  if (--s->count == 0 && s->waiter) {
    emx_ctx_t *c = s->waiter;
    s->waiter = 0;
    __emx_resume_direct(c, 0, 0, c->cont);
  }
}

static void __emx_h_sync(uint32_t counter, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  __emx_sync_done_tail((emx_sync_t *)(uintptr_t)counter);
}
EMX_HANDLER(__emx_h_sync);

void emx_sync_signal(emx_gaddr_t s) {
  if (emx_gaddr_is_local(s)) emx_sync_done(emx_gaddr_local(s));
  else EMX_INVOKE(emx_gaddr_pe(s), __emx_h_sync, 0, (uint32_t)(uintptr_t)emx_gaddr_local(s));
}

/* ---- Waking a context by its id (replies that cannot name a continuation) ---- */

void __emx_h_wake(uint32_t value, uint32_t id, uint32_t addr) {
  (void)addr;
  emx_ctx_t *c = __emx_ctx_by_id(id);
  __emx_resume_direct(c, value, 0, c->cont);
}
EMX_HANDLER(__emx_h_wake);

void __emx_h_wake_alt(uint32_t value, uint32_t id, uint32_t addr) {
  (void)addr;
  emx_ctx_t *c = __emx_ctx_by_id(id);
  __emx_resume_direct(c, value, 0, c->cont + 1);
}
EMX_HANDLER(__emx_h_wake_alt);
