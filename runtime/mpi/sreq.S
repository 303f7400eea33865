/* The receiver's usual send request by hand, as the original had its hot paths in
 * assembly: the thread a send request's creation invokes (creation.c's template, slot 1 +
 * REQ_SREQ), with matching on the receiver only on EM-X (its remote read; else
 * matching_init chooses mpi_sreq_thread_general: all in C), the oldest posted receive taking it (from that source, its tag or MPI_ANY_TAG, not
 * a wildcard or held one), buffers and size word aligned. What the C path's usual cases
 * do (receiver_match.c: sreq_arrived):
 * - get or sync, 1 .. 4 * FETCH_BLOCK_WORDS bytes: the read of the data leaves first, by
 *   the hardware's SYSRD (a sysrdw a word straight into the receive buffer, the last
 *   word by a SYSRD replying to this frame, kept: mpi_sreq_read_done stores it and writes
 *   the receive's `done`), or with -mpi-option=block-read by the block read with the
 *   receive's `done` as its completion (read_into_request: no thread follows); then the
 *   send's completion; then the receive leaves the posted list with its status, and the
 *   credit goes back (credit_release).
 * - buffered, 1 .. 4 * SHORT_WORDS bytes in a temporary buffer of this PE, no minted
 *   credit out (sreq_buffered): the send's completion and its credit, the receive out of
 *   the posted list with its status, the words copied out, the receive complete
 *   (req_complete), the buffer back to its free list.
 * - an empty message, any protocol, no minted credit out: the send's completion and its
 *   credit, the receive out of the posted list with its status, complete.
 * The inbound count goes down (as creation.c's other threads do) once the read is out,
 * the frame back then too, or when the SYSRD's reply has run. No register to save.
 * Anything else goes to sreq_arrived (C) before anything is changed. Offsets:
 * sreq_layout.h and irecv_layout.h, checked in receiver_match.c.
 *
 * Entry: a0 the sender's PE | bits << 10, tp the frame (the request's words from word 4:
 * send request, data address, bytes, tag | ctx << 16). Then a0 the PE, a1 the bits:
 * left intact up to the last branch to .Lc, which points a2 at the words for C. */
#include "irecv_layout.h"
#include "sreq_layout.h"
#include "mpi_asm.h"

#define R(off) ((off) - S_REQ_PRQ)	/* a request's field from its prq link */

/* t0 = the credits minted for the sender and not retired (credit_release: with none
 * out the credit goes back by CREDIT, else credit_retire decides). Uses t3. */
.macro MINTED
	LW_G(t0, mpi_senders)
	slli	t3, a0, S_SENDER_SHIFT
	add	t0, t0, t3
	lw	t0, S_SENDER_MINTED(t0)
.endm

/* The send request's credit back: emx_invoke(pe, mpi_idx_credit, mpi_me, 1); a7 = the
 * sender's PE << 22, a3 = 1 (SENT). Uses t0. */
.macro CREDIT
	LW_G(t0, mpi_credit_word)
	or	t0, t0, a7
	SEND(3, t0, a3)
.endm

/* The send's completion (behind the read at the sender, if any), the receive out of the
 * posted list (dl_remove), its status, the frame back (kept if \keep: the read's reply
 * runs in it); a5 the status (srctag), t2 its flags (RF_IN_PRQ still set: the caller
 * clears it). Uses t0, t3; a3 = 1 (for CREDIT); keeps t1, t5, t6. */
.macro SENT keep=0
	lw	t0, 16(tp)
	li	a3, 1
	SEND(6, t0, a3)				/* iwr DONE_SET */
	lw	t0, 0(a4)
	lw	t3, 4(a4)
	sw	t3, 4(t0)
	sw	t0, 0(t3)
	sw	a4, 0(a4)
	sw	a4, 4(a4)
	sw	a5, R(L_REQ_SRCTAG)(a4)
	sw	t5, R(L_REQ_BYTES)(a4)
