/* I-structures: reads before and after the write, local and remote, blocking and
 * non-blocking; a flag written after block data (emx_iwrite_flag); and many computations
 * waiting at once, each on its own stack, given back afterwards. Needs 2 PEs or more;
 * PEs beyond 1 only take part in the barriers. Prints one line per check. */
#include <emx/emc.h>
#include <stdio.h>

enum { WAITERS = 40, DATA = 64 };
static uint32_t cell[8];             /* I-structure elements (static: tags start clear) */
static uint32_t waiting[WAITERS];    /* one element per waiting computation */
static uint32_t data[DATA];
static uint32_t flag;
static unsigned woken, order_errors;
static unsigned errors;

static void check(const char *what, int ok) {
  printf("PE %u: %s: %s\n", emx_pe_id(), what, ok ? "ok" : "FAILED");
  errors += !ok;
}

/* A computation that waits on its element, then checks it was woken in turn. */
static void waiter(uint32_t *args) {
  const uint32_t k = args[0];
  const uint32_t v = emx_iread(emx_gaddr_mine(&waiting[k]));
  if (v != 1000 + k || woken != WAITERS - 1 - k) ++order_errors;
  ++woken;
}

static void wake_pe1(uint32_t a, uint32_t b, uint32_t c);
EMX_HANDLER_DECLARE(wake_pe1);

static void pe0(void) {
  uint32_t v;
  /* Local: written first, then read (the value is there); read first (a deferred
   * reader), then written by PE 1. */
  emx_iwrite(emx_gaddr_mine(&cell[0]), 11);
  check("local read after write", emx_iread(emx_gaddr_mine(&cell[0])) == 11);
  EMX_INVOKE(1, wake_pe1, 0, 0); /* PE 1 writes cell[1] when it gets this */
  check("local read before remote write", emx_iread(emx_gaddr_mine(&cell[1])) == 22);

  /* Non-blocking: local absent, present (consumed: absent again). */
  check("local try, empty", emx_iread_try(emx_gaddr_mine(&cell[2]), &v) == 0);
  emx_iwrite(emx_gaddr_mine(&cell[2]), 33);
  emx_yield(); /* the write is a packet: let it arrive */
  check("local try, full", emx_iread_try(emx_gaddr_mine(&cell[2]), &v) == 1 && v == 33);
  check("local try, consumed", emx_iread_try(emx_gaddr_mine(&cell[2]), &v) == 0);

  /* Remote elements on PE 1: blocking read of a written one; non-blocking both ways. */
  check("remote read", emx_iread(emx_gaddr(1, &cell[3])) == 44);
  check("remote try, empty", emx_iread_try(emx_gaddr(1, &cell[4]), &v) == 0);
  emx_iwrite(emx_gaddr(1, &cell[4]), 55);
  emx_fence(1);
  check("remote try, full", emx_iread_try(emx_gaddr(1, &cell[4]), &v) == 1 && v == 55);
  check("float element", (emx_iwrite_f32(emx_gaddr(1, &cell[5]), 2.5f),
                          emx_iread_f32(emx_gaddr(1, &cell[5])) == 2.5f));

  /* Data, then flag: PE 1 checks the data once the flag is there. */
  for (unsigned k = 0; k < DATA; ++k) data[k] = 3 * k + 1;
  emx_put(emx_gaddr(1, data), data, DATA);
  emx_iwrite_flag(emx_gaddr(1, &flag), 1);

  /* Many waiters, each blocked on its own stack; woken in reverse order. */
  const unsigned made = emx_stacks_made();
  for (uint32_t k = 0; k < WAITERS; ++k) emx_spawn(0, waiter, &k, 1);
  emx_yield(); /* they all run and block */
  for (uint32_t k = WAITERS; k-- > 0;) emx_iwrite(emx_gaddr_mine(&waiting[k]), 1000 + k);
  while (woken < WAITERS) emx_yield();
  check("40 waiters woken in write order", order_errors == 0);
  printf("PE 0: stacks made for the waiters: %u, free now: %u\n", emx_stacks_made() - made,
         emx_stacks_free());
}

/* PE 0 waits for cell[1] now. */
static void wake_pe1(uint32_t a, uint32_t b, uint32_t c) {
  (void)a, (void)b, (void)c;
  emx_iwrite(emx_gaddr(0, &cell[1]), 22);
}
EMX_HANDLER(wake_pe1);

static void pe1(void) {
  emx_iwrite(emx_gaddr_mine(&cell[3]), 44);
  /* The flag implies the data on every machine variant. */
  const uint32_t f = emx_iread(emx_gaddr_mine(&flag));
  unsigned bad = 0;
  for (unsigned k = 0; k < DATA; ++k) bad += data[k] != 3 * k + 1;
  check("data complete when the flag is set", f == 1 && bad == 0);
}

int main(void) {
  if (emx_pe_count() < 2) {
    printf("needs 2 PEs\n");
    return 2;
  }
  if (emx_pe_id() == 0) pe0();
  if (emx_pe_id() == 1) pe1();
  return (int)emx_sum_i32((int32_t)errors) != 0;
}
