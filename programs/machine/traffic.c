/* Network traffic with end-to-end acknowledgement, for delivery and saturation tests.
 *   machine_traffic pairs        every PE sends one packet to every other PE
 *   machine_traffic random K     every PE sends K packets to pseudo-random PEs, as fast as
 *                                it can (its output queue fills: back-pressure)
 * Every packet invokes a thread on its destination that checks it and acknowledges it;
 * a PE exits once all its packets are acknowledged (and, for pairs, it has heard from
 * every other PE exactly once). Exit code 0 means every packet arrived intact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../micro/micro.h"

static void recv(uint32_t data, uint32_t unused, uint32_t cont);
static void acked(uint32_t data, uint32_t unused, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, recv, acked};
static struct micro_frame frame = {tmpl, {0}};

static unsigned sent, acks, received, pairs_mode, finished;
static uint8_t heard[1024];

static void check_done(void) {
  const unsigned n = emx_pe_count();
  if (finished || acks != sent || (pairs_mode && received != n - 1)) return;
  finished = 1;
  emx_exit(0);
}

/* data = source PE | sequence number << 10 */
static void recv(uint32_t data, uint32_t unused, uint32_t cont) {
  (void)unused;
  const unsigned src = data & 1023;
  if (emx_gaddr_pe(cont) != emx_pe_id() || src >= emx_pe_count()) {
    printf("PE %u: packet with bad continuation 0x%08x or source %u\n", emx_pe_id(),
           (unsigned)cont, src);
    emx_exit(1);
  }
  if (pairs_mode && heard[src]++) {
    printf("PE %u: a second packet from PE %u\n", emx_pe_id(), src);
    emx_exit(1);
  }
  ++received;
  emx_send(EMX_PKT_invoke1, micro_cont(src, &frame, 2), data);
  check_done();
}

static void acked(uint32_t data, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  if ((data & 1023) != emx_pe_id()) {
    printf("PE %u: acknowledgement of a packet from PE %u\n", emx_pe_id(), (unsigned)(data & 1023));
    emx_exit(1);
  }
  ++acks;
  check_done();
}

int main(int argc, char **argv) {
  const unsigned me = emx_pe_id(), n = emx_pe_count();
  if (argc < 2 || (strcmp(argv[1], "pairs") && strcmp(argv[1], "random"))) {
    printf("usage: machine_traffic pairs | random K\n");
    return 2;
  }
  pairs_mode = strcmp(argv[1], "pairs") == 0;
  if (pairs_mode) {
    for (unsigned k = 1; k < n; ++k) {  /* start with the next PE: spread the load */
      const unsigned d = (me + k) % n;
      ++sent;
      emx_send(EMX_PKT_invoke1, micro_cont(d, &frame, 1), me | (k << 10));
    }
  } else {
    const unsigned count = argc > 2 ? (unsigned)atoi(argv[2]) : 100;
    uint32_t x = 2463534242u ^ (me * 2654435761u);
    for (unsigned k = 0; k < count; ++k) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;  /* xorshift */
      ++sent;
      emx_send(EMX_PKT_invoke1, micro_cont(x % n, &frame, 1), me | (k << 10));
    }
  }
  check_done();  /* 1 PE, or nothing to wait for */
  emx_end();
  return 0;
}
