/* The offsets and constants irecv.S relies on (irecv_layout.h), checked against the C
 * declarations at compile time: a change of layout fails the build, not the program. */
#include "datatypes.h"
#include "irecv_layout.h"
#include "mpi_internal.h"

#define L_CHECK(name, expr) _Static_assert((name) == (expr), #name)
#define L_AT(name, type, member) \
  _Static_assert((name) == __builtin_offsetof(type, member), #name " is " #type "." #member)
L_AT(L_COMM_CTX, mpi_comm, ctx);
L_AT(L_COMM_BASE_PE, mpi_comm, base_pe);
L_AT(L_COMM_SIZE, mpi_comm, size);
L_CHECK(1 << L_TYPE_INFO_SHIFT, sizeof(type_info));
L_AT(0, type_info, size);
L_AT(L_REQ_DONE, mpi_request, done);
L_AT(L_REQ_SRCTAG, mpi_request, srctag);
L_AT(L_REQ_BYTES, mpi_request, bytes);
L_AT(L_REQ_HANDLE, mpi_request, handle);
L_AT(L_REQ_KIND, mpi_request, kind);
L_AT(L_REQ_KIND + 2, mpi_request, flags);
L_AT(L_REQ_REFS, mpi_request, refs);
L_AT(L_REQ_REFS + 2, mpi_request, isq_count);
L_AT(L_REQ_PROTO, mpi_request, proto);
L_AT(L_REQ_BUF, mpi_request, buf);
L_AT(L_REQ_CAPACITY, mpi_request, capacity);
L_AT(L_REQ_COMM, mpi_request, comm);
L_AT(L_REQ_RANK, mpi_request, rank);
L_AT(L_REQ_PE, mpi_request, pe);
L_AT(L_REQ_PE + 2, mpi_request, tag);
L_AT(L_REQ_CTX, mpi_request, ctx);
L_AT(L_REQ_CTX + 2, mpi_request, base_pe);
L_AT(L_REQ_ISQ_NEWEST, mpi_request, isq_newest);
L_AT(L_REQ_ISQ_OWN, mpi_request, isq_own);
L_AT(L_REQ_ISQ_OWN, mpi_request, isq_own.link.next);
L_AT(L_REQ_ISQ_SEQ, mpi_request, isq_own.link.seq);
L_AT(L_REQ_ISQ_REQ, mpi_request, isq_own.req);
L_AT(L_REQ_ISQ_KEY, mpi_request, isq_own.key);
L_AT(L_REQ_WAITER, mpi_request, waiter);
L_AT(L_KEY_CHAIN, kq_key, chain);
L_AT(L_KEY_PT, kq_key, pt);
L_AT(L_KEY_CTX, kq_key, ctx);
L_AT(L_KEY_HEAD, kq_key, head);
L_AT(L_KEY_TAIL, kq_key, tail);
L_AT(L_KQ_SEQ, kq_table, seq);
L_AT(L_KQ_ANY_KEYS, kq_table, any_keys);
L_AT(L_KQ_IDLE, kq_table, idle);
L_AT(0, kq_table, bucket);
L_CHECK(KQ_BITS, 6);
L_AT(0, mpi_pool, free);
L_AT(L_DL_NEXT, dl_list, head.next);
L_CHECK(1 << L_FRAME_SHIFT, sizeof(emx_static_frame_t));
L_CHECK(L_COUNT_RECV_REQUESTS, 4 * C_RECV_REQUESTS);
L_CHECK(L_BASIC_TYPES, BASIC_TYPES);
L_CHECK(L_REQ_GEN_MASK, REQ_GEN_MASK);
L_CHECK(L_TAG_UB, MPI_TAG_UB_VALUE);
L_CHECK(L_RREQ_PAIR_CTX, RREQ_PAIR_CTX);
L_CHECK(L_RREQ_PAIR_BYTES, 4 * RREQ_PAIR_WORDS);
L_CHECK(L_RREQ_PAIR_ANY, RREQ_PAIR_ANY);
L_CHECK(L_KIND_FLAGS, REQ_RECV | RF_ACTIVE << 16);
L_CHECK(L_PROTO_GET, PROTO_GET);
L_CHECK(0, MATCH_BOTH);
L_CHECK(-1, MPI_ANY_TAG);
L_CHECK(0xffff, TAG_ANY16);
L_CHECK(1, EMX_PKT_invoke2l);
L_CHECK(2, EMX_PKT_invoke2r);
L_CHECK(22, EMX_GADDR_PE_SHIFT);
L_AT(L_OPT_STAGED, mpi_options, staged_records);
L_AT(L_OPT_LOCAL_ISEND, mpi_options, local_isend);
L_CHECK(L_REQ_RREQ, REQ_RREQ);
