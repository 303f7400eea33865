/* OMPL: puts and gets at every alignment (guard bytes must not change); a stream of
 * puts each followed by a flag, with a checker on the receiver that would see a flag
 * overtaking its data (partial words go through handler threads, the flag must queue
 * behind them), also when the data went to a third PE; many tasks per PE exchanging
 * through flags at once. Needs 3 PEs. */
#include <emx/bytes.h>
#include <ompl.h>
#include <string.h>

#include "common.h"

enum { AREA = 8192, GUARD = 5 };
static uint8_t area[AREA] __attribute__((aligned(8)));

static uint8_t pattern(unsigned seed, unsigned i) { return (uint8_t)(seed * 53 + i * 13 + 7); }

/* ---- Every alignment: rank 0 puts to rank 1, gets it back ---- */
static void alignments(void) {
  static const unsigned sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 64, 301, 2000, 6000};
  static uint8_t src[6100], back[6100 + 2 * GUARD]; /* 6000: paced on EM-X' and EM-4 */
  int bad = 0, cases = 0;
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; ++k)
    for (unsigned a = 0; a < 16; ++a) {
      const unsigned n = sizes[k], sa = a & 3, da = a >> 2, at = 64 + da;
      for (unsigned i = 0; i < n; ++i) src[sa + i] = pattern(a + k, i);
      ompl_put(src + sa, 1, &area[at], n);
      memset(back, 0xee, sizeof back);
      /* The get is behind the put on the same path, but the partial words are handler
       * threads: fence first, as a flag would. */
      emx_fence_bytes(1);
      ompl_get(&area[at - GUARD], 1, back + (3 - sa), n + 2 * GUARD);
      for (unsigned i = 0; i < n + 2 * GUARD; ++i) {
        const uint8_t want = i < GUARD || i >= n + GUARD ? 0 : pattern(a + k, i - GUARD);
        bad += back[3 - sa + i] != want;
      }
      static uint8_t zero[6100];
      ompl_put(zero, 1, &area[at - GUARD], n + 2 * GUARD);
      ++cases;
    }
  CHECK(!bad, "%d bytes wrong over %d put/get cases", bad, cases);
  printf("put and get at every alignment (%d cases): %s\n", cases, bad ? "FAILED" : "ok");
}

/* ---- Flags after data: rank 0 streams to rank 1 (and through rank 2) ---- */
enum { ROUNDS = 60, WINDOW = 4, SLOT = 1024 };
static uint32_t ready, ack, via_ready;

static unsigned round_size(unsigned r) { return 3 + (r * 389) % (SLOT - 8); }

static void stream_send(void) {
  static uint8_t buf[SLOT + 4];
  for (unsigned r = 0; r < ROUNDS; ++r) {
    if (r >= WINDOW) ompl_wait(&ack);
    const unsigned n = round_size(r), off = r % 3;
    for (unsigned i = 0; i < n; ++i) buf[off + i] = pattern(r, i);
    const unsigned at = 16 + (r % WINDOW) * SLOT + (r % 4);
    /* Odd rounds: the data to rank 2, the flag to rank 1, which reads rank 2. */
    ompl_put(buf + off, r & 1 ? 2 : 1, &area[at], n);
    ompl_put_word(1, r & 1 ? &via_ready : &ready);
  }
}

static void stream_check(void) {
  static uint8_t got[SLOT];
  int bad = 0;
  for (unsigned r = 0; r < ROUNDS; ++r) {
    const unsigned n = round_size(r), at = 16 + (r % WINDOW) * SLOT + (r % 4);
    const uint8_t *data = &area[at];
    if (r & 1) {
      ompl_wait(&via_ready);
      ompl_get(&area[at], 2, got, n);
      data = got;
    } else {
      ompl_wait(&ready);
    }
    for (unsigned i = 0; i < n; ++i) bad += data[i] != pattern(r, i);
    ompl_put_word(0, &ack);
  }
  CHECK(!bad, "%d bytes seen before their flag's data", bad);
  printf("flags after data, %d rounds: %s\n", ROUNDS, bad ? "FAILED" : "ok");
}

/* ---- Many tasks per PE: T pairs ping-pong at once, each with its own flags ---- */
enum { TASKS = 16, HOPS = 10, MSG = 40 };
static uint32_t task_flag[TASKS];
static uint8_t task_buf[TASKS][MSG];
static emx_sync_t tasks_done;
static int task_bad;

static void task(uint32_t *args) {
  const unsigned t = args[0], me = emx_pe_id(), peer = 1 - me;
  uint8_t msg[MSG];
  for (unsigned h = 0; h < HOPS; ++h) {
    if ((h & 1) == me) {
      for (unsigned i = 0; i < MSG; ++i) msg[i] = pattern(t * 100 + h, i);
      ompl_put(msg, (int)peer, task_buf[t], MSG);
      ompl_put_word((int)peer, &task_flag[t]);
    } else {
      ompl_wait(&task_flag[t]);
      for (unsigned i = 0; i < MSG; ++i) task_bad += task_buf[t][i] != pattern(t * 100 + h, i);
    }
  }
  emx_sync_done(&tasks_done);
}

static void many_tasks(void) {
  emx_sync_init(&tasks_done, TASKS);
  for (uint32_t t = 0; t < TASKS; ++t) emx_spawn(emx_pe_id(), task, &t, 1);
  emx_sync_wait(&tasks_done);
  CHECK(!task_bad, "%d bytes wrong in task ping-pongs", task_bad);
  if (emx_pe_id() == 0) printf("%d task pairs at once: %s\n", TASKS, task_bad ? "FAILED" : "ok");
}

int main(void) {
  ompl_init();
  const unsigned me = (unsigned)ompl_rank();
  if (me == 0) alignments();
  emx_barrier();
  if (me == 0) stream_send();
  if (me == 1) stream_check();
  /* Rank 2 is busy in one long thread meanwhile: the byte-handler threads of the data
   * sent to it wait in its queue while its memory unit would already serve reads, so
   * a flag not fenced behind them would let rank 1 read stale partial words. */
  if (me == 2)
    for (const uint64_t until = emx_cycles() + 200000; emx_cycles() < until;) continue;
  emx_barrier();
  if (me < 2) many_tasks();
  emx_barrier();
  /* ompl_poll: a signal counted before anyone waits is taken without blocking. */
  static uint32_t pflag;
  if (me == 2) ompl_put_word(0, &pflag), ompl_put_word(0, &pflag);
  emx_barrier();
  if (me == 0) {
    const int a = ompl_poll(&pflag), b = ompl_poll(&pflag), c = ompl_poll(&pflag);
    CHECK(a == 1 && b == 1 && c == 0, "poll gave %d %d %d", a, b, c);
  }
  ompl_finalize();
  return report("ompl");
}
