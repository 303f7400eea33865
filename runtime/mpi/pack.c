/* Packing: non-contiguous datatypes, MPI_Pack/Unpack/Pack_size, and the requests whose
 * data travels packed.
 *
 * A message of a non-contiguous type goes through a packed copy: the sender packs its
 * data into a temporary buffer and sends that like a contiguous message (any protocol,
 * one-sided remote writes included); the receiver receives into a temporary buffer of
 * the data's size and unpacks it when the receive completes (MPI_Wait/Test). Packed data
 * is the data bytes in typemap order: every PE has the same representation. */
#include <stdlib.h>
#include <string.h>

#include "datatypes.h"
#include "mpi_internal.h"

/* ---- The copy loops --------------------------------------------------------------------- */

/* Copies between n elements of basic type t at `user` (C layout) and packed data, at
 * most `bytes` bytes of it; returns the bytes copied. A padded pair's packed form is its
 * value, then its index. */
static uint32_t copy_basic(int t, char *user, int n, char *packed, uint32_t bytes, int to_user) {
  const type_info *b = &basic_types[t];
  uint32_t done = 0;
  if (!basic_padded(t)) {
    const uint32_t all = (uint32_t)n * b->data;
    done = bytes < all ? bytes : all;
    if (to_user) memcpy(user, packed, done);
    else memcpy(packed, user, done);
    return done;
  }
  const uint32_t value = b->data - sizeof(int);
  for (int i = 0; i < n && done < bytes; ++i, user += b->extent) {
    const uint32_t parts[2][2] = {{0, value}, {b->index_at, sizeof(int)}};
    for (int p = 0; p < 2 && done < bytes; ++p) {
      const uint32_t m = bytes - done < parts[p][1] ? bytes - done : parts[p][1];
      if (to_user) memcpy(user + parts[p][0], packed + done, m);
      else memcpy(packed + done, user + parts[p][0], m);
      done += m;
    }
  }
  return done;
}

/* Copies between count copies of a type at `user` and packed data, at most `bytes`
 * bytes of it (unpack: to_user): d is the flattened type, NULL for the basic type t. */
static void copy_runs(const dtype *d, MPI_Datatype t, char *user, int count, char *packed,
                      uint32_t bytes, int to_user) {
  if (!d) {
    copy_basic(t, user, count, packed, bytes, to_user);
    return;
  }
  const MPI_Aint extent = d->ub - d->lb;
  for (int i = 0; i < count && bytes; ++i, user += extent)
    for (int k = 0; k < d->nruns && bytes; ++k) {
      const uint32_t n = copy_basic(d->runs[k].type, user + d->runs[k].disp, d->runs[k].count,
                                    packed, bytes, to_user);
      packed += n;
      bytes -= n;
    }
}

void type_pack(const void *buf, int count, MPI_Datatype t, void *out) {
  copy_runs(type_get(t), t, (char *)buf, count, out, UINT32_MAX, 0);
}
void type_unpack(const void *in, uint32_t bytes, void *buf, int count, MPI_Datatype t) {
  copy_runs(type_get(t), t, buf, count, (char *)in, bytes, 1);
}

/* The bytes that count copies of t at offset 0 touch: [*lo, *hi). */
void type_span(MPI_Datatype t, int count, int64_t *lo, int64_t *hi) {
  type_extent e;
  type_bounds(t, &e);
  if (count <= 0 || e.true_ub <= e.true_lb) {
    *lo = *hi = 0;
    return;
  }
  const int64_t last = (int64_t)(count - 1) * e.extent;
  *lo = e.true_lb + (last < 0 ? last : 0);
  *hi = e.true_ub + (last > 0 ? last : 0);
}

/* ---- Requests whose data travels packed --------------------------------------------------- */

typedef struct pack_state {
  void *user;   /* the user's buffer */
  int count;
  MPI_Datatype type;
  dtype *ref;   /* held so that MPI_Type_free may come before the completion */
  void *tmp;    /* the packed data */
  uint32_t bytes;
} pack_state;

