/* Point-to-point tests of MPI-EMX (tests/mpi/test_mpi.py runs them for every variant).
 *
 *   mpi_t_p2p TEST... [-mpi-matching=...] [-mpi-protocol=...]
 *
 * TEST: order wildcard holdback alternate simultaneous unexpected sizes completion free persistent
 * procnull status self ssend, or all. Each prints "TEST: ok" on rank 0. Ranks talk in a
 * ring (rank r sends to r + 1), so any number of ranks works, 1 included (to itself). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int me, size, next, prev;
static unsigned seed;

/* ---- Pairwise order, two tags interleaved, receives posted early and late ---------- */
static void test_order(void) {
  enum { N = 40 };
  int out[N], in[N];
  MPI_Request s[N], r[N];
  for (int k = 0; k < N; ++k) out[k] = me * 1000 + k;
  /* Half the tag-1 receives are posted before the sends start. */
  for (int k = 0; k < N / 2; k += 2) MPI_Irecv(&in[k], 1, MPI_INT, prev, 1, MPI_COMM_WORLD, &r[k]);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < N; ++k) {
    MPI_Isend(&out[k], 1, MPI_INT, next, 1 + k % 2, MPI_COMM_WORLD, &s[k]);
    if (rnd(&seed) % 4 == 0) spin(rnd(&seed) % 400);
  }
  /* Then every tag-2 message, then the remaining tag-1 ones. */
  for (int k = 1; k < N; k += 2) {
    MPI_Irecv(&in[k], 1, MPI_INT, prev, 2, MPI_COMM_WORLD, &r[k]);
    if (rnd(&seed) % 3 == 0) spin(rnd(&seed) % 300);
  }
  for (int k = N / 2; k < N; k += 2) MPI_Irecv(&in[k], 1, MPI_INT, prev, 1, MPI_COMM_WORLD, &r[k]);
  MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
  for (int k = 0; k < N; ++k)
    check(in[k] == prev * 1000 + k, "order: message %d is %d, not %d", k, in[k], prev * 1000 + k);
  report("order");
}

/* ---- Wildcard source and tag ------------------------------------------------------------ */
static void test_wildcard(void) {
  /* Rank 0 gets one message from every rank (itself included) by MPI_ANY_SOURCE, tags
   * by MPI_ANY_TAG, and checks that the status names them. */
  int v = me * 7 + 1;
  MPI_Request s;
  MPI_Isend(&v, 1, MPI_INT, 0, 10 + me, MPI_COMM_WORLD, &s);
  if (me == 0) {
    char *seen = calloc(size, 1);
    for (int k = 0; k < size; ++k) {
      int got;
      MPI_Status st;
      MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      const int src = st.MPI_SOURCE;
      if (check(src >= 0 && src < size && !seen[src], "wildcard: source %d twice or invalid", src)) {
        seen[src] = 1;
        check(got == src * 7 + 1 && st.MPI_TAG == 10 + src, "wildcard: from %d got %d tag %d", src,
              got, st.MPI_TAG);
      }
    }
    free(seen);
  }
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Specific source, any tag, in order among tags. */
  int a = me, b = -me;
  MPI_Request rs[2];
  MPI_Isend(&a, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &rs[0]);
  MPI_Isend(&b, 1, MPI_INT, next, 6, MPI_COMM_WORLD, &rs[1]);
  int x, y;
  MPI_Status sx, sy;
  MPI_Recv(&x, 1, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &sx);
  MPI_Recv(&y, 1, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &sy);
  check(x == prev && sx.MPI_TAG == 5 && y == -prev && sy.MPI_TAG == 6,
        "wildcard: any tag got %d/%d then %d/%d", x, sx.MPI_TAG, y, sy.MPI_TAG);
  MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
  report("wildcard");
}

