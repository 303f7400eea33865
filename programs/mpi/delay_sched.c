/* Irregular many-to-many communication by delay insertion (docs/experiments/delay-insertion.md):
 * executes a communication schedule with persistent requests, or the same pattern with an
 * MPI collective, and times it.
 *
 *   mpi_delay_sched MODE SCHEDULE BYTES DELTA [REPS [SKEW]]
 *
 * SCHEDULE  one list per rank, separated by '/': the destinations of the rank's sends in
 *           schedule order, separated by ','; '-' is a delay slot. The pattern is the set of
 *           arcs (rank, destination). python/emx/delay writes it (schedule_text).
 * MODE      sched: the paper's execution scheme. Send_init for every send in schedule
 *           order, Recv_init for every incoming arc, then per repetition: Startall of the
 *           receives (posted in advance, so every send is one remote write), Barrier and
 *           the common start (common_start), the schedule's entries in order (a run of
 *           sends = one Startall, a delay = idle for DELTA clocks, emx_delay), Waitall.
 *           bcast, scatter, gather, allgather, alltoall, alltoallv: the MPI collective for
 *           the pattern (the root of bcast/scatter is the one sender, of gather the one
 *           receiver; alltoallv sends BYTES along every arc, 0 elsewhere).
 * BYTES     message size k (MPI_BYTE).
 * DELTA     the delay: N (clocks) or Fi (F times I(k): how long MPI_Start of one k-byte send
 *           from rank 0 to rank 1 takes on the idle machine, measured first).
 * REPS      repetitions (default 3); the first warms up the free lists and is not timed.
 * SKEW      clocks: before each barrier rank r idles (r x 7919 mod 13) x SKEW clocks more
 *           (default 0), so that the ranks reach it in another order; the figures do not
 *           change (tests/delay checks that the timed part does not depend on it).
 *
 * Every message has its own content (source, destination, repetition, byte index); every
 * receive buffer is checked after every timed repetition.
 * Results: makespan_cycles (the last repetition: latest end of Waitall or the collective
 * over all ranks, minus the common start: every rank starts the timed part at one clock,
 * common_start), makespan_min_cycles (over
 * timed repetitions), slot_cycles (I(k)), delta_cycles, messages, errors (bytes wrong,
 * over all ranks and repetitions; 0 in a correct run). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emx/emc.h>

#include "common_start.h"

enum { TAG = 7 };

static unsigned char content(int src, int dst, int rep, int i) {
  return (unsigned char)(src * 31 + dst * 17 + rep * 101 + i * 7 + (i >> 8));
}

/* Filling and checking are not timed, but they touch every byte of every message twice a
 * repetition, which on 64 ranks of 63 messages was most of the simulated instructions.
 * So they go a word at a time (where the buffer is aligned). In the 256-byte block q of a
 * message, content() is c + 7 j at offset j (c = its byte 0 + q: 7 x 256 vanishes mod 256),
 * so a block's first word is the splat of c plus 0, 7, 14, 21 and each next word adds 28
 * to every byte. Bytes are added lane by lane: the low 7 bits of each by one add, the top
 * bits by XOR, so no carry crosses into the next byte. */
static uint32_t lanes_add(uint32_t w, uint32_t lanes) {
  return ((w & 0x7f7f7f7fu) + (lanes & 0x7f7f7f7fu)) ^ ((w ^ lanes) & 0x80808080u);
}

enum { BLOCK_WORDS = 64 };

/* The first word of block q of a message whose byte 0 is base. */
static uint32_t block_word(unsigned base, int q) {
  return lanes_add(((base + q) & 0xffu) * 0x01010101u, 0x150E0700u);
}

static unsigned char content_at(unsigned base, int i) {
  return (unsigned char)(base + i * 7 + (i >> 8));
}

/* The message src -> dst of repetition rep into buf. */
static void fill(unsigned char *buf, int bytes, int src, int dst, int rep) {
  const unsigned base = content(src, dst, rep, 0);
  int i = 0;
  if (((uintptr_t)buf & 3) == 0) {
    uint32_t *w = (uint32_t *)buf, *const end = w + (bytes >> 2);
    for (int q = 0; w < end; ++q) {
      uint32_t *const block_end = end - w > BLOCK_WORDS ? w + BLOCK_WORDS : end;
      for (uint32_t v = block_word(base, q); w < block_end; ++w, v = lanes_add(v, 0x1C1C1C1Cu))
        *w = v;
    }
    i = bytes & ~3;
  }
  for (; i < bytes; ++i) buf[i] = content_at(base, i);
}

