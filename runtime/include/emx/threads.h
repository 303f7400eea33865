/* Threads of the EM-C-like layer: contexts and suspension, yield, frames (operand
 * segments), special handlers, remote thread invocation, synchronisation counters.
 *
 * A *blocking* call (remote read, I-structure read, yield, barrier...) ends the hardware
 * thread and resumes the C code later through a continuation: the code before the call
 * and the code after it are two threads (strongly connected blocks), as EM-C compiled
 * them. How (docs/runtime.md, "Suspension"):
 *  - the call is an inline-asm `jal __emx_wait` that declares every register but sp, gp,
 *    tp and s0 clobbered, so GCC itself keeps only the *live* values, in the stack frame
 *    (EM-C's "save only live variables");
 *  - __emx_wait saves sp, ra, tp and s0 (the frame pointer when a function has one) in
 *    a *context*: a frame whose template sends every slot to __emx_resume. The request
 *    sent just before names the context's slot as its continuation;
 *  - the reply starts __emx_resume with tp = the context: it reloads sp, ra, tp, s0 and
 *    returns into the C code with the reply in a0 (a1, a2 as the packet brought them);
 *  - a suspended computation keeps its C stack: if it ran on the shared thread stack
 *    (CSR emx.thread_stack), that stack becomes its own and new threads get a fresh one
 *    from a pool ("stack stealing"); the stack returns to the pool when the computation
 *    ends (its outermost function returns to __emx_thread_end).
 * The main thread is a computation like any other, on the loader's stack.
 *
 * Blocking calls are inline functions so that the suspension is compiled into the
 * caller: a function containing one saves all callee-saved registers in its prologue
 * (once per call of the function, not per suspension). Threads are atomic, so runtime
 * data structures need no locks; a handler must not block while it holds a structure in
 * an inconsistent state. */
#ifndef EMX_THREADS_H
#define EMX_THREADS_H

#include "emx.h"
#include "gptr.h"

/* ---- Contexts --------------------------------------------------------------------- */

/* A context is a frame (pe.threads.frame_words words, at least 8, aligned to its size).
 * context.S uses these offsets (src/context_layout.h): keep them in step. */
typedef struct emx_ctx {
  const void *tmpl;     /* 0: template: slots 1 and 2 start __emx_resume */
  uint32_t slot;        /* 1: the continuation slot; a join's matching slot */
  uint32_t id;          /* 2: second continuation slot (inv1 only); holds the id */
  uint32_t sp;          /* 3: saved sp; 0: not waiting yet; 1: the reply came early */
  uint32_t ra;          /* 4: saved ra | early reply a0 | free-list link */
  uint32_t tp;          /* 5: saved tp | early reply a1 */
  uint32_t s0;          /* 6: saved s0 | early reply a2 */
  emx_gaddr_t cont;     /* 7: global address of slot 1, computed once */
} emx_ctx_t;

/* What a resumed computation receives: the two data words of the packet (a0 = the
 * value of a 1-input reply, or the left operand of a join; a1 = the right operand) and
 * the continuation the reply was sent to (slot 1 or slot 2). */
typedef struct {
  uint32_t a0, a1;
  emx_gaddr_t cont;
} emx_reply_t;

extern emx_ctx_t *__emx_ctx_pool;
emx_ctx_t *__emx_ctx_refill(void);
emx_reply_t __emx_ctx_take_early(emx_ctx_t *c);
/* Resumes c from a running thread, as if its reply had arrived (does not return: the
 * current thread becomes the resumed computation). */
void __emx_resume_direct(emx_ctx_t *c, uint32_t a0, uint32_t a1, emx_gaddr_t cont)
    __attribute__((noreturn));

/* A fresh context (from a free list: a few instructions). */
static inline emx_ctx_t *__emx_ctx_get(void) {
  emx_ctx_t *c = __emx_ctx_pool;
  if (__builtin_expect(c == 0, 0)) return __emx_ctx_refill();
  __emx_ctx_pool = (emx_ctx_t *)(uintptr_t)c->ra;
  return c;
}

