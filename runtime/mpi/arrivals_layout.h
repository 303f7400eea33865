/* Byte offsets and constants that arrivals.S and send_miss.S use beyond irecv_layout.h's.
 * sender_match.c and creation.c check every one against the C declarations at compile
 * time. */
#ifndef EMX_MPI_ARRIVALS_LAYOUT_H
#define EMX_MPI_ARRIVALS_LAYOUT_H

#define L_REQ_FIX 12            /* mpi_request.fix[0] */
#define L_REQ_FLAGS 26
#define L_REQ_ISQ_COUNT 30
#define L_ISQ_REQ 8             /* isq_entry.req */
#define L_RR_RREQ 8             /* recv_record */
#define L_RR_BUF 12
#define L_RR_CAPACITY 16
#define L_SENDQ_SHIFT 4         /* send_queue: 16 bytes */
#define L_SENDQ_CREDITS 12
#define L_SQ_QUEUED 256
#define L_SQ_CREDIT 512
#define L_SQ_CROSSED 2048
#define L_SHORT_BYTES 32        /* 4 * SHORT_WORDS */
#define L_KQ_IDLE_MAX 64
#define L_OPT_DONE_SIZED 4      /* mpi_options.done_sized */
#define L_W_SRCTAG 1            /* REQ_W_SRCTAG */
#define L_W_BYTES 2             /* REQ_W_BYTES */
#define L_DONE_SET 1
#define L_DONE_SIZED 2
#define L_RF_ACTIVE 1
#define L_RF_USER_FREED 4
#define L_RF_COMPLETE 8
#define L_RF_ACTIVE_COMPLETE 9
#define L_RF_ARMED_READER 48
#define L_SREQ_PROTO 3          /* a send request's bits */
#define L_SREQ_FALLBACK 8
#define L_COUNT_ONE_SIDED 0     /* mpi_counters[C_ONE_SIDED] */
#define L_COUNT_CONCURRENT 16   /* mpi_counters[C_CONCURRENT] */
#define L_COUNT_REMOVALS 24     /* mpi_counters[C_REMOVALS] */

#define L_COUNT_SEND_REQUESTS 4 /* mpi_counters[C_SEND_REQUESTS] */
#define L_OB_HEAD 0             /* creation.c's outbox */
#define L_OB_TAIL 4
#define L_OB_CREATES 8
#define L_OB_ASKED 12
#define L_OB_DRAINED 16
#define L_OB_DIRECT 20           /* its direct op (next, header) */
#define L_OB_BYTES 32            /* (a power of two: L_OB_SHIFT) */
#define L_OB_SHIFT 5
#define L_OP_HDR 4              /* outbox_op: op, kind, bits, n */
#define L_OP_W 8
#define L_MAX_ASKED 2
#define L_ISQ_ONE 0x00010001    /* refs, isq_count: one reference, one entry */
#define L_REQ_PRQ 60            /* mpi_request.prq */
#define L_SQ_TMP_STATE 0x700    /* SQ_QUEUED | SQ_CREDIT | SQ_TMP, buffered's bits (0) */
#define L_OP_TMP_HDR 0x02000200 /* outbox_op: OP_CREATE, REQ_TMP, no bits, 2 words */
#define L_OPT_SREQ_INLINE 3     /* mpi_options.sreq_inline */
#define L_SENDQ_PUTTING 14      /* send_queue.putting (tmp_answer.S, checked in credits.c) */
#define L_SQ_TMP_CREDIT 0x600   /* SQ_TMP | SQ_CREDIT */
#define L_MATCH_BOTH 0
#define L_REQ_ARGS 4            /* REQ_ARGS_WORD: the first word of a frame's request */
#define L_WAIT_PLAIN 0x5c1f     /* wait.c's PLAIN_FLAGS | RF_COMPLETE (checked there) */
#define L_RF_READER 32
#define L_REQ_RECV 2            /* mpi_request.kind of a receive */
#define L_CTX_NEXT 16           /* emx_ctx_t.ra: the free list's link */
#define L_CTX_CONT 28           /* emx_ctx_t.cont */

#endif
