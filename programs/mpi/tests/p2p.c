/* Point-to-point tests of MPI-EMX (tests/mpi/test_mpi.py runs them for every variant).
 *
 *   mpi_t_p2p [threads T] TEST... [-mpi-matching=...] [-mpi-protocol=...]
 *
 * TEST: order wildcard holdback alternate simultaneous unexpected sizes completion free persistent
 * procnull status self ssend, or all (those 14); comms (communicators made at once, below).
 * Each prints "TEST: ok" on rank 0. Ranks talk in a ring (rank r sends to r + 1), so any
 * number of ranks works, 1 included (to itself).
 *
 * With "threads T" the program calls MPI_Init_thread(MPI_THREAD_MULTIPLE) and T
 * computations of every rank run the tests at once, each on its own duplicate of
 * MPI_COMM_WORLD, made before they start: MPI matches by communicator, source and tag
 * only, so the wildcard receives of two computations on one communicator would take each
 * other's messages (and their barriers would be collectives of one communicator from two
 * computations at once, which MPI forbids). Each computation keeps its own state (ranks,
 * random seed, failures, buffers); rank 0 prints "TEST: ok" once all of them have run
 * TEST and none of any rank failed. */
#include <emx/emc.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAX_T = 8, MAX_RUNS = 64 };

/* One computation's view: its communicator (and a one-rank one for "self"), its rank
 * there and ring neighbours, its random sequence, its checks and, under "threads", the
 * failures of every rank per test run. */
typedef struct {
  MPI_Comm comm, self;
  int me, size, next, prev, t;
  unsigned seed;
  checks ck;
  int failed[MAX_RUNS];
} suite;

#define CHECK(...) check_in(&c->ck, __VA_ARGS__)

/* ---- Pairwise order, two tags interleaved, receives posted early and late ---------- */
static void test_order(suite *c) {
  enum { N = 40 };
  int out[N], in[N];
  MPI_Request s[N], r[N];
  for (int k = 0; k < N; ++k) out[k] = c->me * 1000 + k;
  /* Half the tag-1 receives are posted before the sends start. */
  for (int k = 0; k < N / 2; k += 2) MPI_Irecv(&in[k], 1, MPI_INT, c->prev, 1, c->comm, &r[k]);
  MPI_Barrier(c->comm);
  for (int k = 0; k < N; ++k) {
    MPI_Isend(&out[k], 1, MPI_INT, c->next, 1 + k % 2, c->comm, &s[k]);
    if (rnd(&c->seed) % 4 == 0) spin(rnd(&c->seed) % 400);
  }
  /* Then every tag-2 message, then the remaining tag-1 ones. */
  for (int k = 1; k < N; k += 2) {
    MPI_Irecv(&in[k], 1, MPI_INT, c->prev, 2, c->comm, &r[k]);
    if (rnd(&c->seed) % 3 == 0) spin(rnd(&c->seed) % 300);
  }
  for (int k = N / 2; k < N; k += 2) MPI_Irecv(&in[k], 1, MPI_INT, c->prev, 1, c->comm, &r[k]);
  MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
  for (int k = 0; k < N; ++k)
    CHECK(in[k] == c->prev * 1000 + k, "order: message %d is %d, not %d", k, in[k],
          c->prev * 1000 + k);
}

/* ---- Wildcard source and tag ------------------------------------------------------------ */
static void test_wildcard(suite *c) {
  /* Rank 0 gets one message from every rank (itself included) by MPI_ANY_SOURCE, tags
   * by MPI_ANY_TAG, and checks that the status names them. */
  int v = c->me * 7 + 1;
  MPI_Request s;
  MPI_Isend(&v, 1, MPI_INT, 0, 10 + c->me, c->comm, &s);
  if (c->me == 0) {
    char *seen = calloc(c->size, 1);
    for (int k = 0; k < c->size; ++k) {
      int got;
      MPI_Status st;
      MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c->comm, &st);
      const int src = st.MPI_SOURCE;
      if (CHECK(src >= 0 && src < c->size && !seen[src], "wildcard: source %d twice or invalid",
                src)) {
        seen[src] = 1;
        CHECK(got == src * 7 + 1 && st.MPI_TAG == 10 + src, "wildcard: from %d got %d tag %d", src,
              got, st.MPI_TAG);
      }
    }
    free(seen);
  }
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Barrier(c->comm);
  /* Specific source, any tag, in order among tags. */
  int a = c->me, b = -c->me;
  MPI_Request rs[2];
  MPI_Isend(&a, 1, MPI_INT, c->next, 5, c->comm, &rs[0]);
  MPI_Isend(&b, 1, MPI_INT, c->next, 6, c->comm, &rs[1]);
  int x, y;
  MPI_Status sx, sy;
  MPI_Recv(&x, 1, MPI_INT, c->prev, MPI_ANY_TAG, c->comm, &sx);
  MPI_Recv(&y, 1, MPI_INT, c->prev, MPI_ANY_TAG, c->comm, &sy);
  CHECK(x == c->prev && sx.MPI_TAG == 5 && y == -c->prev && sy.MPI_TAG == 6,
        "wildcard: any tag got %d/%d then %d/%d", x, sx.MPI_TAG, y, sy.MPI_TAG);
  MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
}