.if \keep
	INBOUND -1
.else
	FRAME_FREE
.endif
.endm

/* The receive completes (req_complete): a flag, or an I-structure write of its done
 * when a reader waits there; t2 = its flags, after SENT. Uses t0. */
.macro COMPLETE
	andi	t0, t2, S_RF_ARMED_READER
	bnez	t0, 4f
	ori	t2, t2, S_RF_COMPLETE
	sh	t2, R(S_REQ_FLAGS)(a4)
	j	5f
4:	sh	t2, R(S_REQ_FLAGS)(a4)
	addi	t0, a4, -S_REQ_PRQ
	srli	t0, t0, 2
	or	t0, t0, a6
	SEND(6, t0, a3)				/* a3 = 1 (SENT) */
5:
.endm

/* After the read of get and sync is out: the send's completion, the posted list, the
 * status (SENT), the flags, the words read (`op t3, t3, words`: one word needs no shift),
 * the credit; the thread ends. */
.macro READ_OUT op, words, keep=0
	SENT \keep
	xori	t2, t2, S_RF_IN_PRQ | S_RF_READING /* out of the list; a test of it waits */
	sh	t2, R(S_REQ_FLAGS)(a4)			/* for the read (set, clear before) */
	lui	t0, %hi(mpi_counters + S_COUNT_FETCHED)
	lw	t3, %lo(mpi_counters + S_COUNT_FETCHED)(t0)
	\op	t3, t3, \words
	sw	t3, %lo(mpi_counters + S_COUNT_FETCHED)(t0)
	MINTED					/* the credit (looked at once the read is out) */
	bnez	t0, .Lretire
	CREDIT
	ret
.endm

	.text
	.globl	mpi_sreq_thread
	.type	mpi_sreq_thread, @function
	.p2align 2
mpi_sreq_thread:	/* the words at tp + 16 (creation.c: ARGS); a2 is set on the way to C */
	srli	a1, a0, 10			/* a1: the bits */
	andi	a0, a0, 0x3ff			/* a0: the sender's PE */
	LW_G(a6, mpi_me_gaddr)			/* a6: this PE << 22 */
	slli	a7, a0, 22			/* a7: the sender's PE << 22 */
	beq	a7, a6, .Lc
	LA(t0, mpi_posted)			/* a4: the oldest posted receive's link */
	lw	a4, L_DL_NEXT(t0)
	beq	a4, t0, .Lc
	lw	a5, 28(tp)			/* a5: tag | ctx << 16 (then pe | tag << 16) */
	lhu	t1, R(L_REQ_CTX)(a4)
	srli	t0, a5, 16
	bne	t0, t1, .Lc
	lw	t1, R(L_REQ_PE)(a4)		/* its pe | tag << 16 */
	slli	a5, a5, 16			/* a5: pe | tag << 16 as sent, its status */
	or	a5, a5, a0
	bne	t1, a5, .Ltag_any
1:	lhu	t2, R(S_REQ_FLAGS)(a4)		/* t2: its flags */
	andi	t0, t2, S_RF_WILD_HELD
	bnez	t0, .Lc
	lw	t5, 24(tp)			/* t5: the bytes sent */
	lw	t3, R(L_REQ_BUF)(a4)		/* t3: the receive buffer */
	lw	t4, R(L_REQ_CAPACITY)(a4)
	lw	t1, 20(tp)			/* t1: the data (the sender's or the temporary buffer) */
	andi	t0, a1, S_SREQ_PROTO		/* get or sync (buffered is 0) of one word, */
	beqz	t0, .Lsized
	li	t0, 4
	bne	t5, t0, .Lsized
	bltu	t4, t0, .Lsized			/* room for it, */
	or	t0, t1, t3			/* both aligned */
	andi	t0, t0, 3
	bnez	t0, .Lc
	beqz	t3, .Lc