pack_state *pack_new(MPI_Comm comm, const char *fn, const void *buf, int count,
                     MPI_Datatype type, uint32_t bytes) {
  pack_state *p = malloc(sizeof *p);
  void *tmp = malloc(bytes ? bytes : 4);
  if (!p || !tmp) {
    free(p), free(tmp);
    mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory to pack %u bytes", (unsigned)bytes);
    return 0;
  }
  *p = (pack_state){(void *)buf, count, type, type_ref(type), tmp, bytes};
  return p;
}

void *pack_buffer(const pack_state *p) { return p->tmp; }

/* A send starts (again): its data into the packed buffer. */
void pack_send_data(pack_state *p) {
  copy_runs(p->ref, p->type, p->user, p->count, p->tmp, p->bytes, 0);
}

static void pack_free(pack_state *p) {
  if (p->ref) type_unref(p->ref);
  free(p->tmp);
  free(p);
}

/* r (RF_PACKED) completed with `bytes` bytes received (receives): unpack (by the type we
 * hold: the handle may be freed already); a request that goes away gives its buffer
 * back. */
void pack_finish(mpi_request *r, uint32_t bytes) {
  pack_state *p = r->pack;
  if (r->kind == REQ_RECV && !(r->flags & RF_CANCELLED))
    copy_runs(p->ref, p->type, p->user, p->count, p->tmp, bytes, 1);
  if (!(r->flags & RF_PERSISTENT)) {
    pack_free(p);
    r->pack = 0;
    r->flags &= (uint16_t)~RF_PACKED;
  }
}

/* ---- MPI_Pack and friends ----------------------------------------------------------------- */

/* A valid type and count whose packed size fits an int: *bytes. */
static int check_pack_type(MPI_Comm comm, const char *fn, MPI_Datatype t, int count, int *bytes) {
  const int size = type_size(t);
  if (size == TYPE_HUGE)
    return mpi_error(comm, MPI_ERR_TYPE, fn, "datatype %d has more bytes than an int counts", t);
  if (size < 0) return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid datatype %d", t);
  if (count < 0) return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
  const int64_t n = (int64_t)count * size;
  if (n > INT32_MAX)
    return mpi_error(comm, MPI_ERR_COUNT, fn, "%d elements of datatype %d are %lld bytes, more "
                     "than an int counts", count, t, (long long)n);
  *bytes = (int)n;
  return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int *size) {
  mpi_comm *c;
  int err = check_comm(comm, "MPI_Pack_size", &c);
  int n;
  if (!err) err = check_pack_type(comm, "MPI_Pack_size", type, incount, &n);
  if (err) return err;
  *size = n;
  return MPI_SUCCESS;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype type, void *outbuf, int outsize,
             int *position, MPI_Comm comm) {
  const char *fn = "MPI_Pack";
  mpi_comm *c;
  int err = check_comm(comm, fn, &c);
  int n;
  if (!err) err = check_pack_type(comm, fn, type, incount, &n);
  if (err) return err;
  if (*position < 0 || *position > outsize || n > outsize - *position)
    return mpi_error(comm, MPI_ERR_TRUNCATE, fn,
                     "%d bytes at position %d do not fit in %d bytes", n, *position, outsize);
  type_pack(inbuf, incount, type, (char *)outbuf + *position);
  *position += n;
  return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype type, MPI_Comm comm) {
  const char *fn = "MPI_Unpack";
  mpi_comm *c;
  int err = check_comm(comm, fn, &c);
  int n;
  if (!err) err = check_pack_type(comm, fn, type, outcount, &n);
  if (err) return err;
  if (*position < 0 || *position > insize || n > insize - *position)
    return mpi_error(comm, MPI_ERR_TRUNCATE, fn,
                     "%d bytes at position %d are beyond the %d bytes packed", n, *position, insize);
  type_unpack((const char *)inbuf + *position, (uint32_t)n, outbuf, outcount, type);
  *position += n;
  return MPI_SUCCESS;
}