/* ---- The held-back receive requests ----------------------------------------------------- */
/* Rank 0 posts a wildcard-source receive, then receives from rank 1 with the same tag.
 * Rank 1 sends two messages. The first must go to the wildcard receive (posted first):
 * had the second receive's request reached rank 1, rank 1 would have matched it there.
 * Repeated with the specific receive posted before, between and after the wildcards. */
static void test_holdback(suite *c) {
  const int peer = c->size > 1 ? 1 : 0;
  for (int round = 0; round < 6; ++round) {
    int w = -1, w2 = -1, sp = -1, m[3] = {100 + round, 200 + round, 300 + round};
    MPI_Request r[3], s[3];
    const int nw = round % 2 ? 2 : 1; /* one or two wildcard receives before */
    if (c->me == 0) {
      MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 7, c->comm, &r[0]);
      if (nw == 2) MPI_Irecv(&w2, 1, MPI_INT, MPI_ANY_SOURCE, 7, c->comm, &r[1]);
      MPI_Irecv(&sp, 1, MPI_INT, peer, 7, c->comm, &r[2]);
    }
    MPI_Barrier(c->comm);
    if (c->me == peer) {
      for (int k = 0; k <= nw; ++k) {
        MPI_Isend(&m[k], 1, MPI_INT, 0, 7, c->comm, &s[k]);
        if (round >= 2) spin(300 * round);
      }
    }
    if (c->me == 0) {
      if (nw == 1) r[1] = MPI_REQUEST_NULL;
      MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
      CHECK(w == m[0] && (nw == 1 || w2 == m[1]) && sp == m[nw],
            "holdback round %d: wildcard got %d, %d; specific got %d", round, w, w2, sp);
    }
    if (c->me == peer) MPI_Waitall(nw + 1, s, MPI_STATUSES_IGNORE);
    MPI_Barrier(c->comm);
  }
}

/* ---- One key, alternating paths --------------------------------------------------------- */
/* A message matched on the sender (receive posted and filed there), then one that arrives
 * before its receive, and so on: each side must have forgotten the requests it issued
 * for the previous message, or a stale entry would pair the next one wrongly. */