/* ---- The held-back receive requests ----------------------------------------------------- */
/* Rank 0 posts a wildcard-source receive, then receives from rank 1 with the same tag.
 * Rank 1 sends two messages. The first must go to the wildcard receive (posted first):
 * had the second receive's request reached rank 1, rank 1 would have matched it there.
 * Repeated with the specific receive posted before, between and after the wildcards. */
static void test_holdback(void) {
  const int peer = size > 1 ? 1 : 0;
  for (int round = 0; round < 6; ++round) {
    int w = -1, w2 = -1, sp = -1, m[3] = {100 + round, 200 + round, 300 + round};
    MPI_Request r[3], s[3];
    const int nw = round % 2 ? 2 : 1; /* one or two wildcard receives before */
    if (me == 0) {
      MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r[0]);
      if (nw == 2) MPI_Irecv(&w2, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r[1]);
      MPI_Irecv(&sp, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == peer) {
      for (int k = 0; k <= nw; ++k) {
        MPI_Isend(&m[k], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &s[k]);
        if (round >= 2) spin(300 * round);
      }
    }
    if (me == 0) {
      if (nw == 1) r[1] = MPI_REQUEST_NULL;
      MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
      check(w == m[0] && (nw == 1 || w2 == m[1]) && sp == m[nw],
            "holdback round %d: wildcard got %d, %d; specific got %d", round, w, w2, sp);
    }
    if (me == peer) MPI_Waitall(nw + 1, s, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  report("holdback");
}

/* ---- One key, alternating paths --------------------------------------------------------- */
/* A message matched on the sender (receive posted and filed there), then one that arrives
 * before its receive, and so on: each side must have forgotten the requests it issued
 * for the previous message, or a stale entry would pair the next one wrongly. */
static void test_alternate(void) {
  for (int k = 0; k < 12; ++k) {
    int out = me * 100 + k, in = -1;
    MPI_Request r, s;
    const int posted_first = k % 3 != 1;
    if (posted_first) MPI_Irecv(&in, 1, MPI_INT, prev, 8, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD); /* receive requests are filed at the senders */
    MPI_Isend(&out, 1, MPI_INT, next, 8, MPI_COMM_WORLD, &s);
    MPI_Barrier(MPI_COMM_WORLD); /* send requests are filed at the receivers */
    if (!posted_first) {
      /* The message is there to probe, and a wildcard receive gets it. */
      int flag = 0;
      MPI_Status st;
      for (int t = 0; t < 50 && !flag; ++t) MPI_Iprobe(prev, 8, MPI_COMM_WORLD, &flag, &st);
      check(flag && st.MPI_SOURCE == prev && st.MPI_TAG == 8, "alternate round %d: no probe", k);
      MPI_Irecv(&in, 1, MPI_INT, k % 2 ? MPI_ANY_SOURCE : prev, 8, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    check(in == prev * 100 + k, "alternate round %d: got %d", k, in);
  }
  report("alternate");
}

/* ---- Send and receive issued at once from both sides ---------------------------------- */
static void test_simultaneous(void) {
  enum { REPS = 60 };
  for (int k = 0; k < REPS; ++k) {
    int out = me * 100000 + k, in = -1;
    MPI_Request r, s;
    const int skew = (int)(rnd(&seed) % 5);
    if (skew) spin(skew * 40); /* who issues first differs from round to round */
    if (k % 2) {
      MPI_Irecv(&in, 1, MPI_INT, prev, k % 3, MPI_COMM_WORLD, &r);
      MPI_Isend(&out, 1, MPI_INT, next, k % 3, MPI_COMM_WORLD, &s);
    } else {
      MPI_Isend(&out, 1, MPI_INT, next, k % 3, MPI_COMM_WORLD, &s);
      MPI_Irecv(&in, 1, MPI_INT, prev, k % 3, MPI_COMM_WORLD, &r);
    }
    if (k % 4 < 2) {
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
    check(in == prev * 100000 + k, "simultaneous round %d: got %d", k, in);
  }
  /* Blocking exchanges in both orders (Sendrecv), also with the pairs crossing. */
  for (int k = 0; k < REPS / 2; ++k) {
    int out = me + k, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    check(in == prev + k, "sendrecv round %d: got %d", k, in);
    MPI_Sendrecv(&out, 1, MPI_INT, prev, 4, &in, 1, MPI_INT, next, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    check(in == next + k, "sendrecv back round %d: got %d", k, in);
  }
  report("simultaneous");
}

/* ---- Unexpected messages: sent before any receive is posted ---------------------------- */
static void test_unexpected(void) {
  enum { N = 12 };
  static int data[N][64];
  static int got[N][64];
  MPI_Request s[N];
  for (int k = 0; k < N; ++k) {
    for (int j = 0; j < 64; ++j) data[k][j] = me * 10000 + k * 100 + j;
    MPI_Isend(data[k], 1 + 5 * k, MPI_INT, next, k % 4, MPI_COMM_WORLD, &s[k]);
  }
  spin(3000); /* the send requests arrive before the receives exist */
  MPI_Barrier(MPI_COMM_WORLD);
  /* Receive them in reverse tag order: tag order is kept per tag. */
  for (int t = 3; t >= 0; --t)
    for (int k = t; k < N; k += 4) {
      MPI_Status st;
      int count;
      MPI_Recv(got[k], 64, MPI_INT, prev, t, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_INT, &count);
      check(count == 1 + 5 * k && st.MPI_SOURCE == prev && st.MPI_TAG == t,
            "unexpected %d: count %d source %d tag %d", k, count, st.MPI_SOURCE, st.MPI_TAG);
      for (int j = 0; j < count; ++j)
        if (!check(got[k][j] == prev * 10000 + k * 100 + j, "unexpected %d word %d", k, j)) break;
    }
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
  report("unexpected");
}

/* ---- Sizes from 0 bytes to beyond 64 KiB, aligned or not ------------------------------- */
static unsigned char pattern(int src, int size_index, int k) {
  return (unsigned char)(src * 31 + size_index * 7 + k * 13 + (k >> 8));
}

static void test_sizes(void) {
  static const int sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 12, 63, 64, 65, 255, 1000, 4096,
                              65536, 65537, 100003};
  enum { NSIZES = sizeof sizes / sizeof sizes[0], GUARD = 8, MAXB = 100003 };
  unsigned char *out = malloc(MAXB + 2 * GUARD + 4), *in = malloc(MAXB + 2 * GUARD + 4);
  if (!check(out && in, "sizes: no memory")) return;
  for (int i = 0; i < NSIZES; ++i)
    for (int misalign = 0; misalign < 4; misalign += (sizes[i] > 4096 ? 3 : 1)) {
      const int n = sizes[i];
      unsigned char *sbuf = out + GUARD + misalign, *rbuf = in + GUARD + ((misalign * 3) & 3);
      for (int k = 0; k < n; ++k) sbuf[k] = pattern(me, i, k);
      memset(rbuf - GUARD, 0xA5, n + 2 * GUARD);
      MPI_Request r, s;
      MPI_Status st;
      /* Half the sizes with the receive posted first (sender-side matching), half after. */
      if (i % 2 == 0) MPI_Irecv(rbuf, n, MPI_BYTE, prev, i, MPI_COMM_WORLD, &r);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Isend(sbuf, n, MPI_BYTE, next, i, MPI_COMM_WORLD, &s);
      if (i % 2) MPI_Irecv(rbuf, n, MPI_BYTE, prev, i, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, &st);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      int count;
      MPI_Get_count(&st, MPI_BYTE, &count);
      check(count == n, "sizes: %d bytes (misaligned %d) arrived as %d", n, misalign, count);
      for (int k = 0; k < n; ++k)
        if (!check(rbuf[k] == pattern(prev, i, k), "sizes: %d bytes misaligned %d: byte %d is %d", n,
                   misalign, k, rbuf[k]))
          break;
      /* Nothing around the buffer changed. */
      for (int k = 1; k <= GUARD; ++k)
        if (!check(rbuf[-k] == 0xA5 && rbuf[n + k - 1] == 0xA5,
                   "sizes: %d bytes misaligned %d: a byte next to the buffer changed", n, misalign))
          break;
    }
  free(out);
  free(in);
  report("sizes");
}

/* ---- Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany --------------------------- */
static void test_completion(void) {
  enum { N = 6 };
  int out[N], in[N];
  MPI_Request r[N], s[N];
  for (int k = 0; k < N; ++k) out[k] = me * 10 + k;
  /* Test on a receive that cannot complete yet. */
  int flag = 1;
  MPI_Irecv(&in[0], 1, MPI_INT, prev, 20, MPI_COMM_WORLD, &r[0]);
  MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
  check(!flag, "Test of a receive nobody sent yet says complete");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Isend(&out[0], 1, MPI_INT, next, 20, MPI_COMM_WORLD, &s[0]);
  for (flag = 0; !flag;) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); /* a Test loop progresses */
  check(in[0] == prev * 10 && r[0] == MPI_REQUEST_NULL, "Test loop: got %d", in[0]);
  MPI_Wait(&s[0], MPI_STATUS_IGNORE);

  /* Waitany / Testany / Waitsome: messages sent in reverse tag order after a delay. */
  for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, prev, 30 + k, MPI_COMM_WORLD, &r[k]);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = N - 1; k >= 0; --k) {
    MPI_Isend(&out[k], 1, MPI_INT, next, 30 + k, MPI_COMM_WORLD, &s[k]);
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
        check(!(mask & 1 << idxs[j]) && sts[j].MPI_TAG == 30 + idxs[j], "Waitsome index %d", idxs[j]);
        mask |= 1 << idxs[j];
      }
      done += outc;
      continue;
    }
    check(idx >= 0 && idx < N && !(mask & 1 << idx) && st.MPI_TAG == 30 + idx &&
              r[idx] == MPI_REQUEST_NULL,
          "Waitany/Testany index %d tag %d", idx, st.MPI_TAG);
    mask |= 1 << idx;
    ++done;
  }
  for (int k = 0; k < N; ++k) check(in[k] == prev * 10 + k, "any: message %d is %d", k, in[k]);
  int idx;
  MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE); /* all null now */
  check(idx == MPI_UNDEFINED, "Waitany over null requests gave %d", idx);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);

  /* Testall: false until all are in, and then the statuses. */
  for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, prev, 40 + k, MPI_COMM_WORLD, &r[k]);
  MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE);
  check(!flag, "Testall before any send says complete");
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < N; ++k) MPI_Isend(&out[k], 1, MPI_INT, next, 40 + k, MPI_COMM_WORLD, &s[k]);
  MPI_Status sts[N];
  for (flag = 0; !flag;) MPI_Testall(N, r, &flag, sts);
  for (int k = 0; k < N; ++k)
    check(in[k] == prev * 10 + k && sts[k].MPI_TAG == 40 + k && r[k] == MPI_REQUEST_NULL,
          "Testall message %d", k);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
  /* Wait and Test on a null request. */
  MPI_Request nul = MPI_REQUEST_NULL;
  MPI_Status st;
  check(MPI_Wait(&nul, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_ANY_SOURCE, "Wait(null)");
  MPI_Test(&nul, &flag, MPI_STATUS_IGNORE);
  check(flag, "Test(null)");
  report("completion");
}