.Lone:	/* Committed. The hardware's read (unless -mpi-option=block-read): one SYSRD of the
	 * word, replying to the frame's read slot, whose thread (mpi_sreq_read_done) stores
	 * it and completes the receive. */
	LW_G(t0, mpi_block_reads)
	bnez	t0, .Lone_block
	srli	t1, t1, 2
	or	t1, t1, a7
	srli	t0, tp, 2
	or	t0, t0, a6
	addi	t0, t0, S_READ_SLOT
	SEND(5, t1, t0)				/* sysrd: the word, to the read slot */
	sw	t3, S_READ_DST(tp)
	addi	t4, a4, -S_REQ_PRQ
	srli	t4, t4, 2
	or	t4, t4, a6
	sw	t4, S_READ_DONE(tp)
	READ_OUT addi, 1, 1			/* one word read; the frame kept */
.Lone_block:	/* Global addresses: t3 the destination, t1 the source, t4 the receive's done
	 * (offset 0). */
	srli	t3, t3, 2
	or	t3, t3, a6
	srli	t1, t1, 2
	or	t1, t1, a7
	SEND(11, t1, t3)			/* rdb: source, destination */
	addi	t4, a4, -S_REQ_PRQ
	srli	t4, t4, 2
	or	t4, t4, a6
	ori	t0, a7, 1
	SEND(12, t0, t4)			/* rdbn: 1 word, completion: the receive's done */
	READ_OUT addi, 1			/* one word read */
.Lsized:	/* Any other size, or buffered: t6 the bytes taken, min(sent, capacity) */
	beqz	t3, .Lrange
	mv	t6, t5
	bltu	t4, t5, .Ltruncated
2:	or	t0, t1, t3
	or	t0, t0, t6
	andi	t0, t0, 3
	bnez	t0, .Lc
	andi	t4, a1, S_SREQ_PROTO
	beqz	t4, .Lbuffered
	li	t4, 4				/* one word taken of a longer message */
	beq	t6, t4, .Lone
.Lwords:	/* none, or more than one word (up to the block read's limit) */
	addi	t0, t6, -1			/* 1 .. bytes */
	li	t4, S_BLOCK_BYTES
	bgeu	t0, t4, .Lrange
	srli	t3, t3, 2
	or	t3, t3, a6
	srli	t1, t1, 2
	or	t1, t1, a7
	addi	t4, a4, -S_REQ_PRQ
	srli	t4, t4, 2
	or	t4, t4, a6
	srli	t0, t0, 2			/* t0: words - 1 */
	LW_G(a1, mpi_block_reads)
	bnez	a1, .Lwords_block
	/* The hardware's read: words - 1 SYSRDs replying as remote writes straight into the
	 * receive buffer (an add and a register-relative send a word, emx_read_words), then
	 * the last word's SYSRD to the frame's read slot: its reply follows the others (one
	 * memory unit, one path), and its thread stores it and completes the receive. */
	add	a2, t3, t0			/* a2: the last word's destination */
	andi	a3, t0, 31			/* the first turn short by 32 - (words - 1) % 32: */
	beqz	a3, 61f
	addi	a3, a3, -32			/* the addresses back by as many, */
	add	t3, t3, a3
	add	t1, t1, a3
	slli	a3, a3, 3			/* and the loop entered as many words in */
	lla	a1, 61f
	sub	a1, a1, a3
	jr	a1
61:	.set	k, 0
	.rept	32				/* 2 instructions (8 bytes) a word */
	addi	a3, t3, k
	.insn s 0x5b, 6, a3, k(t1)		/* sysrdw (14): source t1 + k, to a3 */
	.set	k, k + 1
	.endr
	addi	t3, t3, 32
	addi	t1, t1, 32
	bne	t3, a2, 61b
	srli	t0, tp, 2
	or	t0, t0, a6
	addi	t0, t0, S_READ_SLOT
	SEND(5, t1, t0)				/* sysrd: the last word, to the read slot */
	slli	t3, t3, 10			/* its local byte address */
	srli	t3, t3, 8
	sw	t3, S_READ_DST(tp)
	sw	t4, S_READ_DONE(tp)
	srli	t6, t6, 2
	READ_OUT add, t6, 1			/* t6 words read; the frame kept */