/* The bytes of buf that differ from that message (counted a byte at a time only when a
 * word differs). */
static int wrong_bytes(const unsigned char *buf, int bytes, int src, int dst, int rep) {
  const unsigned base = content(src, dst, rep, 0);
  int i = 0, wrong = 0;
  if (((uintptr_t)buf & 3) == 0) {
    const uint32_t *w = (const uint32_t *)buf, *const end = w + (bytes >> 2);
    uint32_t diff = 0;
    for (int q = 0; w < end; ++q) {
      const uint32_t *const block_end = end - w > BLOCK_WORDS ? w + BLOCK_WORDS : end;
      for (uint32_t v = block_word(base, q); w < block_end; ++w, v = lanes_add(v, 0x1C1C1C1Cu))
        diff |= *w ^ v;
    }
    if (!diff) i = bytes & ~3;
  }
  for (; i < bytes; ++i) wrong += buf[i] != content_at(base, i);
  return wrong;
}

static void fail(int me, const char *what) {
  printf("mpi_delay_sched (rank %d): %s\n", me, what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The entries of the list that starts at s (rank r's): destination, or -1 for a delay.
 * Returns the count; checks every destination; counts in *to_me (if given) the entries
 * that are `me`; sets *next to the next list, NULL after the last (fewer lists than
 * ranks: the rest send nothing). */
static int parse_list(const char *s, int r, int n, int *out, int me, int *to_me,
                      const char **next) {
  int count = 0;
  while (*s && *s != '/') {
    if (*s == ',') { ++s; continue; }
    if (*s == '-') {
      if (out) out[count] = -1;
      ++count;
      ++s;
      continue;
    }
    /* A decimal destination (strtol, general, costs the PE several times more). */
    int d = 0;
    const char *digits = s;
    for (; *s >= '0' && *s <= '9'; ++s)
      if (d <= n) d = d * 10 + (*s - '0');
    if (s == digits || d >= n || d == r) {
      char msg[96];
      snprintf(msg, sizeof msg, "bad destination in the list of rank %d (%d ranks)", r, n);
      fail(me, msg);
    }
    if (out) out[count] = d;
    if (to_me) *to_me += d == me;
    ++count;
  }
  if (next) *next = *s ? s + 1 : NULL;
  return count;
}

typedef struct {
  int n, me, bytes;
  int *entries, nentries;   /* my list */
  int *sends, nsends;       /* my destinations in order */
  int *srcs, nrecvs;        /* the ranks that send to me, ascending */
  unsigned char **sbuf, **rbuf;
} Plan;

static void build_plan(Plan *p, const char *sched) {
  /* Every rank's list, walking along the text once (64 ranks of 63 destinations are a
   * 12 KB text): mine, and who sends to me. */
  const char *mine = NULL, *list = sched;
  p->srcs = malloc((size_t)p->n * sizeof *p->srcs);
  p->nrecvs = 0;
  for (int r = 0; r < p->n && list; ++r) {
    if (r == p->me) mine = list;
    int hits = 0;
    parse_list(list, r, p->n, NULL, p->me, &hits, &list);
    if (hits > 1) fail(p->me, "a rank sends to the same destination twice");
    if (hits) p->srcs[p->nrecvs++] = r;
  }
  p->nentries = mine ? parse_list(mine, p->me, p->n, NULL, p->me, NULL, NULL) : 0;
  p->entries = malloc((p->nentries + 1) * sizeof *p->entries);
  if (mine) parse_list(mine, p->me, p->n, p->entries, p->me, NULL, NULL);
  p->sends = malloc((p->nentries + 1) * sizeof *p->sends);
  p->nsends = 0;
  for (int k = 0; k < p->nentries; ++k)
    if (p->entries[k] >= 0) p->sends[p->nsends++] = p->entries[k];
  p->sbuf = malloc((p->nsends + 1) * sizeof *p->sbuf);
  p->rbuf = malloc((p->nrecvs + 1) * sizeof *p->rbuf);
  const int b = p->bytes > 0 ? p->bytes : 1;
  for (int k = 0; k < p->nsends; ++k) p->sbuf[k] = malloc(b);
  for (int k = 0; k < p->nrecvs; ++k) p->rbuf[k] = malloc(b);
  for (int k = 0; k < p->nsends; ++k)
    if (!p->sbuf[k]) fail(p->me, "no memory for the send buffers");
  for (int k = 0; k < p->nrecvs; ++k)
    if (!p->rbuf[k]) fail(p->me, "no memory for the receive buffers");
}

static void fill_sends(const Plan *p, int rep) {
  for (int k = 0; k < p->nsends; ++k)
    fill(p->sbuf[k], p->bytes, p->me, p->sends[k], rep);
}

static long long check_recvs(const Plan *p, int rep) {
  long long wrong = 0;
  for (int k = 0; k < p->nrecvs; ++k)
    wrong += wrong_bytes(p->rbuf[k], p->bytes, p->srcs[k], p->me, rep);
  for (int k = 0; k < p->nrecvs; ++k) memset(p->rbuf[k], 0xee, p->bytes);
  return wrong;
}

/* ---- The start of the timed part --------------------------------------------------------- */

/* ---- The schedule with persistent requests ---------------------------------------- */

typedef struct {
  MPI_Request *sreq, *rreq, *all;
} Requests;

static void init_requests(const Plan *p, Requests *q) {
  q->sreq = malloc((p->nsends + 1) * sizeof *q->sreq);
  q->rreq = malloc((p->nrecvs + 1) * sizeof *q->rreq);
  q->all = malloc((p->nsends + p->nrecvs + 1) * sizeof *q->all);
  for (int k = 0; k < p->nsends; ++k)
    MPI_Send_init(p->sbuf[k], p->bytes, MPI_BYTE, p->sends[k], TAG, MPI_COMM_WORLD, &q->sreq[k]);
  for (int k = 0; k < p->nrecvs; ++k)
    MPI_Recv_init(p->rbuf[k], p->bytes, MPI_BYTE, p->srcs[k], TAG, MPI_COMM_WORLD, &q->rreq[k]);
}

/* One execution of my list. */
static void run_schedule(const Plan *p, Requests *q, uint32_t delta) {
  int s = 0;
  for (int k = 0; k < p->nentries;) {
    if (p->entries[k] < 0) {
      emx_delay(delta);
      ++k;
      continue;
    }
    int run = 0;
    while (k + run < p->nentries && p->entries[k + run] >= 0) ++run;
    MPI_Startall(run, &q->sreq[s]);
    s += run;
    k += run;
  }
  for (int k = 0; k < p->nsends; ++k) q->all[k] = q->sreq[k];
  for (int k = 0; k < p->nrecvs; ++k) q->all[p->nsends + k] = q->rreq[k];
  MPI_Waitall(p->nsends + p->nrecvs, q->all, MPI_STATUSES_IGNORE);
}

/* I(k) on an idle machine: the second of two MPI_Starts of a k-byte send from rank 0 to
 * rank 1 (receive posted in advance), nothing else in flight; every rank gets it. */
static uint64_t measure_slot(const Plan *p) {
  uint64_t slot = 0;
  if (p->n < 2) return 0;
  unsigned char *buf = malloc(p->bytes > 0 ? p->bytes : 1);
  if (!buf) fail(p->me, "no memory for the calibration buffer");
  memset(buf, 0, p->bytes > 0 ? p->bytes : 1);
  MPI_Request r;
  if (p->me == 0) MPI_Send_init(buf, p->bytes, MPI_BYTE, 1, TAG + 1, MPI_COMM_WORLD, &r);
  if (p->me == 1) MPI_Recv_init(buf, p->bytes, MPI_BYTE, 0, TAG + 1, MPI_COMM_WORLD, &r);
  for (int k = 0; k < 2; ++k) {
    if (p->me == 1) MPI_Start(&r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (p->me == 0) {
      const uint64_t t = emx_cycles();
      MPI_Start(&r);
      slot = emx_cycles() - t;
    }
    if (p->me <= 1) MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  if (p->me <= 1) MPI_Request_free(&r);
  free(buf);
  long long s = (long long)slot;
  MPI_Bcast(&s, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return (uint64_t)s;
}

/* ---- Collectives ---------------------------------------------------------------------- */

typedef enum { M_SCHED, M_BCAST, M_SCATTER, M_GATHER, M_ALLGATHER, M_ALLTOALL, M_ALLTOALLV } Mode;

typedef struct {
  int root;
  unsigned char *sendbuf, *recvbuf; /* n blocks of `bytes` */
  int *scount, *sdisp, *rcount, *rdisp;
} Coll;

/* The root of a one-to-all (the one rank with sends) or all-to-one pattern. */
static int find_root(const Plan *p, Mode m) {
  int root = -1, mine = m == M_GATHER ? p->nrecvs > 0 : p->nsends > 0, r;
  r = mine ? p->me : -1;
  MPI_Allreduce(&r, &root, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (root < 0) fail(p->me, "the pattern has no root for this collective");
  return root;
}

static void coll_setup(const Plan *p, Mode m, Coll *c) {
  const int n = p->n, b = p->bytes;
  c->root = (m == M_BCAST || m == M_SCATTER || m == M_GATHER) ? find_root(p, m) : 0;
  c->sendbuf = malloc((size_t)n * b + 1);
  c->recvbuf = malloc((size_t)n * b + 1);
  c->scount = calloc(n, sizeof(int));
  c->sdisp = calloc(n, sizeof(int));
  c->rcount = calloc(n, sizeof(int));
  c->rdisp = calloc(n, sizeof(int));
  if (!c->sendbuf || !c->recvbuf) fail(p->me, "no memory for the collective's buffers");
  for (int k = 0; k < n; ++k) c->sdisp[k] = c->rdisp[k] = k * b;
  for (int k = 0; k < p->nsends; ++k) c->scount[p->sends[k]] = b;
  for (int k = 0; k < p->nrecvs; ++k) c->rcount[p->srcs[k]] = b;
}

/* Block d of the send buffer holds my message to d (the same message to all for bcast
 * and allgather: their content is that of the message to rank 0... any fixed one). */
static void coll_fill(const Plan *p, Mode m, Coll *c, int rep) {
  for (int d = 0; d < p->n; ++d) {
    const int as = (m == M_BCAST || m == M_ALLGATHER) ? 0 : d;
    fill(c->sendbuf + (size_t)d * p->bytes, p->bytes, p->me, as, rep);
  }
  memset(c->recvbuf, 0xee, (size_t)p->n * p->bytes);
}

static void coll_run(const Plan *p, Mode m, Coll *c) {
  const int b = p->bytes;
  unsigned char *mine = c->sendbuf + (size_t)p->me * b;
  switch (m) {
    case M_BCAST:
      if (p->me == c->root) memcpy(c->recvbuf, c->sendbuf, b);
      MPI_Bcast(c->recvbuf, b, MPI_BYTE, c->root, MPI_COMM_WORLD);
      break;
    case M_SCATTER:
      MPI_Scatter(c->sendbuf, b, MPI_BYTE, c->recvbuf, b, MPI_BYTE, c->root, MPI_COMM_WORLD);
      break;
    case M_GATHER:
      MPI_Gather(c->sendbuf + (size_t)c->root * b, b, MPI_BYTE, c->recvbuf, b, MPI_BYTE, c->root,
                 MPI_COMM_WORLD);
      break;
    case M_ALLGATHER:
      MPI_Allgather(mine, b, MPI_BYTE, c->recvbuf, b, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case M_ALLTOALL:
      MPI_Alltoall(c->sendbuf, b, MPI_BYTE, c->recvbuf, b, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case M_ALLTOALLV:
      MPI_Alltoallv(c->sendbuf, c->scount, c->sdisp, MPI_BYTE, c->recvbuf, c->rcount, c->rdisp,
                    MPI_BYTE, MPI_COMM_WORLD);
      break;
    case M_SCHED:
      break;
  }
}

/* The bytes that are wrong in what the pattern delivers to me. */
static long long coll_check(const Plan *p, Mode m, const Coll *c, int rep) {
  long long wrong = 0;
  const int b = p->bytes;
  for (int k = 0; k < p->nrecvs; ++k) {
    const int src = p->srcs[k];
    const unsigned char *got = m == M_BCAST || m == M_SCATTER ? c->recvbuf : c->recvbuf + (size_t)src * b;
    const int as = (m == M_BCAST || m == M_ALLGATHER) ? 0 : p->me;
    wrong += wrong_bytes(got, b, src, as, rep);
  }
  return wrong;
}

static Mode parse_mode(const char *s, int me) {
  static const char *const names[] = {"sched", "bcast", "scatter", "gather", "allgather",
                                      "alltoall", "alltoallv"};
  for (int k = 0; k < 7; ++k)
    if (strcmp(s, names[k]) == 0) return (Mode)k;
  fail(me, "MODE must be sched, bcast, scatter, gather, allgather, alltoall or alltoallv");
  return M_SCHED;
}

static long long max_ll(long long v) {
  long long r;
  MPI_Allreduce(&v, &r, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return r;
}
static long long sum_ll(long long v) {
  long long r;
  MPI_Allreduce(&v, &r, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Plan p;
  MPI_Comm_rank(MPI_COMM_WORLD, &p.me);
  MPI_Comm_size(MPI_COMM_WORLD, &p.n);
  if (argc < 5) fail(p.me, "usage: mpi_delay_sched MODE SCHEDULE BYTES DELTA [REPS [SKEW]]");
  const Mode mode = parse_mode(argv[1], p.me);
  p.bytes = atoi(argv[3]);
  if (p.bytes < 0) fail(p.me, "BYTES must be 0 or more");
  const char *delta_arg = argv[4];
  const size_t dl = strlen(delta_arg);
  const int delta_in_slots = dl > 0 && delta_arg[dl - 1] == 'i';
  /* F (times I(k)) in thousandths, or clocks: no floating-point parsing needed. */
  long delta_milli = 0;
  {
    const char *s = delta_arg;
    long whole = strtol(s, (char **)&s, 10), frac = 0, scale = 1000;
    if (*s == '.')
      for (++s; *s >= '0' && *s <= '9'; ++s) frac += (*s - '0') * (scale /= 10);
    if (whole < 0 || (*s && !(delta_in_slots && *s == 'i' && s[1] == 0)))
      fail(p.me, "DELTA must be a number of clocks (300) or of slots I(k) (0.75i)");
    delta_milli = whole * 1000 + frac;
  }
  const int reps = argc > 5 ? atoi(argv[5]) : 3;
  if (reps < 2) fail(p.me, "REPS must be 2 or more (the first is not timed)");
  const int skew = argc > 6 ? atoi(argv[6]) : 0;
  if (skew < 0) fail(p.me, "SKEW must be 0 or more");
  build_plan(&p, argv[2]);

  Requests q = {0};
  Coll c = {0};
  if (mode == M_SCHED) init_requests(&p, &q);
  else coll_setup(&p, mode, &c);

  long long wrong = 0, best = -1, last = 0;
  const uint64_t slot = measure_slot(&p);
  const uint32_t delta = delta_in_slots ? (uint32_t)((slot * (uint64_t)delta_milli + 500) / 1000)
                                        : (uint32_t)(delta_milli / 1000);
  for (int rep = 0; rep < reps; ++rep) {
    if (mode == M_SCHED) {
      fill_sends(&p, rep);
      MPI_Startall(p.nrecvs, q.rreq);
    } else {
      coll_fill(&p, mode, &c, rep);
    }
    if (skew) emx_delay((uint32_t)((p.me * 7919 % 13) * skew));
    const uint64_t t0 = common_start("mpi_delay_sched", p.me);
    if (mode == M_SCHED) run_schedule(&p, &q, delta);
    else coll_run(&p, mode, &c);
    const uint64_t t1 = emx_cycles();
    wrong += mode == M_SCHED ? check_recvs(&p, rep) : coll_check(&p, mode, &c, rep);
    const long long span = max_ll((long long)t1) - (long long)t0;
    if (rep == 0) continue;
    last = span;
    if (best < 0 || span < best) best = span;
  }
  wrong = sum_ll(wrong);
  const long long messages = sum_ll(p.nsends);
  if (p.me == 0) {
    emx_result_int("makespan_cycles", last);
    emx_result_int("makespan_min_cycles", best);
    emx_result_int("slot_cycles", (long long)slot);
    emx_result_int("delta_cycles", (long long)delta);
    emx_result_int("messages", messages);
    emx_result_int("errors", wrong);
    printf("%s: %lld messages of %d B, makespan %lld clocks, I(k) %llu, delta %u, %lld bytes wrong\n",
           argv[1], messages, p.bytes, last, (unsigned long long)slot, (unsigned)delta, wrong);
  }
  if (mode == M_SCHED) {
    for (int k = 0; k < p.nsends; ++k) MPI_Request_free(&q.sreq[k]);
    for (int k = 0; k < p.nrecvs; ++k) MPI_Request_free(&q.rreq[k]);
  }
  MPI_Finalize();
  return wrong ? 1 : 0;
}