/* Every register the computation may find changed after a suspension: other threads
 * run meanwhile. Not sp, gp, tp, s0: the stub keeps them (s0 because GCC cannot give it
 * to an asm in a function that needs a frame pointer). */
#define EMX__SUSPEND_CLOBBERS                                                          \
  "ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a3", "a4", "a5", "a6", "a7", "s1",  \
      "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "ft0", "ft1",      \
      "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9", "ft10", "ft11", "fa0",   \
      "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs0", "fs1", "fs2", "fs3",     \
      "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "memory"

/* Ends the hardware thread; returns when a packet arrives at one of c's slots. The
 * request naming c must be sent before (in this same thread: it cannot be answered
 * before the thread ends). c goes back to the free list on resumption. */
static inline emx_reply_t __emx_suspend(emx_ctx_t *c) {
  register uint32_t a0 __asm__("a0") = (uint32_t)(uintptr_t)c;
  register uint32_t a1 __asm__("a1");
  register uint32_t a2 __asm__("a2");
  __asm__ volatile("jal __emx_wait" : "+r"(a0), "=r"(a1), "=r"(a2) : : EMX__SUSPEND_CLOBBERS);
  return (emx_reply_t){a0, a1, a2};
}

/* The lean suspension of a wait that owns a frame for its whole activation, as an EM-C
 * function's thread owned its operand segment: no context from the free list, no
 * early-reply check (the request is sent in this same thread). __emx_wait_frame saves
 * sp, ra, tp, s0 in f, makes a shared stack its own as __emx_wait does, and ends; the
 * reply starts __emx_resume_frame (f's template), which reloads the four and returns.
 * The live values are GCC's, in the stack frame, as with __emx_suspend. One wait per
 * frame at a time. */
void __emx_resume_frame(uint32_t, uint32_t, uint32_t); /* a lean frame's template slot */
static inline uint32_t __emx_suspend_frame(void *f) {
  register uint32_t a0 __asm__("a0") = (uint32_t)(uintptr_t)f;
  __asm__ volatile("jal __emx_wait_frame" : "+r"(a0) : : "a1", "a2", EMX__SUSPEND_CLOBBERS);
  return a0;
}

/* Sends one packet whose data word is a fresh context's continuation, and waits for the
 * reply: the shape of remote read, I-structure read, remote requests. TYPE constant. */
#define EMX__REQUEST(type, addr)                                  \
  (__extension__({                                                \
    emx_ctx_t *c_ = __emx_ctx_get();                              \
    emx_send((type), (addr), c_->cont);                           \
    __emx_suspend(c_);                                            \
  }))

/* The same with a special-handler request: the handler gets the continuation as its
 * data word. */
#define EMX__REQUEST_SPECIAL(pe, index, arg16) \
  EMX__REQUEST(EMX_PKT_special, emx_special_addr((pe), (index), (arg16)))

/* Explicit contexts, for replies that are set up before the wait: hand out
 * emx_ctx_cont(c) (reply with inv1, or with inv2l and inv2r to join two values in the
 * context's matching slot), then emx_ctx_wait(c). A reply that arrives before the wait
 * is kept; the wait then returns at once. A context serves one wait, then is freed. */
static inline emx_ctx_t *emx_ctx_new(void) { return __emx_ctx_get(); }
static inline emx_gaddr_t emx_ctx_cont(const emx_ctx_t *c) { return c->cont; }
/* Slot 2: a second continuation of the same context (1-input replies only), so that a
 * reply can say which of two outcomes happened (emx_reply_alt). */
static inline emx_gaddr_t emx_ctx_cont_alt(const emx_ctx_t *c) { return c->cont + 1; }
static inline emx_reply_t emx_ctx_wait(emx_ctx_t *c) {
  if (c->sp == 1) return __emx_ctx_take_early(c);
  return __emx_suspend(c);
}
/* Did the reply come to slot 2? */
static inline int emx_reply_alt(emx_reply_t r) { return (r.cont & 3) == 2; }