.Lwords_block:
	/* words - 1 without a completion, then the last word with it (the completion
	 * writes the count, which done takes as DONE_SET only if 1) */
	SEND(11, t1, t3)
	or	a1, a7, t0
	SEND(12, a1, zero)
	add	t1, t1, t0
	add	t3, t3, t0
	SEND(11, t1, t3)
	ori	t0, a7, 1
	SEND(12, t0, t4)
	srli	t6, t6, 2
	READ_OUT add, t6			/* t6 words read */
.Lretire:
	tail	credit_retire			/* a0: the sender's PE */

.Lbuffered:	/* t6 the bytes taken, t1 the data in this PE's temporary buffer, t3 the
		 * receive buffer */
	addi	t0, t6, -1
	li	t4, S_SHORT_BYTES
	bgeu	t0, t4, .Lrange
	andi	t0, a1, S_SREQ_INLINE		/* (the data in the request: C) */
	bnez	t0, .Lc
	MINTED
	bnez	t0, .Lc
	SENT
	andi	t2, t2, ~S_RF_IN_PRQ
	CREDIT
	LW_G(t0, mpi_inbound)			/* the buffer it asked for is filled */
	addi	t0, t0, -1
	lui	t4, %hi(mpi_inbound)
	sw	t0, %lo(mpi_inbound)(t4)
	lw	t3, R(L_REQ_BUF)(a4)
	add	t6, t6, t1			/* the words out */
	mv	t0, t1
	COPY_WORDS t0, t3, t6, t4
	COMPLETE
	andi	a0, t1, -4			/* the buffer back (mpi_tmp_free_buffered) */
	addi	a1, t5, 8
	TMP_BACK
.Ltag_any:	/* the receive's tag MPI_ANY_TAG? */
	lui	t0, S_TAG_ANY_HI
	or	t0, t0, a0
	beq	t1, t0, 1b
	j	.Lc
.Ltruncated:	/* a message longer than the receive buffer */
	mv	t6, t4
	j	2b
.Lrange:	/* none taken (no buffer, or beyond the sizes here): an empty message? */
	bnez	t5, .Lc
.Lzero:	/* an empty message, any protocol: it completes here and now */
	MINTED
	bnez	t0, .Lc
	SENT
	andi	t2, t2, ~S_RF_IN_PRQ
	CREDIT
	COMPLETE
	ret
/* The reply of a SYSRD of a message's last word (.Lone, .Lwords), in the send request's
 * frame: the word stored, the receive's `done` written (an I-structure write, as the
 * block read's completion: it wakes a waiting MPI_Wait), the frame back. a0: the word. */
	.globl	mpi_sreq_read_done
	.type	mpi_sreq_read_done, @function
mpi_sreq_read_done:
	lw	t0, S_READ_DST(tp)
	sw	a0, 0(t0)
	lw	t0, S_READ_DONE(tp)
	li	t1, 1
	SEND(6, t0, t1)				/* iwr DONE_SET */
	FRAME_BACK_ONLY
	ret
	.size	mpi_sreq_read_done, .-mpi_sreq_read_done

/* The thread's entry when the cases here cannot apply (no block read on this machine,
 * matching_init chooses): all to sreq_arrived. */
	.globl	mpi_sreq_thread_general
mpi_sreq_thread_general:
	srli	a1, a0, 10
	andi	a0, a0, 0x3ff
.Lc:
	addi	a2, tp, 16
	FRAME_FREE
	tail	sreq_arrived
	.size	mpi_sreq_thread, .-mpi_sreq_thread
