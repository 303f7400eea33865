/* Shared by the files of the EM-C-like layer (context, frames, remote access,
 * I-structures, queues, collectives); not part of the user API. */
#ifndef EMX_LAYER_INTERNAL_H
#define EMX_LAYER_INTERNAL_H

#include <emx/threads.h>

/* frames.c */
extern uint32_t __emx_frame_bytes; /* pe.threads.frame_words * 4, read at start-up */
void __emx_frames_init(void);
unsigned __emx_frames_per_batch(void);
/* n new frames, contiguous and aligned to their size (never given back to malloc). */
char *__emx_frames_carve(unsigned n);
/* A template of emx_frame_words() entries, all `entry` (for frames whose every slot
 * is a continuation of the same kind). */
const emx_thread_fn *__emx_uniform_template(emx_thread_fn entry);

/* context.c */
enum { EMX_CTX_ID_LIMIT = 0xffff }; /* ids travel in the 16-bit argument of a special packet */
emx_ctx_t *__emx_ctx_by_id(unsigned id);
void __emx_fatal(const char *why) __attribute__((noreturn));

/* invoke.c */
/* Counts s down at the end of a thread: if that was the last event, the waiter
 * continues right here instead of after a packet round trip (does not return then). */
void __emx_sync_done_tail(emx_sync_t *s);
void __emx_h_wake(uint32_t value, uint32_t id, uint32_t addr);
void __emx_h_wake_alt(uint32_t value, uint32_t id, uint32_t addr);
EMX_HANDLER_DECLARE(__emx_h_wake);
EMX_HANDLER_DECLARE(__emx_h_wake_alt);

/* The slot index a continuation names (0..frame_words-1). */
static inline unsigned __emx_slot_of(emx_gaddr_t cont) {
  return emx_gaddr_word(cont) & (__emx_frame_bytes / 4 - 1);
}

#endif
