/* Q-structures (emx/queue.h). A queue is a growable ring of words on its owner. It
 * holds either values (nobody waits) or the continuations of waiting readers (no value
 * is there), never both, so one ring serves both purposes. */
#include <emx/queue.h>
#include <stdlib.h>

#include "layer_internal.h"

struct emx_queue {
  uint32_t *ring;
  uint32_t cap, head, n; /* cap: a power of two */
  int readers;           /* the ring holds waiting readers' continuations */
};

static struct emx_queue **queues; /* by number; 0 is unused */
static unsigned queue_count;

emx_queue_t emx_queue_new(void) {
  if (queue_count + 1 > 0xffff) __emx_fatal("more than 65535 queues on one PE");
  struct emx_queue **table = realloc(queues, (queue_count + 2) * sizeof *table);
  struct emx_queue *q = calloc(1, sizeof *q);
  if (!table || !q) __emx_fatal("no memory for a queue");
  queues = table;
  queues[++queue_count] = q;
  return (emx_pe_id() << 16) | queue_count;
}

struct emx_queue *__emx_queue_local(emx_queue_t q) {
  const unsigned id = q & 0xffff;
  if (id == 0 || id > queue_count) __emx_fatal("no such queue on this PE");
  return queues[id];
}

static void push(struct emx_queue *q, uint32_t w) {
  if (q->n == q->cap) { /* double, unwrapping the ring */
    const uint32_t cap = q->cap ? 2 * q->cap : 16;
    uint32_t *ring = malloc(cap * sizeof *ring);
    if (!ring) __emx_fatal("no memory for a queue's values");
    for (uint32_t k = 0; k < q->n; ++k) ring[k] = q->ring[(q->head + k) & (q->cap - 1)];
    free(q->ring);
    q->ring = ring;
    q->cap = cap;
    q->head = 0;
  }
  q->ring[(q->head + q->n++) & (q->cap - 1)] = w;
}

static uint32_t pop(struct emx_queue *q) {
  const uint32_t w = q->ring[q->head];
  q->head = (q->head + 1) & (q->cap - 1);
  --q->n;
  return w;
}

int __emx_queue_take(struct emx_queue *q, uint32_t *v) {
  if (q->readers || q->n == 0) return 0;
  *v = pop(q);
  return 1;
}

void __emx_queue_wait(struct emx_queue *q, emx_gaddr_t cont) {
  q->readers = 1; /* the queue is empty: the ring now holds readers */
  push(q, cont);
}

static void put_local(struct emx_queue *q, uint32_t v) {
  if (!q->readers) {
    push(q, v);
    return;
  }
  const emx_gaddr_t reader = pop(q);
  if (q->n == 0) q->readers = 0;
  emx_send(EMX_PKT_invoke1, reader, v);
}

static void __emx_h_qput(uint32_t v, uint32_t id, uint32_t addr) {
  (void)addr;
  put_local(__emx_queue_local(id), v);
}
EMX_HANDLER(__emx_h_qput);

void emx_queue_put(emx_queue_t q, uint32_t v) {
  if (emx_queue_owner(q) == emx_pe_id()) put_local(__emx_queue_local(q), v);
  else EMX_INVOKE(emx_queue_owner(q), __emx_h_qput, q, v);
}

void __emx_h_qget(uint32_t cont, uint32_t id, uint32_t addr) {
  (void)addr;
  struct emx_queue *q = __emx_queue_local(id);
  uint32_t v;
  if (__emx_queue_take(q, &v)) emx_send(EMX_PKT_invoke1, cont, v);
  else __emx_queue_wait(q, cont);
}
EMX_HANDLER(__emx_h_qget);

void __emx_h_qtry(uint32_t cont, uint32_t id, uint32_t addr) {
  (void)addr;
  uint32_t v = 0;
  const int got = __emx_queue_take(__emx_queue_local(id), &v);
  emx_send(EMX_PKT_invoke1, got ? cont : cont + 1, v); /* slot 2: empty */
}
EMX_HANDLER(__emx_h_qtry);

int emx_queue_length(emx_queue_t q) {
  const struct emx_queue *l = __emx_queue_local(q);
  return l->readers ? -(int)l->n : (int)l->n;
}
