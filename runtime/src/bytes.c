/* Remote copies at byte granularity (emx/bytes.h). */
#include <emx/bytes.h>
#include <emx/remote.h>
#include <string.h>

#include "layer_internal.h"

/* data = local byte address | (bytes - 1) << 24, arg16 = the bytes, first in the low
 * half. Local memory is below 16 MiB (22-bit word addresses), so 24 bits hold it. */
static void __emx_h_bytes(uint32_t data, uint32_t bytes, uint32_t addr) {
  (void)addr;
  volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)(data & 0xffffffu);
  p[0] = (uint8_t)bytes;
  if (data >> 24) p[1] = (uint8_t)(bytes >> 8);
}
EMX_HANDLER(__emx_h_bytes);

/* Up to 3 bytes that share one word: one or two packets. */
static void put_partial(unsigned pe, uint8_t *dst, const uint8_t *src, size_t n) {
  while (n) {
    const size_t k = n >= 2 && ((uintptr_t)dst & 3) != 3 ? 2 : 1; /* 2 only within the word */
    const uint32_t bytes = src[0] | (k == 2 ? (uint32_t)src[1] << 8 : 0);
    EMX_INVOKE(pe, __emx_h_bytes, bytes, (uint32_t)(uintptr_t)dst | (uint32_t)(k - 1) << 24);
    dst += k, src += k, n -= k;
  }
}

enum { BOUNCE_WORDS = 64 }; /* a stack buffer for sources that are not word aligned */

static __attribute__((noinline)) int put_bytes_any(unsigned pe, void *dst, const void *src,
                                                   size_t n);

int emx_put_bytes(unsigned pe, void *dst, const void *src, size_t n) {
  if ((((uintptr_t)dst | (uintptr_t)src | n) & 3) == 0 && pe != emx_pe_id()) {
    emx_put(emx_gaddr(pe, dst), src, n / 4); /* whole words: the common case */
    return 0;
  }
  return put_bytes_any(pe, dst, src, n);
}

static int put_bytes_any(unsigned pe, void *dst, const void *src, size_t n) {
  if (pe == emx_pe_id()) {
    memmove(dst, src, n);
    return 0;
  }
  uint8_t *d = dst;
  const uint8_t *s = src;
  const size_t head = (size_t)(-(uintptr_t)d & 3) < n ? (size_t)(-(uintptr_t)d & 3) : n;
  const size_t words = (n - head) / 4, tail = n - head - 4 * words;
  put_partial(pe, d, s, head);
  d += head, s += head;
  emx_gaddr_t g = emx_gaddr(pe, d);
  if (((uintptr_t)s & 3) == 0) {
    emx_put(g, s, words);
  } else {
    uint32_t bounce[BOUNCE_WORDS];
    for (size_t left = words; left;) {
      const size_t m = left < BOUNCE_WORDS ? left : BOUNCE_WORDS;
      memcpy(bounce, s, 4 * m);
      emx_put(g, bounce, m);
      g += m, s += 4 * m, left -= m;
    }
  }
  d += 4 * words;
  s = (const uint8_t *)src + head + 4 * words;
  put_partial(pe, d, s, tail);
  return head || tail;
}

/* emx_put_bytes_paced's chunks (emx/bytes.h). */
int __emx_put_paced(unsigned pe, char *dst, const char *src, size_t n) {
  for (size_t done = 0; done < n; done += EMX_PACE_BYTES) {
    const size_t m = n - done < EMX_PACE_BYTES ? n - done : EMX_PACE_BYTES;
    emx_put_bytes(pe, dst + done, src + done, m);
    emx_fence_bytes(pe);
  }
  return 0; /* every chunk is in place */
}


void emx_get_bytes(void *dst, unsigned pe, const void *src, size_t n) {
  if (pe == emx_pe_id()) {
    memmove(dst, src, n);
    return;
  }
  uint8_t *d = dst;
  const uint8_t *s = src;
  if ((((uintptr_t)d ^ (uintptr_t)s) & 3) == 0) {
    /* Same alignment: the whole words land in place; the partial ones are read whole. */
    const size_t head = (size_t)(-(uintptr_t)s & 3) < n ? (size_t)(-(uintptr_t)s & 3) : n;
    if (head) {
      const uint32_t w = emx_read(emx_gaddr(pe, (const void *)((uintptr_t)s & ~(uintptr_t)3)));
      memcpy(d, (const uint8_t *)&w + ((uintptr_t)s & 3), head);
    }
    const size_t words = (n - head) / 4, tail = n - head - 4 * words;
    emx_get(d + head, emx_gaddr(pe, s + head), words);
    if (tail) {
      const uint32_t w = emx_read(emx_gaddr(pe, s + head + 4 * words));
      memcpy(d + head + 4 * words, &w, tail);
    }
    return;
  }
  /* Different alignments: the covering words through a stack buffer. */
  uint32_t bounce[BOUNCE_WORDS];
  while (n) {
    const uintptr_t off = (uintptr_t)s & 3;
    const size_t m = off + n <= 4 * BOUNCE_WORDS ? n : 4 * BOUNCE_WORDS - off;
    emx_get(bounce, emx_gaddr(pe, (const void *)((uintptr_t)s - off)), (off + m + 3) / 4);
    memcpy(d, (const uint8_t *)bounce + off, m);
    d += m, s += m, n -= m;
  }
}

/* data = the continuation to answer. */
static void __emx_h_after(uint32_t cont, uint32_t arg16, uint32_t addr) {
  (void)arg16, (void)addr;
  emx_send(EMX_PKT_invoke1, cont, 0);
}
EMX_HANDLER(__emx_h_after);

void emx_after_writes(unsigned pe, emx_gaddr_t cont) {
  if (pe == emx_pe_id()) emx_send(EMX_PKT_invoke1, cont, 0);
  else EMX_INVOKE(pe, __emx_h_after, 0, cont);
}
