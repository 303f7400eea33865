/* Registrations and global addresses. Local only: registering tells nobody; the global
 * address carries the registration's slot and last byte, so the rank that starts a copy
 * checks its extent without asking the owner. */
#include <stdlib.h>

#include "acp_internal.h"

static acp_region *regions; /* [slot], slot 0 unused */

size_t acp__regions_init(void) {
  const size_t bytes = (ACP_MAX_REGISTRATIONS + 1) * sizeof *regions;
  regions = calloc(ACP_MAX_REGISTRATIONS + 1, sizeof *regions);
  if (!regions) __emx_fatal("acp_init: no memory for the registration table");
  return bytes;
}

int acp__region_holds(unsigned slot, uint32_t addr, uint32_t size) {
  if (slot == 0 || slot > ACP_MAX_REGISTRATIONS || regions[slot].size == 0) return 0;
  const acp_region *r = &regions[slot];
  return addr >= r->start && addr - r->start <= r->size && size <= r->size - (addr - r->start);
}

static acp_atkey_t key_make(unsigned slot) {
  return (acp_atkey_t)emx_pe_id() << 32 | slot;
}

acp_atkey_t acp_register_memory(void *addr, size_t size, int color) {
  (void)color;
  const uint32_t a = (uint32_t)(uintptr_t)addr;
  if (size == 0) {
    acp__error("acp_register_memory", "an empty registration (0 bytes at %p)", addr);
    return ACP_ATKEY_NULL;
  }
  if (a < 0x1000 || a > emx_mem_bytes() || size > emx_mem_bytes() - a) {
    acp__error("acp_register_memory", "%zu bytes at %p are not in this PE's memory (%u bytes)",
               size, addr, (unsigned)emx_mem_bytes());
    return ACP_ATKEY_NULL;
  }
  for (unsigned s = 1; s <= ACP_MAX_REGISTRATIONS; ++s)
    if (regions[s].size == 0) {
      regions[s] = (acp_region){a, (uint32_t)size};
      return key_make(s);
    }
  acp__error("acp_register_memory", "more than %d registrations at once",
             ACP_MAX_REGISTRATIONS);
  return ACP_ATKEY_NULL;
}

static unsigned key_slot(const char *fn, acp_atkey_t key) {
  const unsigned slot = (unsigned)key;
  if ((key >> 32) != emx_pe_id() || slot == 0 || slot > ACP_MAX_REGISTRATIONS ||
      regions[slot].size == 0) {
    acp__error(fn, "key %#llx is not a registration of this rank", (unsigned long long)key);
    return 0;
  }
  return slot;
}

int acp_unregister_memory(acp_atkey_t key) {
  const unsigned slot = key_slot("acp_unregister_memory", key);
  if (!slot) return -1;
  regions[slot].size = 0;
  return 0;
}

acp_ga_t acp_query_ga(acp_atkey_t key, void *addr) {
  const unsigned slot = key_slot("acp_query_ga", key);
  if (!slot) return ACP_GA_NULL;
  const acp_region *r = &regions[slot];
  const uint32_t a = (uint32_t)(uintptr_t)addr;
  if (a < r->start || a - r->start >= r->size) {
    acp__error("acp_query_ga", "%p is outside the registration of key %#llx (%u bytes at %#x)",
               addr, (unsigned long long)key, (unsigned)r->size, (unsigned)r->start);
    return ACP_GA_NULL;
  }
  return ga_make(emx_pe_id(), slot, r->start + r->size - 1, a);
}

void *acp_query_address(acp_ga_t ga) { return ga_ptr(ga); }