/* Let every thread that is ready now run, then continue: a 1-input packet to our own
 * continuation goes to the back of the ready queue. */
static inline void emx_yield(void) {
  emx_ctx_t *c = __emx_ctx_get();
  emx_send(EMX_PKT_invoke1, c->cont, 0);
  (void)__emx_suspend(c);
}

/* Idle this computation for `clocks` clocks without running anything: the PE's timer
 * (CSRs emx.timer_cont, emx.timer_arm; docs/pe.md) sends a 1-input packet to a context's
 * continuation `clocks` clocks after it is armed, and the computation waits for it as
 * for any reply. Other threads run meanwhile. The call returns `clocks` plus a fixed
 * suspension cost after it was entered (rt_delay measures it), if nothing else holds the
 * execution unit when the timer fires. */
static inline void emx_delay(uint32_t clocks) {
  emx_ctx_t *c = __emx_ctx_get();
  __asm__ volatile("csrw 0x802, %0" ::"r"(c->cont) : "memory");
  __asm__ volatile("csrw 0x803, %0" ::"r"(clocks) : "memory");
  (void)__emx_suspend(c);
}

/* ---- Stacks ------------------------------------------------------------------------ */

/* Bytes of each thread stack the pool makes (default 8 KiB; set before the stacks are
 * needed, e.g. first thing in main: stacks made earlier keep their size). A computation
 * that blocks keeps its stack until it ends. */
extern uint32_t emx_stack_bytes;
/* Bytes below each such stack tagged as its guard: a store there faults as a stack
 * overflow. 0 (none) unless the program defines it, e.g.
 *   uint32_t emx_stack_guard_bytes = 256;
 * at file scope (the stacks made before main need it at link time). */
extern uint32_t emx_stack_guard_bytes;
/* Stacks made so far, and how many are in the pool now (for tests and statistics). */
unsigned emx_stacks_made(void);
unsigned emx_stacks_free(void);
unsigned emx_contexts_made(void);

/* ---- Frames (operand segments) ------------------------------------------------------ */

/* A frame of emx_frame_words() words aligned to its size, word 0 = tmpl (a table of
 * entry points indexed by slot), from a free list. Free it when no operand waits in
 * its slots (a half-matched slot would keep its tag). */
extern uint32_t *__emx_frame_pool; /* free frames, linked through word 0 */
void *__emx_frame_refill(const void *tmpl); /* carves a batch: the pool was empty */
/* Inline, so that a handler that takes or gives back a frame calls nothing (a function
 * that calls saves registers). */
static inline void *emx_frame_alloc(const void *tmpl) {
  uint32_t *f = __emx_frame_pool;
  if (__builtin_expect(f == 0, 0)) return __emx_frame_refill(tmpl);
  __emx_frame_pool = (uint32_t *)(uintptr_t)f[0];
  f[0] = (uint32_t)(uintptr_t)tmpl;
  return f;
}
static inline void emx_frame_free(void *frame) {
  uint32_t *f = (uint32_t *)frame;
  f[0] = (uint32_t)(uintptr_t)__emx_frame_pool;
  __emx_frame_pool = f;
}
static inline unsigned emx_frame_bytes(void) { return emx_frame_words() * 4; }

/* ---- Special handlers: remote thread invocation with two words, no frame ----------- */

/* Registers a C function `void fn(uint32_t data, uint32_t arg16, uint32_t addr)` in the
 * special-handler table (CSR emx.handlers): its entry goes into the section
 * emx_handlers, which the linker gathers into one table (at most 64 entries, the
 * runtime's included). Every PE runs the same program, so an index means the same
 * handler everywhere, from the first instruction on. Use at file scope. */
#define EMX_HANDLER(fn)                                                                  \
  const emx_thread_fn __emx_handler_entry_##fn __attribute__((section("emx_handlers"),   \
                                                              used, aligned(4))) = (fn)