/* ---- MPI_Request_free on active requests ---------------------------------------------------- */
static void test_free(void) {
  enum { N = 8 };
  static int out[N], in[N];
  for (int round = 0; round < 3; ++round) {
    MPI_Request r[N], s[N];
    for (int k = 0; k < N; ++k) {
      out[k] = me * 100 + k + round;
      in[k] = -1;
    }
    for (int k = 0; k < N; ++k) MPI_Irecv(&in[k], 1, MPI_INT, prev, 50 + k, MPI_COMM_WORLD, &r[k]);
    if (round > 0) MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < N; ++k) MPI_Isend(&out[k], 1, MPI_INT, next, 50 + k, MPI_COMM_WORLD, &s[k]);
    /* Free half the receives and all the sends while they may still be running. */
    for (int k = 0; k < N; ++k) {
      MPI_Request_free(&s[k]);
      if (k % 2) MPI_Request_free(&r[k]);
      check(s[k] == MPI_REQUEST_NULL && (k % 2 == 0 || r[k] == MPI_REQUEST_NULL), "freed handle not null");
    }
    for (int k = 0; k < N; k += 2) MPI_Wait(&r[k], MPI_STATUS_IGNORE);
    /* The freed receives complete too, in their own time (a remote read may still be on
     * its way): wait for them, letting the protocol threads run. */
    for (int tries = 0; tries < 2000; ++tries) {
      int arrived = 1, flag;
      for (int k = 0; k < N; ++k) arrived &= in[k] == prev * 100 + k + round;
      if (arrived) break;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < N; ++k)
      check(in[k] == prev * 100 + k + round, "free round %d: message %d is %d", round, k, in[k]);
  }
  report("free");
}

