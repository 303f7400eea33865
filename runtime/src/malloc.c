/* malloc: a first-fit allocator over one growing heap. The runtime's own rather than
 * picolibc's: MPI-EMX allocates on its measured paths (the buffered protocol's
 * temporary buffers), so its clocks are part of the published figures, and the heap's
 * statistics (emx_heap_in_use, emx_heap_peak: the ACP memory figure) count its blocks.
 * Being in the runtime's archive, which the link pulls in first (-u malloc,
 * cmake/EmxTarget.cmake), it is the allocator of picolibc too (fopen's buffers, ...).
 *
 * The heap starts at __heap_start (end of .bss, runtime/link/emx.ld) and grows up
 * towards the stack, which grows down from the stack top the loader chose. The heap
 * may grow while its top stays emx_heap_stack_reserve bytes below the lowest stack
 * pointer malloc has seen on that stack; beyond that malloc returns NULL. (A thread
 * running on a stack of its own, below the heap top, is not on that stack: its sp
 * says nothing about the room left.) Free blocks are kept in address order and
 * merged with their neighbours; a free block at the top gives its space back. */
#include <emx/emx.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

extern char __heap_start[];

size_t emx_heap_stack_reserve = 16 * 1024;

/* Every block starts with this header; payloads are 8-byte aligned for doubles. */
typedef struct block {
  size_t size;        /* of the whole block, header included */
  struct block *next; /* free blocks only */
} block;

enum { ALIGN = 8, HEADER = sizeof(block), MIN_BLOCK = HEADER + ALIGN };

static block *free_list; /* in address order */
static char *heap_top;
/* The highest heap_top so far: above it the heap has never been handed out, and local
 * memory starts zeroed, so calloc need not clear it (0: nothing handed out yet). On
 * the simulator a page that is never written costs no host memory: the tables MPI_Init
 * callocs per PE of the machine then cost it nothing until used. */
static char *heap_high;
static size_t in_use, peak;

/* The lowest stack pointer seen on the main stack (the one above the heap). */
static char *main_stack_low(void) {
  static char *lowest = (char *)UINTPTR_MAX;
  char *sp;
  __asm__ volatile("mv %0, sp" : "=r"(sp));
  if (sp > heap_top && sp < lowest) lowest = sp;
  return lowest != (char *)UINTPTR_MAX ? lowest : sp; /* none seen: no room, to be safe */
}

static block *grow(size_t need) {
  if (!heap_top) heap_top = (char *)(((uintptr_t)__heap_start + ALIGN - 1) & -(uintptr_t)ALIGN);
  const char *limit = main_stack_low() - emx_heap_stack_reserve;
  if (limit < heap_top || (size_t)(limit - heap_top) < need) {
    EMX_PE_ERRNO = ENOMEM;
    return NULL;
  }
  block *b = (block *)heap_top;
  heap_top += need;
  if (heap_top > heap_high) heap_high = heap_top;
  b->size = need;
  return b;
}

void *malloc(size_t size) {
  if (size > SIZE_MAX / 2) {
    EMX_PE_ERRNO = ENOMEM;
    return NULL;
  }
  size_t need = (size + HEADER + ALIGN - 1) & -(size_t)ALIGN;
  if (need < MIN_BLOCK) need = MIN_BLOCK;
  block **link = &free_list;
  while (*link && (*link)->size < need) link = &(*link)->next;
  block *b = *link;
  if (b && b->size - need >= MIN_BLOCK) { /* split: the rest stays free in its place */
    block *rest = (block *)((char *)b + need);
    rest->size = b->size - need;
    rest->next = b->next;
    *link = rest;
    b->size = need;
  } else if (b) {
    *link = b->next;
  } else if (!(b = grow(need))) {
    return NULL;
  }
  in_use += b->size;
  if (in_use > peak) peak = in_use;
  return (char *)b + HEADER;
}

static int adjacent(const block *a, const block *b) {
  return (const char *)a + a->size == (const char *)b;
}

void free(void *p) {
  if (!p) return;
  block *b = (block *)((char *)p - HEADER);
  in_use -= b->size;
  block **link = &free_list, **prev_link = NULL; /* *link will be b, *prev_link before it */
  while (*link && *link < b) {
    prev_link = link;
    link = &(*link)->next;
  }
  b->next = *link;
  *link = b;
  if (b->next && adjacent(b, b->next)) {
    b->size += b->next->size;
    b->next = b->next->next;
  }
  if (prev_link && adjacent(*prev_link, b)) {
    (*prev_link)->size += b->size;
    (*prev_link)->next = b->next;
    b = *prev_link;
    link = prev_link;
  }
  if (!b->next && (char *)b + b->size == heap_top) { /* the top block: shrink the heap */
    heap_top = (char *)b;
    *link = NULL;
  }
}

void *calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) {
    EMX_PE_ERRNO = ENOMEM;
    return NULL;
  }
  const size_t n = count * size;
  char *const fresh = heap_high; /* before malloc moves it */
  char *p = malloc(n);
  if (!p) return NULL;
  /* A block from the free list lies below `fresh`; one the heap grew for may start
   * below it (the heap shrank since) and reach above. Only the part below was used. */
  if (!fresh || p >= fresh) return p;
  return memset(p, 0, (size_t)(fresh - p) < n ? (size_t)(fresh - p) : n);
}

void *realloc(void *p, size_t size) {
  if (!p) return malloc(size);
  const size_t have = ((block *)((char *)p - HEADER))->size - HEADER;
  if (size <= have) return p;
  void *q = malloc(size);
  if (q) {
    memcpy(q, p, have);
    free(p);
  }
  return q;
}

size_t malloc_usable_size(void *p) { return p ? ((block *)((char *)p - HEADER))->size - HEADER : 0; }

/* Aligned blocks: a block big enough to hold one at an aligned address with room for a
 * free block before it; the part before goes back to the free list. */
void *memalign(size_t align, size_t size) {
  if (align <= ALIGN) return malloc(size);
  if (align & (align - 1) || size > SIZE_MAX / 4 || align > SIZE_MAX / 4) {
    EMX_PE_ERRNO = EINVAL;
    return NULL;
  }
  char *p = malloc(size + align + MIN_BLOCK);
  if (!p) return NULL;
  char *q = (char *)(((uintptr_t)p + MIN_BLOCK + align - 1) & -(uintptr_t)align);
  /* Through integers: GCC would take p - HEADER for an access before the new block. */
  block *b = (block *)((uintptr_t)p - HEADER), *a = (block *)((uintptr_t)q - HEADER);
  a->size = b->size - (size_t)(q - p);
  b->size = (size_t)(q - p);
  free(p);
  return q;
}

void *aligned_alloc(size_t align, size_t size) { return memalign(align, size); }

int posix_memalign(void **out, size_t align, size_t size) {
  if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = memalign(align, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

size_t emx_heap_in_use(void) { return in_use; }
size_t emx_heap_peak(void) { return peak; }
