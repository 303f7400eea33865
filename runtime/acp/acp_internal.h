/* Shared by the files of the ACP basic layer (runtime/acp); not part of the API. */
#ifndef ACP_INTERNAL_H
#define ACP_INTERNAL_H

#include <acp.h>
#include <emx/bytes.h>
#include <emx/emc.h>

#include "../src/layer_internal.h"

/* ---- Global addresses: PE 10 | slot 6 | last byte 24 | byte address 24 ---- */
enum { GA_PE_SHIFT = 54, GA_SLOT_SHIFT = 48, GA_LAST_SHIFT = 24 };
#define GA_ADDR_MASK 0xffffffu
static inline unsigned ga_pe(acp_ga_t g) { return (unsigned)(g >> GA_PE_SHIFT); }
static inline unsigned ga_slot(acp_ga_t g) { return (unsigned)(g >> GA_SLOT_SHIFT) & 63u; }
static inline uint32_t ga_last(acp_ga_t g) { return (uint32_t)(g >> GA_LAST_SHIFT) & GA_ADDR_MASK; }
static inline uint32_t ga_addr(acp_ga_t g) { return (uint32_t)g & GA_ADDR_MASK; }
static inline void *ga_ptr(acp_ga_t g) { return (void *)(uintptr_t)ga_addr(g); }
static inline acp_ga_t ga_make(unsigned pe, unsigned slot, uint32_t last, uint32_t addr) {
  return (acp_ga_t)pe << GA_PE_SHIFT | (acp_ga_t)slot << GA_SLOT_SHIFT |
         (acp_ga_t)last << GA_LAST_SHIFT | addr;
}

/* ---- Registrations (memory.c) ---- */
typedef struct {
  uint32_t start, size; /* size 0: the slot is free */
} acp_region;
/* Is [addr, addr + size) inside live registration `slot` of this rank? */
int acp__region_holds(unsigned slot, uint32_t addr, uint32_t size);
size_t acp__regions_init(void); /* returns the bytes it took */

/* ---- Copies (copy.c) ---- */
enum acp_kind { /* what a descriptor asks for */
  K_COPY,
  K_ADD, K_SWAP, K_AND, K_OR, K_XOR, K_CAS
};
/* The names acp.h's ACP__ATOMICS list uses. */
enum { K_OP_add = K_ADD, K_OP_swap = K_SWAP, K_OP_and = K_AND, K_OP_or = K_OR, K_OP_xor = K_XOR };

/* What a handler on another rank fetches (atomics, a source that pushes): words only. */
typedef struct {
  uint32_t kind, size;
  acp_ga_t dst, src;
  uint32_t cont;  /* the origin's completion continuation (its event frame's slot) */
  uint32_t origin;
  uint64_t a, b;  /* operands of an atomic (CAS: a = expected, b = new) */
} acp_desc;
/* A copy's handler fetches the words before the operands, an atomic's all of them. */
enum { DESC_COPY_WORDS = __builtin_offsetof(acp_desc, a) / 4, DESC_WORDS = sizeof(acp_desc) / 4 };

/* The descriptor of the next copy, in its ring record (waits for a free record); fill
 * kind, size, dst, src (a, b) and launch it: returns its handle. */
acp_desc *acp__reserve(const char *fn);
acp_handle_t acp__launch(acp_desc *d, acp_handle_t order);
size_t acp__copies_init(void);
void acp__complete_all(void);

/* On the rank that executes a remote part (remote.c). */
/* Signals completion to cont once everything this PE sent to PE pe has been done there:
 * a remote read behind the writes, or a handler thread behind byte-handler threads. */
void acp__done_after(unsigned pe, int partial, emx_gaddr_t cont);
/* A copy that neither end can do by itself (remote-to-remote, a misaligned get; any get
 * beyond 32 bytes without a block read): whole words on EM-X by the source's memory unit
 * (a block read with its completion forwarded through the destination), else the source
 * pushes it to the destination in a handler. Gets on EM-X use the block read (copy.c). */
void acp__move_remote(const acp_desc *d, emx_gaddr_t desc_at);
extern int acp__remote_copy_in_software; /* -acp-remote-copy=software (api.c) */
/* An atomic: on its word's rank, by a handler thread there (or at once, if local). */
void acp__atomic(const acp_desc *d, emx_gaddr_t desc_at);

/* ---- Errors (errors.c) ---- */
/* Prints "acp error on rank R in FN: ..."; stops every rank unless errors return. */
void acp__error(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