static void test_alternate(suite *c) {
  for (int k = 0; k < 12; ++k) {
    int out = c->me * 100 + k, in = -1;
    MPI_Request r, s;
    const int posted_first = k % 3 != 1;
    if (posted_first) MPI_Irecv(&in, 1, MPI_INT, c->prev, 8, c->comm, &r);
    MPI_Barrier(c->comm); /* receive requests are filed at the senders */
    MPI_Isend(&out, 1, MPI_INT, c->next, 8, c->comm, &s);
    MPI_Barrier(c->comm); /* send requests are filed at the receivers */
    if (!posted_first) {
      /* The message is there to probe, and a wildcard receive gets it. */
      int flag = 0;
      MPI_Status st;
      for (int t = 0; t < 50 && !flag; ++t) MPI_Iprobe(c->prev, 8, c->comm, &flag, &st);
      CHECK(flag && st.MPI_SOURCE == c->prev && st.MPI_TAG == 8, "alternate round %d: no probe", k);
      MPI_Irecv(&in, 1, MPI_INT, k % 2 ? MPI_ANY_SOURCE : c->prev, 8, c->comm, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    CHECK(in == c->prev * 100 + k, "alternate round %d: got %d", k, in);
  }
}

/* ---- Send and receive issued at once from both sides ---------------------------------- */
static void test_simultaneous(suite *c) {
  enum { REPS = 60 };
  for (int k = 0; k < REPS; ++k) {
    int out = c->me * 100000 + k, in = -1;
    MPI_Request r, s;
    const int skew = (int)(rnd(&c->seed) % 5);
    if (skew) spin(skew * 40); /* who issues first differs from round to round */
    if (k % 2) {
      MPI_Irecv(&in, 1, MPI_INT, c->prev, k % 3, c->comm, &r);
      MPI_Isend(&out, 1, MPI_INT, c->next, k % 3, c->comm, &s);
    } else {
      MPI_Isend(&out, 1, MPI_INT, c->next, k % 3, c->comm, &s);
      MPI_Irecv(&in, 1, MPI_INT, c->prev, k % 3, c->comm, &r);
    }
    if (k % 4 < 2) {
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
    CHECK(in == c->prev * 100000 + k, "simultaneous round %d: got %d", k, in);
  }
  /* Blocking exchanges in both orders (Sendrecv), also with the pairs crossing. */
  for (int k = 0; k < REPS / 2; ++k) {
    int out = c->me + k, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, c->next, 3, &in, 1, MPI_INT, c->prev, 3, c->comm,
                 MPI_STATUS_IGNORE);
    CHECK(in == c->prev + k, "sendrecv round %d: got %d", k, in);
    MPI_Sendrecv(&out, 1, MPI_INT, c->prev, 4, &in, 1, MPI_INT, c->next, 4, c->comm,
                 MPI_STATUS_IGNORE);
    CHECK(in == c->next + k, "sendrecv back round %d: got %d", k, in);
  }
}

/* ---- Unexpected messages: sent before any receive is posted ---------------------------- */
static void test_unexpected(suite *c) {
  enum { N = 12 };
  /* Per computation, from the heap (static arrays for 8 computations took 48 KiB of
   * EM-4's 512). */
  int(*data)[64] = malloc(N * sizeof *data), (*got)[64] = malloc(N * sizeof *got);
  if (!CHECK(data && got, "unexpected: no memory")) return;
  MPI_Request s[N];
  for (int k = 0; k < N; ++k) {
    for (int j = 0; j < 64; ++j) data[k][j] = c->me * 10000 + k * 100 + j;
    MPI_Isend(data[k], 1 + 5 * k, MPI_INT, c->next, k % 4, c->comm, &s[k]);
  }
  spin(3000); /* the send requests arrive before the receives exist */
  MPI_Barrier(c->comm);
  /* Receive them in reverse tag order: tag order is kept per tag. */
  for (int t = 3; t >= 0; --t)
    for (int k = t; k < N; k += 4) {
      MPI_Status st;
      int count;
      MPI_Recv(got[k], 64, MPI_INT, c->prev, t, c->comm, &st);
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(count == 1 + 5 * k && st.MPI_SOURCE == c->prev && st.MPI_TAG == t,
            "unexpected %d: count %d source %d tag %d", k, count, st.MPI_SOURCE, st.MPI_TAG);
      for (int j = 0; j < count; ++j)
        if (!CHECK(got[k][j] == c->prev * 10000 + k * 100 + j, "unexpected %d word %d", k, j))
          break;
    }
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
  free(data);
  free(got);
}

/* ---- Sizes from 0 bytes to beyond 64 KiB, aligned or not ------------------------------- */
static unsigned char pattern(int src, int size_index, int k) {
  return (unsigned char)(src * 31 + size_index * 7 + k * 13 + (k >> 8));
}

static void test_sizes(suite *c) {
  static const int sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 12, 63, 64, 65, 255, 1000, 4096,
                              65536, 65537, 100003};
  enum { NSIZES = sizeof sizes / sizeof sizes[0], GUARD = 8, MAXB = 100003 };
  unsigned char *out = malloc(MAXB + 2 * GUARD + 4), *in = malloc(MAXB + 2 * GUARD + 4);
  if (!CHECK(out && in, "sizes: no memory")) return;
  for (int i = 0; i < NSIZES; ++i)
    for (int misalign = 0; misalign < 4; misalign += (sizes[i] > 4096 ? 3 : 1)) {
      const int n = sizes[i];
      unsigned char *sbuf = out + GUARD + misalign, *rbuf = in + GUARD + ((misalign * 3) & 3);
      for (int k = 0; k < n; ++k) sbuf[k] = pattern(c->me, i, k);
      memset(rbuf - GUARD, 0xA5, n + 2 * GUARD);
      MPI_Request r, s;
      MPI_Status st;
      /* Half the sizes with the receive posted first (sender-side matching), half after. */
      if (i % 2 == 0) MPI_Irecv(rbuf, n, MPI_BYTE, c->prev, i, c->comm, &r);
      MPI_Barrier(c->comm);
      MPI_Isend(sbuf, n, MPI_BYTE, c->next, i, c->comm, &s);
      if (i % 2) MPI_Irecv(rbuf, n, MPI_BYTE, c->prev, i, c->comm, &r);
      MPI_Wait(&r, &st);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      int count;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(count == n, "sizes: %d bytes (misaligned %d) arrived as %d", n, misalign, count);
      for (int k = 0; k < n; ++k)
        if (!CHECK(rbuf[k] == pattern(c->prev, i, k),
                   "sizes: %d bytes misaligned %d: byte %d is %d", n, misalign, k, rbuf[k]))
          break;
      /* Nothing around the buffer changed. */
      for (int k = 1; k <= GUARD; ++k)
        if (!CHECK(rbuf[-k] == 0xA5 && rbuf[n + k - 1] == 0xA5,
                   "sizes: %d bytes misaligned %d: a byte next to the buffer changed", n, misalign))
          break;
    }
  free(out);
  free(in);
}

/* ---- Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany --------------------------- */
static void test_completion(suite *c) {
  enum { N = 6 };
  int out[N], in[N];
  MPI_Request r[N], s[N];
  for (int k = 0; k < N; ++k) out[k] = c->me * 10 + k;
  /* Test on a receive that cannot complete yet. */
  int flag = 1;
  MPI_Irecv(&in[0], 1, MPI_INT, c->prev, 20, c->comm, &r[0]);
  MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "Test of a receive nobody sent yet says complete");
  MPI_Barrier(c->comm);
  MPI_Isend(&out[0], 1, MPI_INT, c->next, 20, c->comm, &s[0]);
  for (flag = 0; !flag;) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); /* a Test loop progresses */
  CHECK(in[0] == c->prev * 10 && r[0] == MPI_REQUEST_NULL, "Test loop: got %d", in[0]);
  MPI_Wait(&s[0], MPI_STATUS_IGNORE);

  /* Waitany / Testany / Waitsome: messages sent in reverse tag order after a delay. */
  for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, c->prev, 30 + k, c->comm, &r[k]);
  MPI_Barrier(c->comm);
  for (int k = N - 1; k >= 0; --k) {
    MPI_Isend(&out[k], 1, MPI_INT, c->next, 30 + k, c->comm, &s[k]);
    spin(200);
  }
  int done = 0, mask = 0;
  while (done < N) {
    int idx;
    MPI_Status st;
    if (done < 2) {
      MPI_Waitany(N, r, &idx, &st);
    } else if (done < 4) {
      for (flag = 0; !flag;) MPI_Testany(N, r, &idx, &flag, &st);
    } else {
      int outc, idxs[N];
      MPI_Status sts[N];
      MPI_Waitsome(N, r, &outc, idxs, sts);
      for (int j = 0; j < outc; ++j) {
        CHECK(!(mask & 1 << idxs[j]) && sts[j].MPI_TAG == 30 + idxs[j], "Waitsome index %d", idxs[j]);
        mask |= 1 << idxs[j];
      }
      done += outc;
      continue;
    }
    CHECK(idx >= 0 && idx < N && !(mask & 1 << idx) && st.MPI_TAG == 30 + idx &&
              r[idx] == MPI_REQUEST_NULL,
          "Waitany/Testany index %d tag %d", idx, st.MPI_TAG);
    mask |= 1 << idx;
    ++done;
  }
  for (int k = 0; k < N; ++k) CHECK(in[k] == c->prev * 10 + k, "any: message %d is %d", k, in[k]);
  int idx;
  MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE); /* all null now */
  CHECK(idx == MPI_UNDEFINED, "Waitany over null requests gave %d", idx);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);

  /* Testall: false until all are in, and then the statuses. */
  for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, c->prev, 40 + k, c->comm, &r[k]);
  MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE);
  CHECK(!flag, "Testall before any send says complete");
  MPI_Barrier(c->comm);
  for (int k = 0; k < N; ++k) MPI_Isend(&out[k], 1, MPI_INT, c->next, 40 + k, c->comm, &s[k]);
  MPI_Status sts[N];
  for (flag = 0; !flag;) MPI_Testall(N, r, &flag, sts);
  for (int k = 0; k < N; ++k)
    CHECK(in[k] == c->prev * 10 + k && sts[k].MPI_TAG == 40 + k && r[k] == MPI_REQUEST_NULL,
          "Testall message %d", k);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
  /* Wait and Test on a null request. */
  MPI_Request nul = MPI_REQUEST_NULL;
  MPI_Status st;
  CHECK(MPI_Wait(&nul, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_ANY_SOURCE, "Wait(null)");
  MPI_Test(&nul, &flag, MPI_STATUS_IGNORE);
  CHECK(flag, "Test(null)");
}