/* ---- Persistent requests ------------------------------------------------------------------ */
static void test_persistent(void) {
  int out = 0, in = 0, out2 = 0, in2 = 0;
  MPI_Request req[4];
  MPI_Send_init(&out, 1, MPI_INT, next, 60, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(&in, 1, MPI_INT, prev, 60, MPI_COMM_WORLD, &req[1]);
  MPI_Recv_init(&in2, 1, MPI_INT, prev, 61, MPI_COMM_WORLD, &req[2]);
  MPI_Send_init(&out2, 1, MPI_INT, next, 61, MPI_COMM_WORLD, &req[3]);
  for (int k = 0; k < 25; ++k) {
    out = me * 1000 + k;
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
    check(in == prev * 1000 + k && in2 == -(prev * 1000 + k) && st[1].MPI_TAG == 60 &&
              st[2].MPI_SOURCE == prev,
          "persistent round %d: got %d %d", k, in, in2);
    check(req[0] != MPI_REQUEST_NULL, "a persistent request became null");
  }
  /* An inactive persistent request completes at once. */
  MPI_Status st;
  check(MPI_Wait(&req[0], &st) == MPI_SUCCESS, "Wait on an inactive persistent request");
  for (int k = 0; k < 4; ++k) MPI_Request_free(&req[k]);
  /* Free while active: start, free, then the message still arrives. */
  MPI_Request p, q;
  in = -1;
  out = 4242 + me;
  MPI_Recv_init(&in, 1, MPI_INT, prev, 62, MPI_COMM_WORLD, &q);
  MPI_Send_init(&out, 1, MPI_INT, next, 62, MPI_COMM_WORLD, &p);
  MPI_Start(&q);
  MPI_Start(&p);
  MPI_Request_free(&p);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Request_free(&q);
  check(in == 4242 + prev, "persistent freed while active: got %d", in);
  /* Restarted at once after a one-sided completion, before the removal of the previous
   * round's issued request can have arrived: each round's request must be its own
   * entry. The barrier files the receive request at the sender first. */
  MPI_Recv_init(&in, 1, MPI_INT, prev, 63, MPI_COMM_WORLD, &q);
  for (int k = 0; k < 12; ++k) {
    MPI_Start(&q);
    MPI_Barrier(MPI_COMM_WORLD);
    out = me * 50 + k;
    MPI_Send(&out, 1, MPI_INT, next, 63, MPI_COMM_WORLD);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    check(in == prev * 50 + k, "persistent restarted at once, round %d: got %d", k, in);
  }
  MPI_Request_free(&q);
  report("persistent");
}

/* ---- MPI_PROC_NULL -------------------------------------------------------------------------- */
static void test_procnull(void) {
  int v = 5;
  MPI_Status st;
  check(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Send to PROC_NULL");
  MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
  int count;
  MPI_Get_count(&st, MPI_INT, &count);
  check(v == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
        "Recv from PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
  MPI_Request r[2];
  MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[1]);
  int flag;
  MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
  check(flag, "PROC_NULL requests are not complete at once");
  MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, &v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
  check(st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv with PROC_NULL");
  report("procnull");
}

/* ---- Status and MPI_Get_count -------------------------------------------------------------- */
static void test_status(void) {
  double d[5] = {1, 2, 3, 4, 5}, dr[8];
  MPI_Status st;
  int count;
  MPI_Request s;
  MPI_Isend(d, 5, MPI_DOUBLE, next, 70, MPI_COMM_WORLD, &s);
  MPI_Recv(dr, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  check(count == 5 && st.MPI_SOURCE == prev && st.MPI_TAG == 70 && dr[4] == 5.0,
        "double status: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Get_count(&st, MPI_INT, &count);
  check(count == 10, "40 bytes as MPI_INT: %d", count);
  MPI_Get_count(&st, MPI_BYTE, &count);
  check(count == 40, "40 bytes as MPI_BYTE: %d", count);
  MPI_Datatype three;
  MPI_Type_contiguous(3, MPI_INT, &three);
  MPI_Type_commit(&three);
  MPI_Get_count(&st, three, &count);
  check(count == MPI_UNDEFINED, "40 bytes as 3 ints: %d", count);
  MPI_Get_elements(&st, three, &count);
  check(count == 10, "elements of 3 ints: %d", count);
  MPI_Type_free(&three);
  /* A receive for MPI_ANY_TAG posted before the send (the sender matches it, so it
   * writes the tag into the request) and one for a named tag (the receiver knows it). */
  int three_out[3] = {me, 7, 9}, three_in[3] = {0, 0, 0}, one_in = 0;
  MPI_Request rq[2], sq[2];
  MPI_Irecv(three_in, 3, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(&one_in, 1, MPI_INT, prev, 74, MPI_COMM_WORLD, &rq[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Isend(three_out, 3, MPI_INT, next, 72, MPI_COMM_WORLD, &sq[0]);
  MPI_Isend(three_out, 1, MPI_INT, next, 74, MPI_COMM_WORLD, &sq[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, rq, sts);
  MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
  int c0, c1;
  MPI_Get_count(&sts[0], MPI_INT, &c0);
  MPI_Get_count(&sts[1], MPI_INT, &c1);
  check(c0 == 3 && sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 72 && three_in[0] == prev &&
            three_in[2] == 9,
        "preposted any tag: count %d source %d tag %d", c0, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
  check(c1 == 1 && sts[1].MPI_SOURCE == prev && sts[1].MPI_TAG == 74 && one_in == prev,
        "preposted tag 74: count %d source %d tag %d", c1, sts[1].MPI_SOURCE, sts[1].MPI_TAG);
  /* Truncation, with errors returned on this communicator. */
  MPI_Comm quiet;
  MPI_Comm_dup(MPI_COMM_WORLD, &quiet);
  MPI_Comm_set_errhandler(quiet, MPI_ERRORS_RETURN);
  int big[4] = {1, 2, 3, 4}, small[2] = {0, 0}, guard = 77;
  (void)guard;
  MPI_Isend(big, 4, MPI_INT, next, 71, quiet, &s);
  const int err = MPI_Recv(small, 2, MPI_INT, prev, 71, quiet, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  check(err == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && small[0] == 1 && small[1] == 2,
        "truncation: error %d, got %d %d", err, small[0], small[1]);
  /* The same with the receive posted first: the sender matches it, writes what fits
   * and the size, and the receiver's wait reports the truncation. */
  int small2[2] = {0, 0};
  MPI_Request rt;
  MPI_Irecv(small2, 2, MPI_INT, prev, 73, quiet, &rt);
  MPI_Barrier(quiet);
  MPI_Isend(big, 4, MPI_INT, next, 73, quiet, &s);
  const int err2 = MPI_Wait(&rt, &st);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  int got;
  MPI_Get_count(&st, MPI_INT, &got);
  check(err2 == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && small2[0] == 1 &&
            small2[1] == 2,
        "truncation, receive posted first: error %d, got %d %d", err2, small2[0], small2[1]);
  MPI_Comm_free(&quiet);
  report("status");
}

/* ---- Messages to oneself ------------------------------------------------------------------ */
static void test_self(void) {
  int a[3] = {me, me + 1, me + 2}, b[3] = {0, 0, 0};
  MPI_Request r, s;
  MPI_Irecv(b, 3, MPI_INT, me, 80, MPI_COMM_WORLD, &r);
  MPI_Isend(a, 3, MPI_INT, me, 80, MPI_COMM_WORLD, &s);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  check(b[2] == me + 2, "self, receive first");
  MPI_Isend(a, 3, MPI_INT, me, 81, MPI_COMM_WORLD, &s);
  MPI_Recv(b, 3, MPI_INT, me, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  check(b[0] == me, "self, send first");
  int rank, n;
  MPI_Comm_rank(MPI_COMM_SELF, &rank);
  MPI_Comm_size(MPI_COMM_SELF, &n);
  MPI_Sendrecv(a, 3, MPI_INT, 0, 82, b, 3, MPI_INT, 0, 82, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  check(rank == 0 && n == 1 && b[1] == me + 1, "MPI_COMM_SELF");
  report("self");
}

/* ---- Synchronous mode: the send completes only after the receive is posted ------------ */
static void test_ssend(void) {
  if (size > 1) {
    int v = 9, go = 1, flag = 1;
    MPI_Request s;
    if (me == 0) {
      MPI_Issend(&v, 1, MPI_INT, 1, 90, MPI_COMM_WORLD, &s);
      for (int k = 0; k < 20; ++k) {
        MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
        if (flag) break;
      }
      check(!flag, "Issend completed before the receive was posted");
      MPI_Send(&go, 1, MPI_INT, 1, 91, MPI_COMM_WORLD);
      if (!flag) MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else if (me == 1) {
      MPI_Recv(&go, 1, MPI_INT, 0, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(&v, 1, MPI_INT, 0, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  report("ssend");
}

static const struct {
  const char *name;
  void (*run)(void);
} tests[] = {
    {"order", test_order},         {"wildcard", test_wildcard},
    {"holdback", test_holdback},   {"alternate", test_alternate},
    {"simultaneous", test_simultaneous},
    {"unexpected", test_unexpected}, {"sizes", test_sizes},
    {"completion", test_completion}, {"free", test_free},
    {"persistent", test_persistent}, {"procnull", test_procnull},
    {"status", test_status},       {"self", test_self},
    {"ssend", test_ssend},
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (me + 1) % size;
  prev = (me + size - 1) % size;
  seed = 2463534242u + 977u * (unsigned)me;
  const int ntests = (int)(sizeof tests / sizeof tests[0]);
  for (int a = 1; a < argc; ++a) {
    int found = 0;
    for (int k = 0; k < ntests; ++k)
      if (strcmp(argv[a], "all") == 0 || strcmp(argv[a], tests[k].name) == 0) {
        tests[k].run();
        found = 1;
        MPI_Barrier(MPI_COMM_WORLD);
      }
    if (!found && me == 0) printf("unknown test %s\n", argv[a]);
  }
  MPI_Finalize();
  return 0;
}
