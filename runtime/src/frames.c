/* Frames (operand segments): emx_frame_words() words aligned to their size, carved in
 * batches from the heap and recycled through a free list (linked through word 0,
 * which holds the template while the frame is in use). */
#include <stdlib.h>

#include "layer_internal.h"

uint32_t __emx_frame_bytes;

void __emx_frames_init(void) { __emx_frame_bytes = emx_frame_words() * 4; }

/* About 2 KiB per batch: few mallocs, little waste with big frames. */
unsigned __emx_frames_per_batch(void) {
  const unsigned n = 2048 / __emx_frame_bytes;
  return n < 1 ? 1 : n > 16 ? 16 : n;
}

char *__emx_frames_carve(unsigned n) {
  const uint32_t fb = __emx_frame_bytes;
  char *raw = malloc(n * fb + fb - 8); /* malloc aligns to 8 */
  if (!raw) __emx_fatal("no memory for frames");
  return (char *)(((uintptr_t)raw + fb - 1) & ~(uintptr_t)(fb - 1));
}

uint32_t *__emx_frame_pool;

void *__emx_frame_refill(const void *tmpl) {
  const unsigned n = __emx_frames_per_batch();
  char *batch = __emx_frames_carve(n);
  for (unsigned k = 1; k < n; ++k) emx_frame_free(batch + k * __emx_frame_bytes);
  uint32_t *f = (uint32_t *)batch;
  f[0] = (uint32_t)(uintptr_t)tmpl;
  return f;
}

/* Templates whose every slot starts the same entry, made once per entry. */
struct uniform {
  emx_thread_fn entry;
  emx_thread_fn *table;
  struct uniform *next;
};
static struct uniform *uniforms;

const emx_thread_fn *__emx_uniform_template(emx_thread_fn entry) {
  for (struct uniform *u = uniforms; u; u = u->next)
    if (u->entry == entry) return u->table;
  const unsigned words = __emx_frame_bytes / 4;
  struct uniform *u = malloc(sizeof *u);
  emx_thread_fn *table = malloc(words * sizeof *table);
  if (!u || !table) __emx_fatal("no memory for a template");
  table[0] = 0;
  for (unsigned k = 1; k < words; ++k) table[k] = entry;
  *u = (struct uniform){entry, table, uniforms};
  uniforms = u;
  return table;
}
