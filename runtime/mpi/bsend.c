/* Buffered mode: MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend, and the persistent
 * forms of the other modes.
 *
 * A buffered send copies (packs) its data into the attached buffer, behind a header of
 * MPI_BSEND_OVERHEAD bytes, and sends that copy as a standard-mode message; the send
 * returns at once (Ibsend's request is complete). A copy's space is taken back when its
 * send has completed: looked at before each allocation and waited for at detach. Space
 * is taken first-fit in address order, as MPI's rules for the buffer's size assume. */
#include <string.h>

#include "datatypes.h"
#include "mpi_internal.h"

typedef struct bsend_block {
  struct bsend_block *next; /* in address order */
  uint32_t bytes;           /* the whole block, header included */
  MPI_Request request;      /* its send; MPI_REQUEST_NULL once complete */
} bsend_block;
/* A block's header. MPI sizes the buffer as the sum of MPI_Pack_size +
 * MPI_BSEND_OVERHEAD per message, so the padding of a copy to whole words (up to 3
 * bytes) and of an unaligned buffer's start (up to 3) must fit in the overhead too. */
enum { BSEND_HEADER = MPI_BSEND_OVERHEAD - 8 };
_Static_assert(sizeof(bsend_block) <= BSEND_HEADER, "MPI_BSEND_OVERHEAD too small");

static char *attached;
static uint32_t attached_bytes;
static bsend_block *blocks;

int MPI_Buffer_attach(void *buffer, int size) {
  const char *fn = "MPI_Buffer_attach";
  MPI_REQUIRE_INIT(fn);
  if (attached) return mpi_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "a buffer is attached already");
  if (size < 0) return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative size %d", size);
  /* Blocks start word aligned: the copies go one-sided by whole words when they can. */
  const uintptr_t a = ((uintptr_t)buffer + 3) & ~(uintptr_t)3;
  attached = buffer;
  attached_bytes = (uint32_t)size > a - (uintptr_t)buffer ? (uint32_t)size - (uint32_t)(a - (uintptr_t)buffer) : 0;
  blocks = 0;
  return MPI_SUCCESS;
}

/* Takes back the space of completed sends (wait: of all). */
static int reap(int wait) {
  for (bsend_block **p = &blocks; *p;) {
    bsend_block *b = *p;
    int done = 1;
    if (wait) {
      const int err = MPI_Wait(&b->request, MPI_STATUS_IGNORE);
      if (err) return err;
    } else {
      const int err = MPI_Test(&b->request, &done, MPI_STATUS_IGNORE);
      if (err) return err;
    }
    if (done) *p = b->next;
    else p = &b->next;
  }
  return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size) {
  const char *fn = "MPI_Buffer_detach";
  MPI_REQUIRE_INIT(fn);
  if (!attached) {
    *(void **)buffer_addr = 0;
    *size = 0;
    return MPI_SUCCESS;
  }
  const int err = reap(1); /* MPI: detach blocks until every buffered message is sent */
  if (err) return err;
  *(void **)buffer_addr = attached;
  const uintptr_t a = ((uintptr_t)attached + 3) & ~(uintptr_t)3;
  *size = (int)(attached_bytes + (a - (uintptr_t)attached));
  attached = 0;
  attached_bytes = 0;
  return MPI_SUCCESS;
}

/* First fit between the live blocks; 0 if no room. */
static bsend_block *place(uint32_t bytes) {
  char *base = (char *)(((uintptr_t)attached + 3) & ~(uintptr_t)3), *end = base + attached_bytes;
  char *at = base;
  bsend_block **link = &blocks;
  for (bsend_block *b = blocks; ; b = b->next) {
    char *limit = b ? (char *)b : end;
    if (limit >= at && (uint32_t)(limit - at) >= bytes) {
      bsend_block *n = (bsend_block *)at;
      n->next = b;
      n->bytes = bytes;
      n->request = MPI_REQUEST_NULL;
      *link = n;
      return n;
    }
    if (!b) return 0;
    at = (char *)b + b->bytes;
    link = &b->next;
  }
}

static int bsend(const char *fn, const void *buf, int count, MPI_Datatype type, int dest,
                 int tag, MPI_Comm comm) {
  mpi_comm *c;
  uint32_t bytes;
  int err = check_comm(comm, fn, &c);
  if (!err) err = check_buffer(comm, fn, buf, count, type, 0, &bytes);
  if (err) return err;
  if (dest == MPI_PROC_NULL) return MPI_Send(buf, count, type, dest, tag, comm);
  if ((err = reap(0))) return err;
  const uint32_t need = BSEND_HEADER + ((bytes + 3) & ~3u);
  bsend_block *b = attached ? place(need) : 0;
  if (!b)
    return mpi_error(comm, MPI_ERR_BUFFER, fn,
                     "no room for %u bytes in the attached buffer (%s of %u bytes)",
                     (unsigned)need, attached ? "attached" : "none attached",
                     (unsigned)attached_bytes);
  char *copy = (char *)b + BSEND_HEADER;
  type_pack(buf, count, type, copy);
  err = MPI_Isend(copy, (int)bytes, MPI_BYTE, dest, tag, comm, &b->request);
  if (err) reap(0);
  return err;
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return bsend("MPI_Bsend", buf, count, type, dest, tag, comm);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  const int err = bsend("MPI_Ibsend", buf, count, type, dest, tag, comm);
  if (err) return err;
  /* The data is in the buffer: the request is complete (a send to MPI_PROC_NULL). */
  return MPI_Isend(buf, 0, MPI_BYTE, MPI_PROC_NULL, tag, comm, request);
}

/* Persistent buffered and ready sends start as standard-mode sends: a correct program
 * cannot tell a ready send from a standard one; a persistent buffered send then may
 * wait for its receive where MPI lets it return (said in docs/mpi.md). */
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request) {
  return MPI_Send_init(buf, count, type, dest, tag, comm, request);
}
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request) {
  return MPI_Send_init(buf, count, type, dest, tag, comm, request);
}
