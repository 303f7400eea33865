/* The machine registers and the intrinsics of emx.h, on one PE of the default config
 * (configs/emx80-16mhz.json: 16 MHz, 4 MiB of local memory), and result records. */
#include <emx/emx.h>
#include <stdio.h>

static uint32_t words[4];

int main(void) {
  printf("PE %u of %u, %u KiB of memory, %u kHz\n", emx_pe_id(), emx_pe_count(),
         emx_mem_bytes() / 1024, emx_clock_khz());

  const uint64_t t0 = emx_cycles();
  volatile uint32_t sink = 0;
  for (int k = 0; k < 1000; ++k) sink += (uint32_t)k;
  const uint64_t clocks = emx_cycles() - t0;
  printf("a 1000-iteration loop takes 1000 to 100000 clocks: %d\n",
         clocks >= 1000 && clocks <= 100000);

  const emx_gaddr_t g = emx_gaddr(5, &words[2]);
  printf("global address: PE %u, back to the pointer %d, word address %d\n", emx_gaddr_pe(g),
         emx_gaddr_local(g) == &words[2], (g & EMX_GADDR_LOCAL_MASK) == (uintptr_t)&words[2] >> 2);

  words[1] = 1234;
  const unsigned before = emx_rtag(&words[1]);
  emx_wtag(&words[1], 0x2a);
  const unsigned after = emx_rtag(&words[1]);
  emx_wtag(&words[1], 0xff);
  printf("tags: %u %u %u (6 bits), data kept %u\n", before, after, emx_rtag(&words[1]),
         (unsigned)words[1]);

  emx_result("pi", 3.141592653589793);
  emx_result_int("big", -1234567890123LL);
  return 0;
}
