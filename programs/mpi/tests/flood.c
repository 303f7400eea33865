/* Flow control: correct programs that push MPI-EMX's resources (docs/mpi-flow-control.md).
 * Each prints "NAME: ok" on rank 0 when every message arrived intact.
 *
 *   mpi_t_flood unexpected BYTES COUNT  every rank but 0 sends COUNT messages of BYTES
 *                                      bytes (MPI_Isend, then MPI_Waitall) while rank 0
 *                                      computes; rank 0 then receives them all
 *   mpi_t_flood isend SPIN COUNT       rank 0 posts COUNT MPI_Isend of 64 bytes to rank 1,
 *                                      which computes SPIN clocks before receiving; result
 *                                      isend_max_cycles: the longest MPI_Isend call (by
 *                                      default the first waits for its operand segment,
 *                                      i.e. for rank 1's computation; local with
 *                                      -mpi-option=local-isend)
 *   mpi_t_flood poll HOW [BYTES]       an MPI_Isend that waits for its operand segment
 *                                      while its receiver polls (HOW: test, testall,
 *                                      testany, testsome, status -- MPI_Request_get_status
 *                                      --, iprobe) for a message sent only after it; and
 *                                      `crossed`: both ranks MPI_Isend to each other first,
 *                                      then poll MPI_Test on their receives; results
 *                                      isend_max_cycles, polls
 *   mpi_t_flood outstanding COUNT      COUNT receives and COUNT sends outstanding at once
 *                                      between every pair of neighbours
 *   mpi_t_flood reverse COUNT [any|probe]  every rank but 0 sends COUNT messages (tags 0
 *                                      .. COUNT-1, MPI_Isend, then MPI_Waitall); rank 0
 *                                      receives them in reverse tag order (from each
 *                                      source, with `any` from MPI_ANY_SOURCE, with
 *                                      `probe` after an MPI_Probe for it): the message
 *                                      it wants first was sent last
 *   mpi_t_flood cancel COUNT           rank 1 sends COUNT messages to rank 0, which
 *                                      computes (in short threads), and cancels the last (beyond the
 *                                      credits, it waits at rank 1): cancelled, and rank
 *                                      0 gets the others only
 *   mpi_t_flood posted COUNT           every rank but 0 posts COUNT receives from rank 0
 *                                      (tags 0 .. COUNT-1) while rank 0 computes; rank 0
 *                                      then sends them all
 *   mpi_t_flood beyond COUNT           rank 1 posts COUNT receives from rank 0 (tag 1,
 *                                      beyond the credits for receive requests), after
 *                                      half of them one for tag 2 and one for tag 3,
 *                                      which it cancels, after 3/4 an MPI_ANY_SOURCE
 *                                      one (tag 4);
 *                                      rank 0 computes, then sends tag 2, tag 4 and the
 *                                      COUNT of tag 1: the receives without a credit are
 *                                      matched at rank 1 or issued later, in order
 *   mpi_t_flood nomem BYTES            rank 0 allocates memory until none is left, then
 *                                      every other rank sends it BYTES bytes, which it
 *                                      receives (after they arrived) into buffers whose
 *                                      alignment differs from the senders'
 *   mpi_t_flood two COUNT              rank 1 sends COUNT messages to rank 0 (tags 0 ..
 *                                      COUNT-1), which computes, then posts receives for
 *                                      the last and the fifth from last, waits for both,
 *                                      then receives the others in order
 */
#include <emx/emx.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

static unsigned char value(int src, int k, int i) { return (unsigned char)(src * 31 + k * 7 + i); }

