/* Offsets and constants that sreq.S uses beside irecv_layout.h's: the receiver's usual
 * send request by hand. receiver_match.c checks every one at compile time. */
#ifndef EMX_MPI_SREQ_LAYOUT_H
#define EMX_MPI_SREQ_LAYOUT_H

#define S_REQ_FLAGS 26         /* mpi_request.flags */
#define S_REQ_PRQ 60           /* mpi_request.prq: prev, next */
#define S_RF_IN_PRQ 0x40
#define S_RF_WILD_HELD 0x180   /* RF_WILD | RF_HELD */
#define S_RF_READING 0x200
#define S_RF_COMPLETE 0x8
#define S_RF_ARMED_READER 0x30 /* RF_ARMED | RF_READER: req_complete writes `done` */
#define S_SREQ_INLINE 4
#define S_SHORT_BYTES 32       /* 4 * SHORT_WORDS: copied word by word */
#define S_TMP_SMALL_BYTES 24   /* TMP_SMALL_BYTES: a buffer of the free list */
#define S_SREQ_PROTO 3         /* the send request's bits: protocol (PROTO_BUFFERED = 0) */
#define S_SENDER_SHIFT 3       /* sender_credits: 8 bytes, minted at 4 */
#define S_SENDER_MINTED 4
#define S_BLOCK_BYTES 8192     /* 4 * FETCH_BLOCK_WORDS */
#define S_COUNT_FETCHED 28     /* mpi_counters[C_FETCHED_WORDS] */
#define S_TAG_ANY_HI 0xffff0   /* TAG_ANY16 << 16, as lui's immediate */
/* The SYSRD of a message's last word replies to this slot of the send request's frame
 * (creation.c's template: mpi_sreq_read_done), whose words hold the word's destination
 * (the slot's own word: a reply leaves it alone) and the receive's `done`. */
#define S_READ_SLOT 8          /* after the request's words (4..7) */
#define S_READ_DST 32          /* 4 * S_READ_SLOT */
#define S_READ_DONE 36

#endif
