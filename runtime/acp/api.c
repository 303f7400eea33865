/* The ACP calls: start-up, copies and atomics (checked here, on the rank that starts
 * them, before anything is sent). */
#include <stdlib.h>
#include <string.h>

#include "acp_internal.h"

static size_t memory_bytes;

/* -acp-remote-copy=hardware|software: how a remote-to-remote copy of whole words moves on
 * EM-X (elsewhere, and for partial words, always in software). "software": the original
 * ACP's emulation by the source rank, which checks the source's registration; for
 * comparison (docs/acp.md). Removed from argc/argv. */
static int parse_option(const char *arg) {
  static const char key[] = "-acp-remote-copy=";
  if (strncmp(arg, key, sizeof key - 1) != 0) return 0;
  const char *v = arg + sizeof key - 1;
  if (strcmp(v, "hardware") == 0 || strcmp(v, "software") == 0)
    acp__remote_copy_in_software = strcmp(v, "software") == 0;
  else
    acp__error("acp_init", "unknown option %s (use -acp-remote-copy=hardware|software)", arg);
  return 1;
}

static void consume_options(int *argc, char ***argv) {
  if (!argc || !argv || !*argv) return;
  char **a = *argv;
  int out = 0;
  for (int k = 0; k < *argc; ++k)
    if (k == 0 || !a[k] || !parse_option(a[k])) a[out++] = a[k];
  a[out] = 0;
  *argc = out;
}

int acp_init(int *argc, char ***argv) {
  consume_options(argc, argv);
  if (emx_mem_bytes() > (1u << 24)) /* 24-bit byte addresses in a global address */
    __emx_fatal("acp_init: the ACP layer addresses at most 16 MiB per PE");
  const size_t before = emx_heap_in_use();
  acp__regions_init();
  acp__copies_init();
  memory_bytes = emx_heap_in_use() - before;
  emx_barrier();
  return 0;
}

int acp_finalize(void) {
  acp__complete_all();
  emx_barrier();
  return 0;
}

int acp_rank(void) { return (int)emx_pe_id(); }
int acp_procs(void) { return (int)emx_pe_count(); }
int acp_sync(void) {
  emx_barrier();
  return 0;
}
size_t acp_memory_bytes(void) { return memory_bytes; }

/* A global address the starting rank can vouch for: registered (its slot set), on an
 * existing rank, the range inside the registration's end; on this rank, fully checked.
 * Returns why not (a GA_* code) or 0; inline, the messages out of line. */
enum { GA_OK, GA_UNREGISTERED, GA_RANK, GA_PAST_END, GA_NOT_HERE };
static inline int ga_fault(acp_ga_t ga, size_t size) {
  const unsigned pe = ga_pe(ga);
  if (ga_slot(ga) == 0) return GA_UNREGISTERED;
  if (pe >= emx_pe_count()) return GA_RANK;
  if (size > (size_t)ga_last(ga) + 1 - ga_addr(ga) || ga_addr(ga) > ga_last(ga))
    return GA_PAST_END;
  if (pe == emx_pe_id() && !acp__region_holds(ga_slot(ga), ga_addr(ga), (uint32_t)size))
    return GA_NOT_HERE;
  return GA_OK;
}

static __attribute__((noinline, cold)) int ga_error(const char *fn, const char *which,
                                                    acp_ga_t ga, size_t size, int fault) {
  const unsigned pe = ga_pe(ga);
  switch (fault) {
    case GA_UNREGISTERED:
      acp__error(fn, "the %s %#llx is not a registered global address (acp_query_ga)", which,
                 (unsigned long long)ga);
      break;
    case GA_RANK:
      acp__error(fn, "the %s is on rank %u, but there are %u ranks", which, pe,
                 emx_pe_count());
      break;
    case GA_PAST_END:
      acp__error(fn, "%zu bytes at the %s (%#x on rank %u) go past the end of its "
                 "registration (last byte %#x)", size, which, (unsigned)ga_addr(ga), pe,
                 (unsigned)ga_last(ga));
      break;
    default:
      acp__error(fn, "the %s (%#x, %zu bytes) is not in registered memory of this rank",
                 which, (unsigned)ga_addr(ga), size);
  }
  return 0;
}

static inline int check_ga(const char *fn, const char *which, acp_ga_t ga, size_t size) {
  const int fault = ga_fault(ga, size);
  return fault ? ga_error(fn, which, ga, size, fault) : 1;
}

acp_handle_t acp_copy(acp_ga_t dst, acp_ga_t src, size_t size, acp_handle_t order) {
  if (!check_ga("acp_copy", "destination", dst, size) ||
      !check_ga("acp_copy", "source", src, size))
    return ACP_HANDLE_NULL;
  acp_desc *d = acp__reserve("acp_copy");
  d->kind = K_COPY, d->size = (uint32_t)size, d->dst = dst, d->src = src;
  return acp__launch(d, order);
}

static acp_handle_t atomic(const char *fn, uint32_t kind, uint32_t size, acp_ga_t dst,
                           acp_ga_t src, uint64_t a, uint64_t b, acp_handle_t order) {
  if (!check_ga(fn, "result (dst)", dst, size) || !check_ga(fn, "target (src)", src, size))
    return ACP_HANDLE_NULL;
  if (ga_addr(src) & 3) {
    acp__error(fn, "the target %#x is not aligned to 4 bytes", (unsigned)ga_addr(src));
    return ACP_HANDLE_NULL;
  }
  acp_desc *d = acp__reserve(fn);
  d->kind = kind, d->size = size, d->dst = dst, d->src = src, d->a = a, d->b = b;
  return acp__launch(d, order);
}

#define ATOMIC(op, bits, type)                                                   \
  acp_handle_t acp_##op##bits(acp_ga_t dst, acp_ga_t src, type value, acp_handle_t order) { \
    return atomic("acp_" #op #bits, K_OP_##op, bits, dst, src, value, 0, order);           \
  }
ACP__ATOMICS(ATOMIC, 4, uint32_t)
ACP__ATOMICS(ATOMIC, 8, uint64_t)
#undef ATOMIC

acp_handle_t acp_cas4(acp_ga_t dst, acp_ga_t src, uint32_t oldval, uint32_t newval,
                      acp_handle_t order) {
  return atomic("acp_cas4", K_CAS, 4, dst, src, oldval, newval, order);
}
acp_handle_t acp_cas8(acp_ga_t dst, acp_ga_t src, uint64_t oldval, uint64_t newval,
                      acp_handle_t order) {
  return atomic("acp_cas8", K_CAS, 8, dst, src, oldval, newval, order);
}