/* ---- MPI_Request_free on active requests ---------------------------------------------------- */
static void test_free(suite *c) {
  enum { N = 8 };
  static int out_of[MAX_T][N], in_of[MAX_T][N]; /* freed requests may outlive the call */
  int *out = out_of[c->t], *in = in_of[c->t];
  for (int round = 0; round < 3; ++round) {
    MPI_Request r[N], s[N];
    for (int k = 0; k < N; ++k) {
      out[k] = c->me * 100 + k + round;
      in[k] = -1;
    }
    for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, c->prev, 50 + k, c->comm, &r[k]);
    if (round > 0) MPI_Barrier(c->comm);
    for (int k = 0; k < N; ++k) MPI_Isend(&out[k], 1, MPI_INT, c->next, 50 + k, c->comm, &s[k]);
    /* Free half the receives and all the sends while they may still be running. */
    for (int k = 0; k < N; ++k) {
      MPI_Request_free(&s[k]);
      if (k % 2) MPI_Request_free(&r[k]);
      CHECK(s[k] == MPI_REQUEST_NULL && (k % 2 == 0 || r[k] == MPI_REQUEST_NULL), "freed handle not null");
    }
    for (int k = 0; k < N; k += 2) MPI_Wait(&r[k], MPI_STATUS_IGNORE);
    /* The freed receives complete too, in their own time (a remote read may still be on
     * its way): wait for them, letting the protocol threads run. */
    for (int tries = 0; tries < 2000; ++tries) {
      int arrived = 1, flag;
      for (int k = 0; k < N; ++k) arrived &= in[k] == c->prev * 100 + k + round;
      if (arrived) break;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, c->comm, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(c->comm);
    for (int k = 0; k < N; ++k)
      CHECK(in[k] == c->prev * 100 + k + round, "free round %d: message %d is %d", round, k, in[k]);
  }
}

