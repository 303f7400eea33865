/* Q-structures: FIFO queues with any number of writers and readers on any PEs; a reader
 * of an empty queue waits (blocks) until a value comes. Each queue lives on its owner
 * PE, and every operation on it is a thread there (a special handler, or the caller
 * itself on the owner): threads are atomic, so no locks. Readers waiting on an empty
 * queue are served in the order they came; a writer's values are read in the order it
 * put them. docs/runtime.md. */
#ifndef EMX_QUEUE_H
#define EMX_QUEUE_H

#include "threads.h"

/* A queue handle: owner PE << 16 | queue number on the owner. Pass it around freely. */
typedef uint32_t emx_queue_t;

/* A new empty queue owned by this PE. */
emx_queue_t emx_queue_new(void);
static inline unsigned emx_queue_owner(emx_queue_t q) { return q >> 16; }

/* Appends v (fire and forget when the queue is remote). */
void emx_queue_put(emx_queue_t q, uint32_t v);

struct emx_queue;
struct emx_queue *__emx_queue_local(emx_queue_t q);
int __emx_queue_take(struct emx_queue *q, uint32_t *v);
void __emx_queue_wait(struct emx_queue *q, emx_gaddr_t cont);
void __emx_h_qget(uint32_t cont, uint32_t id, uint32_t addr);
void __emx_h_qtry(uint32_t cont, uint32_t id, uint32_t addr);
EMX_HANDLER_DECLARE(__emx_h_qget);
EMX_HANDLER_DECLARE(__emx_h_qtry);

/* Takes the first value, waiting while the queue is empty. */
static inline uint32_t emx_queue_get(emx_queue_t q) {
  if (emx_queue_owner(q) == emx_pe_id()) {
    struct emx_queue *l = __emx_queue_local(q);
    uint32_t v;
    if (__emx_queue_take(l, &v)) return v;
    emx_ctx_t *c = __emx_ctx_get();
    __emx_queue_wait(l, c->cont);
    return __emx_suspend(c).a0;
  }
  return EMX__REQUEST_SPECIAL(emx_queue_owner(q), EMX_HANDLER_INDEX(__emx_h_qget), q).a0;
}

/* Takes the first value if there is one (returns 1), else returns 0 (one round trip
 * when the queue is remote). */
static inline int emx_queue_try_get(emx_queue_t q, uint32_t *v) {
  if (emx_queue_owner(q) == emx_pe_id()) return __emx_queue_take(__emx_queue_local(q), v);
  const emx_reply_t r =
      EMX__REQUEST_SPECIAL(emx_queue_owner(q), EMX_HANDLER_INDEX(__emx_h_qtry), q);
  *v = r.a0;
  return !emx_reply_alt(r);
}

/* Values in the queue now, minus readers waiting (owner only). */
int emx_queue_length(emx_queue_t q);

#endif