/* To invoke from another file: EMX_HANDLER_DECLARE(fn); */
#define EMX_HANDLER_DECLARE(fn) extern const emx_thread_fn __emx_handler_entry_##fn
extern const emx_thread_fn __emx_handlers_start[];
#define EMX_HANDLER_INDEX(fn) __emx_handler_index(&__emx_handler_entry_##fn)
static inline unsigned __emx_handler_index(const emx_thread_fn *entry) {
  /* Two different objects, as far as C knows: hide the difference from the optimizer,
   * which would fold comparisons of it. */
  uintptr_t e = (uintptr_t)entry;
  __asm__("" : "+r"(e));
  return (unsigned)(e - (uintptr_t)__emx_handlers_start) / 4;
}

/* The address word of a special packet: PE | handler index (6 bits) | 16-bit argument. */
static inline uint32_t emx_special_addr(unsigned pe, unsigned index, unsigned arg16) {
  return ((uint32_t)pe << EMX_GADDR_PE_SHIFT) | ((index & 0x3fu) << 16) | (arg16 & 0xffffu);
}
/* Starts handler `index` on PE pe with a0 = data, a1 = arg16 (one packet). */
static inline void emx_invoke(unsigned pe, unsigned index, unsigned arg16, uint32_t data) {
  emx_send(EMX_PKT_special, emx_special_addr(pe, index, arg16), data);
}
#define EMX_INVOKE(pe, fn, arg16, data) emx_invoke((pe), EMX_HANDLER_INDEX(fn), (arg16), (data))

/* ---- Remote thread invocation with a frame ----------------------------------------- */

/* A function started in a frame on some PE: args are the frame's words 2.. as written
 * by the invoker; the frame is freed when fn returns (fn may block). */
typedef void (*emx_frame_fn)(uint32_t *args);
static inline unsigned emx_spawn_max_args(void) { return emx_frame_words() - 2; }

void *__emx_spawn_frame_local(void);
void __emx_spawn_args(emx_gaddr_t frame, emx_frame_fn fn, const uint32_t *args, unsigned n);
void __emx_h_frame_alloc(uint32_t cont, uint32_t arg16, uint32_t addr);
EMX_HANDLER_DECLARE(__emx_h_frame_alloc);

/* EM-X's protocol: request an operand segment on PE pe (a round trip to a runtime
 * handler there, blocking), write the arguments into it by remote writes, then invoke.
 * The steps are separate so that a frame can be requested ahead of time. */
static inline emx_gaddr_t emx_frame_alloc_on(unsigned pe) {
  if (pe == emx_pe_id()) return emx_gaddr_mine(__emx_spawn_frame_local());
  return EMX__REQUEST_SPECIAL(pe, EMX_HANDLER_INDEX(__emx_h_frame_alloc), 0).a0;
}
static inline void emx_spawn_in(emx_gaddr_t frame, emx_frame_fn fn, const uint32_t *args,
                                unsigned n) {
  __emx_spawn_args(frame, fn, args, n);
}
static inline void emx_spawn(unsigned pe, emx_frame_fn fn, const uint32_t *args, unsigned n) {
  emx_spawn_in(emx_frame_alloc_on(pe), fn, args, n);
}

/* ---- Synchronisation counters ------------------------------------------------------ */

/* Counts events to wait for (replies, children, remote signals); one waiter. */
typedef struct {
  int32_t count;
  emx_ctx_t *waiter;
} emx_sync_t;

static inline void emx_sync_init(emx_sync_t *s, int32_t count) {
  s->count = count;
  s->waiter = 0;
}
static inline void emx_sync_add(emx_sync_t *s, int32_t n) { s->count += n; }
/* One event happened (on this PE). */
void emx_sync_done(emx_sync_t *s);
/* One event happened, told from any PE: s is the global address of the counter. */
void emx_sync_signal(emx_gaddr_t s);
/* Blocks until the count reaches 0. */
static inline void emx_sync_wait(emx_sync_t *s) {
  if (s->count <= 0) return;
  emx_ctx_t *c = __emx_ctx_get();
  s->waiter = c;
  (void)__emx_suspend(c);
}

#endif
