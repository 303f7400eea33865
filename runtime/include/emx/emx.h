/* EMC-Y intrinsics for C programs on the simulated EM-X PE.
 *
 * Packet sends, thread end, memory-word tags and the machine registers, as inline
 * assembly (the encodings are isa/emcy.def), plus global addresses and the host
 * services every program needs (exit code, result records). docs/runtime.md.
 */
#ifndef EMX_EMX_H
#define EMX_EMX_H

#include <stddef.h>
#include <stdint.h>

#include "host_protocol.h"

/* Packet types (the 6-bit address tag): EMX_PKT_invoke1, EMX_PKT_syswr, EMX_PKT_host...
 * Taken from the ISA table itself so the runtime and the simulator cannot disagree. */
enum emx_packet_type {
#define PACKET_TYPE(id, val, sfx, disp, doc) EMX_PKT_##id = (val),
#include "../../../isa/packet_types.def"
#undef PACKET_TYPE
};

/* A global address: PE number (10 bits) | local *word* address (22 bits). */
typedef uint32_t emx_gaddr_t;
#define EMX_GADDR_PE_SHIFT 22
#define EMX_GADDR_LOCAL_MASK 0x3fffffu

static inline emx_gaddr_t emx_gaddr(unsigned pe, const volatile void *local) {
  return ((emx_gaddr_t)pe << EMX_GADDR_PE_SHIFT) | ((uint32_t)(uintptr_t)local >> 2);
}
static inline unsigned emx_gaddr_pe(emx_gaddr_t g) { return g >> EMX_GADDR_PE_SHIFT; }
static inline void *emx_gaddr_local(emx_gaddr_t g) {
  return (void *)(uintptr_t)((g & EMX_GADDR_LOCAL_MASK) << 2);
}

/* send.TYPE data, addr: one clock, no setup. TYPE must be a constant (it is encoded in the
 * instruction). "memory": every store before the send is done before the packet leaves. */
#define emx_send(type, addr, data)                                          \
  __asm__ volatile(".insn r 0x0b, 0, %0, x0, %1, %2"                        \
                   :                                                        \
                   : "i"(type), "r"((uint32_t)(addr)), "r"((uint32_t)(data)) \
                   : "memory")

/* send.TYPE data, DISP(base): address = base + DISP (DISP in words, a constant in
 * -2048..2047); only packet types 0..7 and sysrdw have this form (isa/emcy.def: custom-1
 * for 0..7, custom-2 for 8..15). */
#define emx_send_disp(type, disp, base, data)                                      \
  do {                                                                             \
    _Static_assert(((type) >= 0 && (type) <= 7) || (type) == EMX_PKT_sysrdw,        \
                   "no displacement send for this type");                         \
    __asm__ volatile(".insn s %4, %0, %3, %1(%2)"                                  \
                     :                                                             \
                     : "i"((type) % 8), "i"(disp), "r"((uint32_t)(base)),          \
                       "r"((uint32_t)(data)), "i"((type) < 8 ? 0x2b : 0x5b)        \
                     : "memory");                                                  \
  } while (0)

/* One function per packet type too, for code that prefers a name to a constant. */
#define PACKET_TYPE(id, val, sfx, disp, doc) \
  static inline void emx_send_##id(uint32_t addr, uint32_t data) { emx_send(val, addr, data); }
#include "../../../isa/packet_types.def"
#undef PACKET_TYPE

/* End the running thread (strongly connected block); the PE starts the next ready one.
 * Control comes back only if a packet restarts this code. */
static inline void emx_end(void) { __asm__ volatile(".insn i 0x0b, 1, x0, x0, 0" ::: "memory"); }

/* lw.ai: the word at *p, and *p advanced by one word, in one instruction (EMC-Y's
 * auto-increment load; EM-X only, EMX_FEATURE_AUTO_INCREMENT). */
static inline uint32_t emx_load_next(const uint32_t **p) {
  uint32_t v;
  const uint32_t *q = *p;
  __asm__ volatile(".insn i 0x7b, 2, %0, %1, 4" : "=&r"(v), "+r"(q) : : "memory");
  *p = q;
  return v;
}

/* Tag bits (6) of the memory word at a local word-aligned address. */
static inline unsigned emx_rtag(const volatile void *word) {
  unsigned t;
  __asm__ volatile(".insn r 0x0b, 2, 0, %0, %1, x0" : "=r"(t) : "r"(word) : "memory");
  return t;
}
static inline void emx_wtag(volatile void *word, unsigned tag) {
  __asm__ volatile(".insn r 0x0b, 3, 0, x0, %0, %1" ::"r"(word), "r"(tag) : "memory");
}