static void unexpected(int bytes, int count) {
  /* More data than a sender's memory: one buffer for all its messages (sends may read
   * one buffer at once), the same contents in each. */
  const int shared = (long)bytes * count > 262144;
  if (rank != 0) {
    unsigned char *buf = malloc((size_t)(shared ? 1 : count) * (bytes ? bytes : 1));
    MPI_Request *q = malloc(count * sizeof *q);
    for (int k = 0; k < count; ++k) {
      unsigned char *b = buf + (size_t)(shared ? 0 : k) * bytes;
      for (int i = 0; i < bytes; ++i) b[i] = value(rank, shared ? 0 : k, i);
      MPI_Isend(b, bytes, MPI_BYTE, 0, k, MPI_COMM_WORLD, &q[k]);
    }
    MPI_Waitall(count, q, MPI_STATUSES_IGNORE);
    free(q);
    free(buf);
  } else {
    spin(200000); /* everything arrives unexpected */
    unsigned char *b = malloc(bytes ? bytes : 1);
    for (int src = 1; src < size; ++src)
      for (int k = 0; k < count; ++k) {
        MPI_Status st;
        MPI_Recv(b, bytes, MPI_BYTE, src, k, MPI_COMM_WORLD, &st);
        int n;
        MPI_Get_count(&st, MPI_BYTE, &n);
        int ok = n == bytes;
        for (int i = 0; i < bytes && ok; ++i) ok = b[i] == value(src, shared ? 0 : k, i);
        check(ok, "message %d from %d: %d bytes", k, src, n);
      }
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void isend_local(int spin_clocks, int count) {
  static char data[64];
  if (rank == 0) {
    MPI_Request *q = malloc(count * sizeof *q);
    uint64_t longest = 0;
    for (int k = 0; k < count; ++k) {
      const uint64_t t0 = emx_cycles();
      MPI_Isend(data, sizeof data, MPI_BYTE, 1, k, MPI_COMM_WORLD, &q[k]);
      const uint64_t t = emx_cycles() - t0;
      if (t > longest) longest = t;
    }
    MPI_Waitall(count, q, MPI_STATUSES_IGNORE);
    /* (tests/mpi: under -mpi-option=local-isend far below spin_clocks; by default the
     * first call waits for rank 1's computation) */
    emx_result_int("isend_max_cycles", (long long)longest);
    free(q);
  } else if (rank == 1) {
    spin((unsigned)spin_clocks);
    char in[64];
    for (int k = 0; k < count; ++k)
      MPI_Recv(in, sizeof in, MPI_BYTE, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* One poll of r by HOW, which never blocks: 1 when r is complete (and finished). */
static int poll_once(const char *how, MPI_Request *r) {
  int flag = 0, index, n, indices[1];
  if (!strcmp(how, "test") || !strcmp(how, "crossed")) {
    MPI_Test(r, &flag, MPI_STATUS_IGNORE);
  } else if (!strcmp(how, "testall")) {
    MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
  } else if (!strcmp(how, "testany")) {
    MPI_Testany(1, r, &index, &flag, MPI_STATUS_IGNORE);
  } else if (!strcmp(how, "testsome")) {
    MPI_Testsome(1, r, &n, indices, MPI_STATUSES_IGNORE);
    flag = n == 1;
  } else {
    MPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE);
    if (flag) MPI_Wait(r, MPI_STATUS_IGNORE);
  }
  return flag;
}

/* The patterns in which an MPI_Isend that waits for its operand segment (the paper's
 * creation, the default) could wait forever if a polling call did not let the
 * receiver's handlers run (docs/mpi.md, "MPI_Isend waits for its operand segment"):
 * rank 1 polls, never blocking, for a message (tag 0) that rank 0 sends only once its
 * MPI_Isend of another (tag 1, not posted: a send request is created) has returned.
 * `crossed`: both ranks MPI_Isend to each other (neither posted), then post the receive
 * and poll it. */
static void poll_while_sending(const char *how, int bytes) {
  if (bytes < 4) bytes = 4;
  int *out = malloc(bytes), *in = malloc(bytes), *first = malloc(bytes);
  const int peer = 1 - rank;
  long long polls = 0;
  uint64_t longest = 0;
  MPI_Request s[2], r;
  for (int i = 0; i < bytes / 4; ++i) out[i] = rank * 1000 + i, in[i] = first[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank > 1) {
  } else if (!strcmp(how, "crossed")) {
    const uint64_t t0 = emx_cycles();
    MPI_Isend(out, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &s[0]);
    longest = emx_cycles() - t0;
    MPI_Irecv(in, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r);
    for (; !poll_once(how, &r); ++polls) {
    }
    MPI_Wait(&s[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < bytes / 4; ++i)
      check(in[i] == peer * 1000 + i, "word %d from rank %d: %d", i, peer, in[i]);
  } else if (rank == 0) {
    for (int k = 0; k < 50; ++k) { /* in short threads: rank 1 posts, then polls */
      spin(100);
      emx_yield();
    }
    for (int k = 0; k < 2; ++k) { /* tag 1 first: rank 1 polls for tag 0 meanwhile */
      const uint64_t t0 = emx_cycles();
      MPI_Isend(out, bytes, MPI_BYTE, 1, 1 - k, MPI_COMM_WORLD, &s[k]);
      const uint64_t t = emx_cycles() - t0;
      if (t > longest) longest = t;
    }
    MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
  } else if (!strcmp(how, "iprobe")) {
    for (int flag = 0; !flag; ++polls) MPI_Iprobe(0, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(first, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Irecv(in, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r);
    for (; !poll_once(how, &r); ++polls) {
    }
    MPI_Recv(first, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 1 && strcmp(how, "crossed"))
    for (int i = 0; i < bytes / 4; ++i)
      check(in[i] == i && first[i] == i, "word %d: %d, %d", i, in[i], first[i]);
  if (rank == 0) emx_result_int("isend_max_cycles", (long long)longest);
  if (rank == 1) emx_result_int("polls", polls);
  free(out), free(in), free(first);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void outstanding(int count) {
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  int *out = malloc(count * sizeof *out), *in = malloc(count * sizeof *in);
  MPI_Request *q = malloc(2 * count * sizeof *q);
  for (int k = 0; k < count; ++k) {
    out[k] = rank * 100000 + k;
    in[k] = -1;
    MPI_Irecv(&in[k], 1, MPI_INT, from, k % 100, MPI_COMM_WORLD, &q[k]);
  }
  for (int k = 0; k < count; ++k) MPI_Isend(&out[k], 1, MPI_INT, to, k % 100, MPI_COMM_WORLD, &q[count + k]);
  MPI_Waitall(2 * count, q, MPI_STATUSES_IGNORE);
  for (int k = 0; k < count; ++k) check(in[k] == from * 100000 + k, "message %d: %d", k, in[k]);
  free(out), free(in), free(q);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void reverse(int count, const char *how) {
  const int any = !strcmp(how, "any"), probe = !strcmp(how, "probe");
  if (rank != 0) {
    int *out = malloc(count * sizeof *out);
    MPI_Request *q = malloc(count * sizeof *q);
    for (int k = 0; k < count; ++k) {
      out[k] = rank * 100000 + k;
      MPI_Isend(&out[k], 1, MPI_INT, 0, k, MPI_COMM_WORLD, &q[k]);
    }
    MPI_Waitall(count, q, MPI_STATUSES_IGNORE);
    free(out), free(q);
  } else {
    for (int k = count - 1; k >= 0; --k)
      for (int src = 1; src < size; ++src) {
        int in = -1, n = 0;
        MPI_Status st;
        if (probe) {
          MPI_Probe(src, k, MPI_COMM_WORLD, &st);
          MPI_Get_count(&st, MPI_INT, &n);
          check(st.MPI_SOURCE == src && st.MPI_TAG == k && n == 1, "probe of tag %d from %d", k,
                src);
        }
        MPI_Recv(&in, 1, MPI_INT, any ? MPI_ANY_SOURCE : src, k, MPI_COMM_WORLD, &st);
        const int from = any ? st.MPI_SOURCE : src;
        check(st.MPI_TAG == k && in == from * 100000 + k, "tag %d from %d: %d", k, from, in);
      }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void posted_flood(int count) {
  int *msg = malloc(count * sizeof *msg);
  if (rank != 0) {
    MPI_Request *q = malloc(count * sizeof *q);
    for (int k = 0; k < count; ++k) MPI_Irecv(&msg[k], 1, MPI_INT, 0, k, MPI_COMM_WORLD, &q[k]);
    MPI_Waitall(count, q, MPI_STATUSES_IGNORE);
    for (int k = 0; k < count; ++k) check(msg[k] == k * 1000 + rank, "message %d: %d", k, msg[k]);
    free(q);
  } else {
    spin(200000); /* every receive request arrives before its send */
    for (int dst = 1; dst < size; ++dst)
      for (int k = 0; k < count; ++k) {
        const int v = k * 1000 + dst;
        MPI_Send(&v, 1, MPI_INT, dst, k, MPI_COMM_WORLD);
      }
  }
  free(msg);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void beyond_credits(int count) {
  if (rank == 1) {
    int *msg = malloc(count * sizeof *msg), wild = -1, two = -1, three = -1, flag = 0;
    MPI_Request *q = malloc((count + 3) * sizeof *q);
    MPI_Status st;
    for (int k = 0; k < count; ++k) {
      if (k == count / 2) { /* (beyond the credits when COUNT is over twice the share) */
        MPI_Irecv(&two, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &q[count + 1]);
        MPI_Irecv(&three, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &q[count + 2]);
      }
      if (k == count * 3 / 4) MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &q[count]);
      MPI_Irecv(&msg[k], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &q[k]);
    }
    MPI_Cancel(&q[count + 2]);
    MPI_Wait(&q[count + 2], &st);
    MPI_Test_cancelled(&st, &flag);
    check(flag, "the receive without a credit was not cancelled");
    MPI_Wait(&q[count + 1], MPI_STATUS_IGNORE);
    check(two == 2, "tag 2: %d", two);
    MPI_Wait(&q[count], &st);
    check(wild == 4 && st.MPI_SOURCE == 0, "tag 4: %d from %d", wild, st.MPI_SOURCE);
    MPI_Waitall(count, q, MPI_STATUSES_IGNORE);
    for (int k = 0; k < count; ++k) check(msg[k] == k, "message %d: %d", k, msg[k]);
    free(q);
    free(msg);
  } else if (rank == 0 && size > 1) {
    spin(200000); /* every receive is posted */
    const int two = 2, four = 4;
    MPI_Send(&two, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    MPI_Send(&four, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    for (int k = 0; k < count; ++k) MPI_Send(&k, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0's memory, taken until malloc fails (a list through the blocks). */
static void *exhaust_memory(void) {
  void *list = 0;
  for (size_t n = 1u << 16; n >= sizeof(void *); n /= 2)
    for (void **p; (p = malloc(n));) {
      *p = list;
      list = p;
    }
  return list;
}

static void no_memory(int bytes) {
  const int peers = size - 1;
  unsigned char *buf = malloc((size_t)size * (bytes + 8));
  MPI_Request *q = malloc((size_t)size * sizeof *q);
  for (int round = 0; round < 2; ++round) { /* the first warms up MPI's free lists */
    if (rank == 0) {
      void *held = round ? exhaust_memory() : 0;
      check(!round || !malloc(8), "memory left");
      MPI_Barrier(MPI_COMM_WORLD);
      for (int p = 1; p < size; ++p) /* the messages arrive first */
        for (int flag = 0; !flag;) MPI_Iprobe(p, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      for (int p = 1; p < size; ++p)
        MPI_Irecv(buf + p * (bytes + 8) + 1 + p % 3, bytes, MPI_BYTE, p, 7, MPI_COMM_WORLD, &q[p]);
      MPI_Waitall(peers, q + 1, MPI_STATUSES_IGNORE);
      for (int p = 1; p < size; ++p)
        for (int i = 0; i < bytes; ++i)
          if (buf[p * (bytes + 8) + 1 + p % 3 + i] != value(p, round, i)) {
            check(0, "from %d, byte %d: %d", p, i, buf[p * (bytes + 8) + 1 + p % 3 + i]);
            break;
          }
      while (held) {
        void *next = *(void **)held;
        free(held);
        held = next;
      }
    } else {
      for (int i = 0; i < bytes; ++i) buf[i] = value(rank, round, i);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    }
  }
  free(q);
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void two_late(int count) {
  int *msg = malloc(count * sizeof *msg);
  if (rank == 1) {
    MPI_Request *q = malloc(count * sizeof *q);
    for (int k = 0; k < count; ++k) {
      msg[k] = k;
      MPI_Isend(&msg[k], 1, MPI_INT, 0, k, MPI_COMM_WORLD, &q[k]);
    }
    MPI_Waitall(count, q, MPI_STATUSES_IGNORE);
    free(q);
  } else if (rank == 0) {
    const int late[2] = {count - 1, count - 5};
    MPI_Request q[2];
    spin(200000);
    for (int k = 0; k < count; ++k) msg[k] = -1;
    for (int j = 0; j < 2; ++j) MPI_Irecv(&msg[late[j]], 1, MPI_INT, 1, late[j], MPI_COMM_WORLD, &q[j]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    for (int k = 0; k < count; ++k)
      if (k != late[0] && k != late[1])
        MPI_Recv(&msg[k], 1, MPI_INT, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < count; ++k) check(msg[k] == k, "message %d: %d", k, msg[k]);
  }
  free(msg);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void cancel_queued(int count) {
  if (rank == 1) {
    int *out = malloc(count * sizeof *out);
    MPI_Request *q = malloc(count * sizeof *q);
    for (int k = 0; k < count; ++k) {
      out[k] = k;
      MPI_Isend(&out[k], 1, MPI_INT, 0, k, MPI_COMM_WORLD, &q[k]);
    }
    MPI_Cancel(&q[count - 1]);
    MPI_Status st[count];
    MPI_Waitall(count, q, st);
    for (int k = 0; k < count; ++k) {
      int flag;
      MPI_Test_cancelled(&st[k], &flag);
      check(flag == (k == count - 1), "send %d cancelled: %d", k, flag);
    }
    free(out), free(q);
  } else if (rank == 0) {
    /* Computes in short threads: by default each MPI_Isend of rank 1 waits for its
     * operand segment, which rank 0's handlers give between them. */
    for (int k = 0; k < 200; ++k) {
      spin(1000);
      emx_yield();
    }
    for (int k = 0; k < count - 1; ++k) {
      int in = -1;
      MPI_Recv(&in, 1, MPI_INT, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(in == k, "message %d: %d", k, in);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int flag = 1;
    MPI_Iprobe(1, count - 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    check(!flag, "the cancelled message arrived");
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *what = argc > 1 ? argv[1] : "";
  const int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;
  if (!strcmp(what, "unexpected")) unexpected(a, b);
  else if (!strcmp(what, "isend") && size > 1) isend_local(a, b);
  else if (!strcmp(what, "poll") && size > 1) poll_while_sending(argc > 2 ? argv[2] : "", b);
  else if (!strcmp(what, "outstanding")) outstanding(a);
  else if (!strcmp(what, "cancel") && size > 1) cancel_queued(a);
  else if (!strcmp(what, "two") && size > 1) two_late(a);
  else if (!strcmp(what, "posted")) posted_flood(a);
  else if (!strcmp(what, "beyond")) beyond_credits(a);
  else if (!strcmp(what, "nomem")) no_memory(a);
  else if (!strcmp(what, "reverse")) reverse(a, argc > 3 ? argv[3] : "");
  report(what);
  MPI_Finalize();
  return 0;
}
