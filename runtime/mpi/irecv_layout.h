/* Byte offsets and constants that irecv.S uses: MPI_Irecv's usual case by hand.
 * irecv_layout.c checks every one against the C declarations at compile time. */
#ifndef EMX_MPI_IRECV_LAYOUT_H
#define EMX_MPI_IRECV_LAYOUT_H

#define L_COMM_CTX 0 /* mpi_comm */
#define L_COMM_BASE_PE 2
#define L_COMM_SIZE 4
#define L_TYPE_INFO_SHIFT 3 /* type_info: 8 bytes, size first */
#define L_REQ_DONE 0 /* mpi_request */
#define L_REQ_SRCTAG 4
#define L_REQ_BYTES 8
#define L_REQ_HANDLE 20
#define L_REQ_KIND 24 /* kind, flags: one word */
#define L_REQ_REFS 28 /* refs, isq_count: one word */
#define L_REQ_PROTO 32
#define L_REQ_BUF 36
#define L_REQ_CAPACITY 40
#define L_REQ_COMM 44
#define L_REQ_RANK 48
#define L_REQ_PE 52 /* pe, tag: one word */
#define L_REQ_CTX 56 /* ctx, base_pe: one word */
#define L_REQ_ISQ_NEWEST 68
#define L_REQ_ISQ_OWN 72 /* its link (next, seq), req, key */
#define L_REQ_ISQ_SEQ 76
#define L_REQ_ISQ_REQ 80
#define L_REQ_ISQ_KEY 84
#define L_REQ_WAITER 88
#define L_KEY_CHAIN 0 /* kq_key */
#define L_KEY_PT 8
#define L_KEY_CTX 12
#define L_KEY_HEAD 16
#define L_KEY_TAIL 20
#define L_KQ_SEQ 256 /* kq_table */
#define L_KQ_ANY_KEYS 260
#define L_KQ_IDLE 264
#define L_DL_NEXT 4 /* dl_list: head.next */
#define L_FRAME_SHIFT 7 /* emx_static_frame_t: 128 bytes */
#define L_COUNT_RECV_REQUESTS 8 /* mpi_counters[C_RECV_REQUESTS] */
#define L_BASIC_TYPES 35
#define L_REQ_GEN_MASK 7
#define L_TAG_UB 65534
#define L_RREQ_PAIR_CTX 31
#define L_RREQ_PAIR_BYTES 4096
#define L_RREQ_PAIR_ANY 1023
#define L_KIND_FLAGS 0x00010002 /* REQ_RECV, RF_ACTIVE */
#define L_REFS_ISQ 0x00010001   /* one reference, one entry */
#define L_PROTO_GET 1
#define L_OPT_STAGED 1 /* mpi_options.staged_records */
#define L_OPT_LOCAL_ISEND 5 /* mpi_options.local_isend */
#define L_REQ_RREQ 1   /* the kind of a receive request (creation.c) */
#define L_OP_DIRECT 2  /* creation.c's ops (checked there) */
#define L_OP_RREQ_HDR 0x04000100 /* OP_CREATE, REQ_RREQ, no bits, 4 words */

#endif
