/* Behaviours of the EMC-Y machinery, one per mode (tests/machine checks the outcomes):
 *   match_lr, match_rl  2-input matching with the operands arriving in either order
 *   syswr_during_thread a SYSWR lands on PE 1 while a long thread runs there; the thread
 *                       reads the new value afterwards
 *   burst               PE 0 sends 200 invocations to PE 1 while PE 1 runs a long thread:
 *                       they wait in the input buffer (spilling), then run in FIFO order
 *   backpressure        PE 0 sends 64 packets back to back: its output queue fills and
 *                       the sends stall
 *   bad_pe              a SYSWR to PE 900 (the machine has fewer): an error
 *   deadlock_match      a left operand whose right partner never comes
 *   deadlock_iread      an I-structure read of an element nobody writes
 *   istructure          I-structure read before and after the write, across PEs */
#include <stdio.h>
#include <string.h>

#include "../micro/micro.h"

static void matched(uint32_t left, uint32_t right, uint32_t cont);
static void burst_item(uint32_t seq, uint32_t unused, uint32_t cont);
static void long_thread(uint32_t a0, uint32_t a1, uint32_t cont);
static void got_value(uint32_t value, uint32_t unused, uint32_t cont);
static const emx_thread_fn tmpl[] = {0, matched, burst_item, long_thread, got_value};
static struct micro_frame frame = {tmpl, {0}};

static volatile uint32_t shared_word = 1;
static volatile uint32_t istruct[4];
static unsigned burst_seen, burst_bad;
static unsigned values_seen;

static volatile uint32_t sink;
static void spin(unsigned iterations) {
  for (unsigned k = 0; k < iterations; ++k) sink += k;
}

static void matched(uint32_t left, uint32_t right, uint32_t cont) {
  (void)cont;
  printf("matched left=%u right=%u\n", (unsigned)left, (unsigned)right);
  emx_exit(left == 111 && right == 222 ? 0 : 1);
}

static void long_thread(uint32_t a0, uint32_t a1, uint32_t cont) {
  (void)a0, (void)a1, (void)cont;
  const uint32_t before = shared_word;
  spin(20000);  /* a long strongly connected block: nothing interrupts it */
  const uint32_t after = shared_word;
  printf("PE %u: word was %u at the thread's start, %u at its end\n", emx_pe_id(),
         (unsigned)before, (unsigned)after);
  emx_exit(before == 1 && after == 7 ? 0 : 1);
}

static void burst_item(uint32_t seq, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  if (seq != burst_seen) ++burst_bad;  /* FIFO: threads start in arrival order */
  if (++burst_seen == 200) {
    printf("PE 1: 200 threads ran, %u out of order\n", burst_bad);
    emx_exit(burst_bad ? 1 : 0);
  }
}

static void got_value(uint32_t value, uint32_t unused, uint32_t cont) {
  (void)unused, (void)cont;
  printf("PE %u: I-structure value %u\n", emx_pe_id(), (unsigned)value);
  if (++values_seen == 2) emx_exit(0);
}

int main(int argc, char **argv) {
  const unsigned me = emx_pe_id();
  const char *mode = argc > 1 ? argv[1] : "";
  const emx_gaddr_t slot = micro_cont(0, &frame, 1);
  if (!strcmp(mode, "match_lr") || !strcmp(mode, "match_rl")) {
    if (me != 0) return 0;
    /* The first operand waits in the slot while we spin. */
    if (!strcmp(mode, "match_lr")) {
      emx_send(EMX_PKT_invoke2l, slot, 111);
      spin(50);
      emx_send(EMX_PKT_invoke2r, slot, 222);
    } else {
      emx_send(EMX_PKT_invoke2r, slot, 222);
      spin(50);
      emx_send(EMX_PKT_invoke2l, slot, 111);
    }
  } else if (!strcmp(mode, "syswr_during_thread")) {
    if (me == 1) long_thread(0, 0, 0);
    if (me != 0) return 0;
    spin(100);
    emx_send(EMX_PKT_syswr, emx_gaddr(1, &shared_word), 7);
    return 0;
  } else if (!strcmp(mode, "burst")) {
    if (me == 1) {
      spin(20000);  /* the invocations pile up meanwhile */
      emx_end();
    }
    if (me != 0) return 0;
    for (uint32_t k = 0; k < 200; ++k) emx_send(EMX_PKT_invoke1, micro_cont(1, &frame, 2), k);
    return 0;
  } else if (!strcmp(mode, "backpressure")) {
    if (me != 0) return 0;
    /* Back-to-back sends, one per clock: faster than a link drains (2 clocks a packet). */
    const emx_gaddr_t far = emx_gaddr(emx_pe_count() / 2, &shared_word);
#define SEND4 emx_send(EMX_PKT_syswr, far, 1); emx_send(EMX_PKT_syswr, far, 2); \
              emx_send(EMX_PKT_syswr, far, 3); emx_send(EMX_PKT_syswr, far, 4)
    for (unsigned k = 0; k < 8; ++k) {
      SEND4; SEND4;
    }
    return 0;
  } else if (!strcmp(mode, "backpressure_bad_pe")) {
    /* Stalled sends (they float: the stall is taken later), then a fault: the report
     * must give the clock after the stalls. */
    if (me != 0) return 0;
    const emx_gaddr_t far = emx_gaddr(emx_pe_count() / 2, &shared_word);
    for (unsigned k = 0; k < 8; ++k) {
      SEND4; SEND4;
    }
    emx_send(EMX_PKT_syswr, emx_gaddr(900, &shared_word), 1);
    return 0;
  } else if (!strcmp(mode, "bad_pe")) {
    if (me != 0) return 0;
    emx_send(EMX_PKT_syswr, emx_gaddr(900, &shared_word), 1);
    return 0;
  } else if (!strcmp(mode, "deadlock_match")) {
    if (me != 0) return 0;
    emx_send(EMX_PKT_invoke2l, slot, 1);
  } else if (!strcmp(mode, "deadlock_iread")) {
    if (me != 0) return 0;
    emx_send(EMX_PKT_iread, emx_gaddr(1, &istruct[0]), micro_cont(0, &frame, 4));
  } else if (!strcmp(mode, "istructure")) {
    if (me == 1) {  /* a write to PE 0's element 0, after PE 0's read is deferred */
      spin(200);
      emx_send(EMX_PKT_iwrite, emx_gaddr(0, &istruct[0]), 5);
      emx_send(EMX_PKT_iwrite, emx_gaddr(0, &istruct[1]), 6);
      return 0;
    }
    if (me != 0) return 0;
    emx_send(EMX_PKT_iread, emx_gaddr(0, &istruct[0]), micro_cont(0, &frame, 4));  /* early */
    spin(2000);
    emx_send(EMX_PKT_iread, emx_gaddr(0, &istruct[1]), micro_cont(0, &frame, 4));  /* late */
  } else {
    printf("usage: machine_checks MODE (see the source)\n");
    return 2;
  }
  emx_end();
  return 0;
}
