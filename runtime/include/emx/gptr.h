/* Global pointers: arithmetic and typed helpers on emx_gaddr_t (emx.h).
 *
 * A global address is PE (10 bits) | local *word* address (22 bits), so adding n to it
 * moves n words on the same PE, and the same code reaches local and remote memory.
 * Objects reached through global addresses must be word aligned and a whole number of
 * words long (remote accesses move 32-bit words). docs/runtime.md. */
#ifndef EMX_GPTR_H
#define EMX_GPTR_H

#include "emx.h"

/* The local word address of g (without its PE). */
static inline uint32_t emx_gaddr_word(emx_gaddr_t g) { return g & EMX_GADDR_LOCAL_MASK; }

/* Global address of local word address `word` on PE pe. */
static inline emx_gaddr_t emx_gaddr_make(unsigned pe, uint32_t word) {
  return ((emx_gaddr_t)pe << EMX_GADDR_PE_SHIFT) | (word & EMX_GADDR_LOCAL_MASK);
}

/* Global address of a local object of this PE. */
static inline emx_gaddr_t emx_gaddr_mine(const volatile void *p) {
  return emx_gaddr(emx_pe_id(), p);
}

/* The same local address on another PE: in SPMD programs every PE has its own copy of
 * each static variable at the same address, so &x names x on every PE. */
static inline emx_gaddr_t emx_gaddr_on(emx_gaddr_t g, unsigned pe) {
  return emx_gaddr_make(pe, emx_gaddr_word(g));
}

static inline int emx_gaddr_is_local(emx_gaddr_t g) { return emx_gaddr_pe(g) == emx_pe_id(); }

/* Pointer arithmetic. The offset stays inside the PE's local memory: it must not carry
 * into the PE field (the caller keeps it in range, as with an ordinary pointer). */
static inline emx_gaddr_t emx_gaddr_add_words(emx_gaddr_t g, int32_t words) {
  return g + (uint32_t)words;
}
static inline emx_gaddr_t emx_gaddr_add_bytes(emx_gaddr_t g, int32_t bytes) {
  return g + (uint32_t)(bytes >> 2); /* bytes: a multiple of 4 */
}
/* Difference in words of two addresses on the same PE. */
static inline int32_t emx_gaddr_diff_words(emx_gaddr_t a, emx_gaddr_t b) {
  return (int32_t)(emx_gaddr_word(a) - emx_gaddr_word(b));
}

/* Element i of an array of `type` at global address g (type: whole words). */
#define EMX_GADDR_INDEX(g, type, i)                                               \
  (__extension__({                                                                \
    _Static_assert(sizeof(type) % 4 == 0, "remote objects are whole words");      \
    emx_gaddr_add_words((g), (int32_t)((i) * (sizeof(type) / 4)));                \
  }))

/* Global address of a member of a struct at global address g. */
#define EMX_GADDR_MEMBER(g, type, member)                                          \
  (__extension__({                                                                 \
    _Static_assert(__builtin_offsetof(type, member) % 4 == 0, "members are words"); \
    emx_gaddr_add_words((g), (int32_t)(__builtin_offsetof(type, member) / 4));     \
  }))

/* Word <-> float without aliasing problems: remote packets carry 32-bit words. */
static inline uint32_t emx_f32_bits(float f) {
  union { float f; uint32_t u; } v = {f};
  return v.u;
}
static inline float emx_bits_f32(uint32_t u) {
  union { uint32_t u; float f; } v = {u};
  return v.f;
}

#endif