/* Machine registers (isa/csr_numbers.h). */
#define EMX_CSR_READ(num)                                 \
  __extension__({                                         \
    uint32_t v_;                                          \
    __asm__ volatile("csrr %0, " #num : "=r"(v_));        \
    v_;                                                   \
  })
static inline unsigned emx_pe_id(void) { return EMX_CSR_READ(0xCC0); }
static inline unsigned emx_pe_count(void) { return EMX_CSR_READ(0xCC1); }
static inline uint32_t emx_mem_bytes(void) { return EMX_CSR_READ(0xCC2); }
static inline uint32_t emx_clock_khz(void) { return EMX_CSR_READ(0xCC3); }

/* Feature bits of this machine (EMX_FEATURE_*): the config decides the mechanism. */
#define EMX_FEATURE_DIRECT_REMOTE_ACCESS 1u /* SYSWR/SYSRD served by the memory unit */
#define EMX_FEATURE_SEND_DISPLACEMENT 2u    /* send has its base+displacement form */
#define EMX_FEATURE_AUTO_INCREMENT 4u       /* lw.ai: auto-increment load (isa/emcy.def) */
static inline unsigned emx_features(void) { return EMX_CSR_READ(0xCC4); }
/* Words per frame (operand segment); frames are aligned to their size. */
static inline unsigned emx_frame_words(void) { return EMX_CSR_READ(0xCC5); }

/* Threads. A thread starts with a0, a1 = its data words, a2 = the packet's address word,
 * tp = its frame (docs/pe.md; blocking C code: emx/threads.h), so a thread is a C function
 *     void my_thread(uint32_t a0, uint32_t a1, emx_gaddr_t cont);
 * whose return ends it. Frame word 0 points to the template: a table of entry points
 * indexed by slot; a continuation names a frame slot, global. */
typedef void (*emx_thread_fn)(uint32_t, uint32_t, uint32_t);
/* A frame laid out by the program itself (the default 32 words, aligned to its size):
 *   static emx_static_frame_t frame EMX_FRAME_ALIGN = {tmpl, {0}};
 * slot[k - 1] is frame word k, whose continuation starts template entry k. */
typedef struct {
  const emx_thread_fn *tmpl;
  uint32_t slot[31];
} emx_static_frame_t;
#define EMX_FRAME_ALIGN __attribute__((aligned(128)))
static inline void *emx_frame(void) {
  void *f;
  __asm__ volatile("mv %0, tp" : "=r"(f));
  return f;
}
/* Points tp at the PE's C-library block (picolibc's thread-local errno, rand's seed,
 * strtok's position: one per PE, runtime/link/emx.ld). main, the functions emx_spawn
 * starts and every computation they resume have it; a thread started by a packet has
 * tp = its frame (0 for a special handler), so it calls this, after its last
 * emx_frame(), before library calls that set errno or keep such state (docs/runtime.md,
 * "The C library and threads"). */
static inline void emx_libc_tls(void) {
  __asm__ volatile("addi tp, gp, -2048" ::: "memory"); /* emx.ld: gp = the block + 2 KiB */
}
static inline emx_gaddr_t emx_continuation(const volatile void *frame, unsigned slot) {
  return emx_gaddr(EMX_CSR_READ(0xCC0), (const volatile char *)frame + 4 * slot);
}
/* Special handlers: a table of entry points, indexed by bits 21:16 of the address word. */
static inline void emx_set_handler_table(const emx_thread_fn *table) {
  __asm__ volatile("csrw 0x800, %0" ::"r"(table) : "memory");
}
/* Where new threads' stacks start (0: the default, the top of the stack). */
static inline void emx_set_thread_stack(void *sp) {
  __asm__ volatile("csrw 0x801, %0" ::"r"(sp) : "memory");
}

/* A 64-bit counter: the high half is read on both sides of the low half; if it changed,
 * the low half wrapped in between and we read again. */
#define EMX_CSR_READ64(lo_num, hi_num)                    \
  __extension__({                                         \
    uint32_t hi_, lo_;                                    \
    do {                                                  \
      hi_ = EMX_CSR_READ(hi_num);                         \
      lo_ = EMX_CSR_READ(lo_num);                         \
    } while (hi_ != EMX_CSR_READ(hi_num));                \
    ((uint64_t)hi_ << 32) | lo_;                          \
  })
/* Clocks since the PE started. */
static inline uint64_t emx_cycles(void) { return EMX_CSR_READ64(0xC00, 0xC80); }
/* Instructions this PE has executed (every thread's): the difference of two reads around
 * a loop is the loop's instruction count (plus the reads' own few). */
static inline uint64_t emx_instret(void) { return EMX_CSR_READ64(0xC02, 0xC82); }

/* A host packet from this PE (host_protocol.h). */
static inline void emx_host_send(unsigned cmd, unsigned arg, uint32_t data) {
  emx_send(EMX_PKT_host, EMX_HOST_ADDR(emx_pe_id(), cmd, arg), data);
}

/* Flush the console, report `code` to the host and end this thread for good. */
void emx_exit(int code) __attribute__((noreturn));
/* Result records for the statistics. `name` is read by the host when the record
 * arrives, so it must stay unchanged until then: pass a string literal. */
void emx_result(const char *name, double value);
void emx_result_int(const char *name, long long value);
/* Send what the console buffer holds (printf flushes at newlines by itself). */
void emx_console_flush(void);

/* The heap (malloc) may grow up to this many bytes below the lowest stack pointer seen
 * on the main stack (default 16 KiB); raise it for deep recursion. */
extern size_t emx_heap_stack_reserve;
/* Bytes of heap held by live blocks (headers included), now and at most so far. */
size_t emx_heap_in_use(void);
size_t emx_heap_peak(void);

#endif