/* ---- Persistent requests ------------------------------------------------------------------ */
static void test_persistent(suite *c) {
  int out = 0, in = 0, out2 = 0, in2 = 0;
  MPI_Request req[4];
  MPI_Send_init(&out, 1, MPI_INT, c->next, 60, c->comm, &req[0]);
  MPI_Recv_init(&in, 1, MPI_INT, c->prev, 60, c->comm, &req[1]);
  MPI_Recv_init(&in2, 1, MPI_INT, c->prev, 61, c->comm, &req[2]);
  MPI_Send_init(&out2, 1, MPI_INT, c->next, 61, c->comm, &req[3]);
  for (int k = 0; k < 25; ++k) {
    out = c->me * 1000 + k;
    out2 = -out;
    if (k % 2) {
      MPI_Startall(4, req);
    } else {
      MPI_Start(&req[1]);
      MPI_Start(&req[2]);
      MPI_Start(&req[0]);
      MPI_Start(&req[3]);
    }
    MPI_Status st[4];
    if (k % 3 == 0) {
      MPI_Waitall(4, req, st);
    } else {
      int flag = 0;
      while (!flag) MPI_Testall(4, req, &flag, st);
    }
    CHECK(in == c->prev * 1000 + k && in2 == -(c->prev * 1000 + k) && st[1].MPI_TAG == 60 &&
              st[2].MPI_SOURCE == c->prev,
          "persistent round %d: got %d %d", k, in, in2);
    CHECK(req[0] != MPI_REQUEST_NULL, "a persistent request became null");
  }
  /* An inactive persistent request completes at once. */
  MPI_Status st;
  CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS, "Wait on an inactive persistent request");
  for (int k = 0; k < 4; ++k) MPI_Request_free(&req[k]);
  /* Free while active: start, free, then the message still arrives. */
  MPI_Request p, q;
  in = -1;
  out = 4242 + c->me;
  MPI_Recv_init(&in, 1, MPI_INT, c->prev, 62, c->comm, &q);
  MPI_Send_init(&out, 1, MPI_INT, c->next, 62, c->comm, &p);
  MPI_Start(&q);
  MPI_Start(&p);
  MPI_Request_free(&p);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Request_free(&q);
  CHECK(in == 4242 + c->prev, "persistent freed while active: got %d", in);
  /* Restarted at once after a one-sided completion, before the removal of the previous
   * round's issued request can have arrived: each round's request must be its own
   * entry. The barrier files the receive request at the sender first. */
  MPI_Recv_init(&in, 1, MPI_INT, c->prev, 63, c->comm, &q);
  for (int k = 0; k < 12; ++k) {
    MPI_Start(&q);
    MPI_Barrier(c->comm);
    out = c->me * 50 + k;
    MPI_Send(&out, 1, MPI_INT, c->next, 63, c->comm);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(in == c->prev * 50 + k, "persistent restarted at once, round %d: got %d", k, in);
  }
  MPI_Request_free(&q);
}

/* ---- MPI_PROC_NULL -------------------------------------------------------------------------- */
static void test_procnull(suite *c) {
  int v = 5;
  MPI_Status st;
  CHECK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, c->comm) == MPI_SUCCESS, "Send to PROC_NULL");
  MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, c->comm, &st);
  int count;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(v == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
        "Recv from PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
  MPI_Request r[2];
  MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, c->comm, &r[0]);
  MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, c->comm, &r[1]);
  int flag;
  MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
  CHECK(flag, "PROC_NULL requests are not complete at once");
  MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, &v, 1, MPI_INT, MPI_PROC_NULL, 1, c->comm, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv with PROC_NULL");
}

/* ---- Status and MPI_Get_count -------------------------------------------------------------- */
static void test_status(suite *c) {
  double d[5] = {1, 2, 3, 4, 5}, dr[8];
  MPI_Status st;
  int count;
  MPI_Request s;
  MPI_Isend(d, 5, MPI_DOUBLE, c->next, 70, c->comm, &s);
  MPI_Recv(dr, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, c->comm, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK(count == 5 && st.MPI_SOURCE == c->prev && st.MPI_TAG == 70 && dr[4] == 5.0,
        "double status: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 10, "40 bytes as MPI_INT: %d", count);
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == 40, "40 bytes as MPI_BYTE: %d", count);
  MPI_Datatype three;
  MPI_Type_contiguous(3, MPI_INT, &three);
  MPI_Type_commit(&three);
  MPI_Get_count(&st, three, &count);
  CHECK(count == MPI_UNDEFINED, "40 bytes as 3 ints: %d", count);
  MPI_Get_elements(&st, three, &count);
  CHECK(count == 10, "elements of 3 ints: %d", count);
  MPI_Type_free(&three);
  /* A receive for MPI_ANY_TAG posted before the send (the sender matches it, so it
   * writes the tag into the request) and one for a named tag (the receiver knows it). */
  int three_out[3] = {c->me, 7, 9}, three_in[3] = {0, 0, 0}, one_in = 0;
  MPI_Request rq[2], sq[2];
  MPI_Irecv(three_in, 3, MPI_INT, c->prev, MPI_ANY_TAG, c->comm, &rq[0]);
  MPI_Irecv(&one_in, 1, MPI_INT, c->prev, 74, c->comm, &rq[1]);
  MPI_Barrier(c->comm);
  MPI_Isend(three_out, 3, MPI_INT, c->next, 72, c->comm, &sq[0]);
  MPI_Isend(three_out, 1, MPI_INT, c->next, 74, c->comm, &sq[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, rq, sts);
  MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
  int c0, c1;
  MPI_Get_count(&sts[0], MPI_INT, &c0);
  MPI_Get_count(&sts[1], MPI_INT, &c1);
  CHECK(c0 == 3 && sts[0].MPI_SOURCE == c->prev && sts[0].MPI_TAG == 72 && three_in[0] == c->prev &&
            three_in[2] == 9,
        "preposted any tag: count %d source %d tag %d", c0, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
  CHECK(c1 == 1 && sts[1].MPI_SOURCE == c->prev && sts[1].MPI_TAG == 74 && one_in == c->prev,
        "preposted tag 74: count %d source %d tag %d", c1, sts[1].MPI_SOURCE, sts[1].MPI_TAG);
  /* Truncation, with errors returned on this communicator. */
  MPI_Comm quiet;
  MPI_Comm_dup(c->comm, &quiet);
  MPI_Comm_set_errhandler(quiet, MPI_ERRORS_RETURN);
  int big[4] = {1, 2, 3, 4}, small[2] = {0, 0}, guard = 77;
  (void)guard;
  MPI_Isend(big, 4, MPI_INT, c->next, 71, quiet, &s);
  const int err = MPI_Recv(small, 2, MPI_INT, c->prev, 71, quiet, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(err == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && small[0] == 1 && small[1] == 2,
        "truncation: error %d, got %d %d", err, small[0], small[1]);
  /* The same with the receive posted first: the sender matches it, writes what fits
   * and the size, and the receiver's wait reports the truncation. */
  int small2[2] = {0, 0};
  MPI_Request rt;
  MPI_Irecv(small2, 2, MPI_INT, c->prev, 73, quiet, &rt);
  MPI_Barrier(quiet);
  MPI_Isend(big, 4, MPI_INT, c->next, 73, quiet, &s);
  const int err2 = MPI_Wait(&rt, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  int got;
  MPI_Get_count(&st, MPI_INT, &got);
  CHECK(err2 == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && small2[0] == 1 &&
            small2[1] == 2,
        "truncation, receive posted first: error %d, got %d %d", err2, small2[0], small2[1]);
  /* Posted first and one word long: a longer message's first word only (with matching on
   * the receiver the send request's thread reads that word alone, sreq.S). */
  int one = 0;
  MPI_Irecv(&one, 1, MPI_INT, c->prev, 75, quiet, &rt);
  MPI_Barrier(quiet);
  MPI_Isend(big, 3, MPI_INT, c->next, 75, quiet, &s);
  const int err3 = MPI_Wait(&rt, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(err3 == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && one == 1,
        "truncation to one word: error %d, got %d", err3, one);
  MPI_Comm_free(&quiet);
}

/* ---- Messages to oneself ------------------------------------------------------------------ */
static void test_self(suite *c) {
  int a[3] = {c->me, c->me + 1, c->me + 2}, b[3] = {0, 0, 0};
  MPI_Request r, s;
  MPI_Irecv(b, 3, MPI_INT, c->me, 80, c->comm, &r);
  MPI_Isend(a, 3, MPI_INT, c->me, 80, c->comm, &s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(b[2] == c->me + 2, "self, receive first");
  MPI_Isend(a, 3, MPI_INT, c->me, 81, c->comm, &s);
  MPI_Recv(b, 3, MPI_INT, c->me, 81, c->comm, MPI_STATUS_IGNORE);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(b[0] == c->me, "self, send first");
  int rank, n;
  MPI_Comm_rank(MPI_COMM_SELF, &rank);
  MPI_Comm_size(MPI_COMM_SELF, &n);
  MPI_Sendrecv(a, 3, MPI_INT, 0, 82, b, 3, MPI_INT, 0, 82, c->self, MPI_STATUS_IGNORE);
  CHECK(rank == 0 && n == 1 && b[1] == c->me + 1, "MPI_COMM_SELF");
}

/* ---- Synchronous mode: the send completes only after the receive is posted ------------ */
static void test_ssend(suite *c) {
  if (c->size > 1) {
    int v = 9, go = 1, flag = 1;
    MPI_Request s;
    if (c->me == 0) {
      MPI_Issend(&v, 1, MPI_INT, 1, 90, c->comm, &s);
      for (int k = 0; k < 20; ++k) {
        MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
        if (flag) break;
      }
      CHECK(!flag, "Issend completed before the receive was posted");
      MPI_Send(&go, 1, MPI_INT, 1, 91, c->comm);
      if (!flag) MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else if (c->me == 1) {
      MPI_Recv(&go, 1, MPI_INT, 0, 91, c->comm, MPI_STATUS_IGNORE);
      MPI_Recv(&v, 1, MPI_INT, 0, 90, c->comm, MPI_STATUS_IGNORE);
    }
  }
}

/* ---- Communicators made while other computations make theirs ----------------------- */
/* Every round dups the computation's communicator and splits it by parity of rank (key:
 * the rank reversed; computation 0 also joins the halves by an intercommunicator and
 * merges it), then each member sends (computation, round, rank) to the next
 * member of each new communicator and receives with MPI_ANY_SOURCE and MPI_ANY_TAG: had
 * two computations' new communicators one context on some rank, a message would reach
 * the wrong computation. */
static void ring_on(suite *c, MPI_Comm comm, int round) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  const int out[3] = {c->t, round, r};
  int in[3] = {-1, -1, -1};
  MPI_Status st;
  MPI_Request s, q;
  MPI_Irecv(in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &q);
  /* The computations started first (receives posted first) send last. */
  for (int y = 0; y < 4 * (MAX_T - c->t); ++y) emx_yield();
  MPI_Isend(out, 3, MPI_INT, (r + 1) % n, round, comm, &s);
  MPI_Wait(&q, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  const int from = (r + n - 1) % n;
  CHECK(in[0] == c->t && in[1] == round && in[2] == from && st.MPI_SOURCE == from &&
            st.MPI_TAG == round,
        "comms round %d: rank %d of %d got computation %d round %d rank %d (source %d tag %d)",
        round, r, n, in[0], in[1], in[2], st.MPI_SOURCE, st.MPI_TAG);
}

static void test_comms(suite *c) {
  for (int k = 0; k < 4; ++k) {
    /* Ranks start their computations' creations in different orders: a lock held across
     * the creation's all-reduce would deadlock here. */
    for (int y = 0; y < 16 * ((c->t + c->me + k) % 2); ++y) emx_yield();
    MPI_Comm dup, half;
    MPI_Comm_dup(c->comm, &dup);
    MPI_Comm_split(c->comm, c->me % 2, -c->me, &half);
    int r, n, above = 0;
    for (int j = c->me + 2; j < c->size; j += 2) ++above; /* same parity, larger rank */
    MPI_Comm_rank(half, &r);
    MPI_Comm_size(half, &n);
    CHECK(r == above && n == (c->size + 1 - c->me % 2) / 2, "comms: split rank %d of %d", r, n);
    ring_on(c, dup, k);
    ring_on(c, half, k);
    if (c->t == 0 && c->size > 1) {
      /* Computation 0 also makes an intercommunicator between the two halves and merges
       * it, while the others make theirs: its context is agreed over two groups, so the
       * rank's other creations must keep out meanwhile (comm.c). Leaders: rank 0 of each
       * half, the largest rank of its parity in c->comm. */
      const int other = 1 - c->me % 2;
      const int remote_leader = (c->size - 1) % 2 == other ? c->size - 1 : c->size - 2;
      MPI_Comm inter, merged;
      MPI_Intercomm_create(half, 0, c->comm, remote_leader, 70 + k, &inter);
      MPI_Intercomm_merge(inter, c->me % 2, &merged);
      MPI_Comm_size(merged, &n);
      CHECK(n == c->size, "comms: merged intercommunicator of %d ranks", n);
      ring_on(c, merged, k);
      MPI_Comm_free(&merged);
      MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
  }
}

/* Context ids used again while several computations create at once: more creations on
 * each rank than there are ids (duplicates of this computation's MPI_COMM_SELF, each
 * freed), then duplicates of its communicator, whose rings check that no two
 * communicators of a rank got one id (a pair freed and picked by two computations at
 * once would cross their messages). */
static void test_reuse(suite *c) {
  for (int k = 0; k < 17000 / MAX_T * 2 + 16; ++k) { /* (4 computations: 17,064 a rank) */
    MPI_Comm d;
    MPI_Comm_dup(c->self, &d);
    MPI_Comm_free(&d);
  }
  MPI_Comm keep[3];
  for (int k = 0; k < 3; ++k) MPI_Comm_dup(c->comm, &keep[k]);
  for (int k = 0; k < 3; ++k) ring_on(c, keep[k], k);
  for (int k = 0; k < 3; ++k) MPI_Comm_free(&keep[k]);
}

static const struct {
  const char *name;
  void (*run)(suite *);
} tests[] = {
    {"order", test_order},         {"wildcard", test_wildcard},
    {"holdback", test_holdback},   {"alternate", test_alternate},
    {"simultaneous", test_simultaneous},
    {"unexpected", test_unexpected}, {"sizes", test_sizes},
    {"completion", test_completion}, {"free", test_free},
    {"persistent", test_persistent}, {"procnull", test_procnull},
    {"status", test_status},       {"self", test_self},
    {"ssend", test_ssend},         {"comms", test_comms}, /* not in "all": */
    {"reuse", test_reuse},
};
enum { NTESTS = sizeof tests / sizeof tests[0], NALL = NTESTS - 2 };

static int runs[MAX_RUNS], nruns; /* indices into tests[], in the order asked */

static void print_result(int run, int failures) {
  printf("%s: %s\n", tests[runs[run]].name, failures ? "FAILED" : "ok");
}

/* The tests asked for, on c's communicator; results printed (one computation per rank)
 * or kept in c->failed (several). */
static void run_all(suite *c, int keep) {
  for (int i = 0; i < nruns; ++i) {
    tests[runs[i]].run(c);
    const int all = failures_on(c->comm, &c->ck);
    if (keep) c->failed[i] = all;
    else if (c->me == 0) print_result(i, all);
    MPI_Barrier(c->comm);
  }
}

static suite suites[MAX_T];
static emx_sync_t finished;

static void computation(uint32_t *args) {
  run_all(&suites[args[0]], 1);
  emx_sync_done(&finished);
}

static void suite_init(suite *c, MPI_Comm comm, MPI_Comm self, int t) {
  *c = (suite){.comm = comm, .self = self, .t = t, .ck = {0, t}};
  MPI_Comm_rank(comm, &c->me);
  MPI_Comm_size(comm, &c->size);
  c->next = (c->me + 1) % c->size;
  c->prev = (c->me + c->size - 1) % c->size;
  c->seed = 2463534242u + 977u * (unsigned)c->me + 7919u * (unsigned)t;
}

int main(int argc, char **argv) {
  int T = 0, threads = 0, provided, me;
  for (int a = 1; a < argc; ++a)
    if (strcmp(argv[a], "threads") == 0) threads = 1, T = a + 1 < argc ? atoi(argv[a + 1]) : 0;
  if (threads) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "threads") == 0) {
      ++a;
      continue;
    }
    int found = 0;
    for (int k = 0; k < NTESTS; ++k)
      if ((strcmp(argv[a], "all") == 0 && k < NALL) || strcmp(argv[a], tests[k].name) == 0) {
        if (nruns == MAX_RUNS) {
          if (me == 0) printf("mpi_t_p2p: at most %d test runs\n", MAX_RUNS);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
        runs[nruns++] = k;
        found = 1;
      }
    if (!found && me == 0) printf("unknown test %s\n", argv[a]);
  }
  if (threads && (T < 1 || T > MAX_T || provided != MPI_THREAD_MULTIPLE)) {
    if (me == 0) printf("mpi_t_p2p: threads 1..%d (MPI_THREAD_MULTIPLE)\n", MAX_T);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!threads) {
    suite_init(&suites[0], MPI_COMM_WORLD, MPI_COMM_SELF, 0);
    suites[0].ck.computation = -1;
    run_all(&suites[0], 0);
    MPI_Finalize();
    return 0;
  }
  for (int t = 0; t < T; ++t) {
    MPI_Comm comm, self;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    suite_init(&suites[t], comm, self, t);
  }
  emx_sync_init(&finished, T);
  for (uint32_t t = 0; t < (uint32_t)T; ++t) emx_spawn((unsigned)me, computation, &t, 1);
  emx_sync_wait(&finished);
  for (int i = 0; i < nruns && me == 0; ++i) {
    int failures = 0;
    for (int t = 0; t < T; ++t) failures += suites[t].failed[i];
    print_result(i, failures);
  }
  for (int t = 0; t < T; ++t) {
    MPI_Comm_free(&suites[t].comm);
    MPI_Comm_free(&suites[t].self);
  }
  MPI_Finalize();
  return 0;
}
