/* Protocol requests arriving by creation with matching on both sides (creation.c's
 * threads), by hand, as the original had its queue operations in assembly: the usual
 * cases, with no register to save. Offsets: irecv_layout.h and arrivals_layout.h,
 * checked in sender_match.c.
 *
 * rreq_arrived_words, a receive request (rreq_thread):
 *  - Crossed (the naive ping-pong's every message): our send request for it is issued
 *    and heads its key in the request-issued queue, get or sync, a short aligned message
 *    to another PE on EM-X: the data, source and tag, the size and the completion go by
 *    remote writes into the receive first, then the entry goes (the consistency rule:
 *    the receiver drops our send request), the send completes, its credit is back (sends
 *    waiting for credits to the requester go on: rreq_crossed_after, after the thread's
 *    work).
 *  - Filed (a receive posted in advance): no send of ours is issued under its key, the
 *    key is known to the associative memory, a record at hand: the record is appended.
 *  - Crossed, buffered: the receive request is dropped (buffered's rule), our send
 *    request's entry goes.
 *  Anything else: rreq_words_general (sender_match.c), which does the same in C, or,
 *  once our issued send request is found, rreq_arrived.
 *  Entered only from its thread (a0 requester PE | bits << 10; the four words -- the
 *  request's global address, buffer, capacity, tag | context << 16 -- in the frame tp
 *  from word 4 on), which its crossed case ends.
 *
 * sreq_both, a send request (sreq_thread_both): our receive request for it is issued (the
 * naive ping-pong's every message): the head entry of the request-issued queue goes, the
 * receive request's credit is back. Get or sync: the send request is dropped (the sender
 * writes the data: rreq_arrived_words there). Buffered, a short aligned message in the
 * temporary buffer this PE gave (receiver_match.c's sreq_core, as sreq.S's buffered case):
 * the words are copied into the receive, which completes, the send request's credit goes
 * back, the buffer to its free list; an empty message just completes. Anything else:
 * sreq_arrived (receiver_match.c). a0 sender PE, a1 bits, the four words (its request,
 * data, bytes, tag | context << 16) in the frame tp from word 4 on: it is entered only from
 * its thread. */
#include "irecv_layout.h"
#include "arrivals_layout.h"
#include "sreq_layout.h"
#include "mpi_asm.h"

/* req_unref of the request in \r (a protocol reference goes; the cell goes back if the
 * user freed it and it does not still run); uses t2, t3, t4. */
.macro UNREF r
	lhu	t2, L_REQ_REFS(\r)
	addi	t2, t2, -1
	sh	t2, L_REQ_REFS(\r)
	bnez	t2, 1f
	lhu	t4, L_REQ_FLAGS(\r)
	andi	t2, t4, L_RF_USER_FREED
	beqz	t2, 1f
	andi	t2, t4, L_RF_ACTIVE_COMPLETE	/* active and not complete: it stays */
	li	t3, L_RF_ACTIVE
	beq	t2, t3, 1f
	lw	t2, L_REQ_HANDLE(\r)		/* req_reclaim: the handle dies, the cell goes back */
	andi	t2, t2, L_REQ_GEN_MASK
	sw	t2, L_REQ_HANDLE(\r)
	LA(t3, mpi_request_pool)
	lw	t2, 0(t3)
	sw	t2, 0(\r)
	sw	\r, 0(t3)
1:
.endm

/* To \none if the credits minted for sender a0 are not all retired (credit_release
 * then has more to do: C). Uses t3, a3. */
.macro MINTED_OUT none
	LW_G(t3, mpi_senders)
	slli	a3, a0, S_SENDER_SHIFT
	add	t3, t3, a3
	lw	t3, S_SENDER_MINTED(t3)
	bnez	t3, \none
.endm

/* sreq_both's buffered receive a6 has its t1 bytes from sender a0 (recv_finish: its
 * srctag is set, irecv.S): it completes (req_complete: its waiter resumes, or the flag),
 * the protocol's reference goes, the send request's credit goes back (credit_release,
 * none minted). a4 = this PE after. Uses t0, t2, t3, t4, a3. */
.macro RECEIVED
	sw	t1, L_REQ_BYTES(a6)
	LW_G(a4, mpi_me)
	lhu	t4, L_REQ_FLAGS(a6)
	andi	t3, t4, L_RF_ARMED_READER
	beqz	t3, 3f
	slli	t3, a4, 22
	srli	a3, a6, 2
	or	t3, t3, a3
	li	a3, 1
	SEND(6, t3, a3)				/* iwr: its waiter resumes */
	j	4f
3:	ori	t4, t4, L_RF_COMPLETE
	sh	t4, L_REQ_FLAGS(a6)
4:	UNREF	a6
	LW_G(t0, mpi_idx_credit)		/* the send request's credit */
	slli	t0, t0, 16
	slli	t3, a0, 22
	or	t0, t0, t3
	or	t0, t0, a4
	li	t3, 1
	SEND(3, t0, t3)
.endm

	.text
	/* The receive request's thread (creation.c's template, as its C threads: the frame
	 * back first, the words read after): a0 = the requester's PE | bits << 10, tp the
	 * frame, the words from ARGS (word 4). */
	.globl	mpi_rreq_thread
	.type	mpi_rreq_thread, @function
	.p2align 2
mpi_rreq_thread:
	li	t0, 1 << 10
	bgeu	a0, t0, .Lbits			/* the three-word form: C */
	.size	mpi_rreq_thread, . - mpi_rreq_thread

	.globl	rreq_arrived_words
	.type	rreq_arrived_words, @function
rreq_arrived_words:	/* (mpi_direct: remote writes by the memory unit, EM-X) */
	lw	t0, 28(tp)			/* tag | context << 16 */
	lw	a3, 16(tp)			/* a3: the receive request (global) */
	lw	a4, 20(tp)			/* a4: its buffer */
	lw	a5, 24(tp)			/* a5: its capacity */
	slli	t1, t0, 16
	srli	t2, t0, 16			/* t2: the context */
	or	t1, t1, a0			/* t1: pe | tag << 16, the key's pt */
	HASH
	LA(t4, mpi_isq_send)			/* t4: the request-issued queue of sends: */
	FIND_KEY .Lfile				/* t5 the key (a send's tag is named: no key */
						/* of MPI_ANY_TAG, a receive's goes to .Lfile) */
	lw	t6, L_KEY_HEAD(t5)		/* t6: the oldest entry */
	beqz	t6, .Lfile
	/* Crossed: rreq_crossed's usual case. a6: our send request. */
	lw	a6, L_ISQ_REQ(t6)
	lbu	a7, L_REQ_PROTO(a6)
	beqz	a7, .Lbuffered			/* buffered: its own rule */
	addi	a7, a6, L_REQ_ISQ_OWN		/* its own entry, its only one */
	bne	a7, t6, .Lgeneral
	lhu	a7, L_REQ_ISQ_COUNT(a6)
	addi	a7, a7, -1
	bnez	a7, .Lgeneral
	lw	a7, L_REQ_FIX(a6)		/* not waiting in a credit queue */
	andi	a7, a7, L_SQ_QUEUED
	bnez	a7, .Lgeneral
	/* (remote writes by the memory unit: creation_init chose this thread for EM-X) */
	lw	t1, L_REQ_CAPACITY(a6)		/* t1: the message's bytes */
	bltu	a5, t1, .Lgeneral
	li	a7, L_SHORT_BYTES
	bltu	a7, t1, .Lgeneral
	lw	a7, L_REQ_BUF(a6)		/* a7: the data */
	or	t2, a4, a7
	or	t2, t2, t1
	andi	t2, t2, 3
	bnez	t2, .Lgeneral
	LW_G(t2, mpi_me)
	beq	t2, a0, .Lgeneral
	slli	a5, t0, 16
	or	a5, a5, t2			/* a5: the status, this PE | tag << 16 */
	/* put_short: the words, then source and tag, the size and the completion (or the
	 * size in it); the bookkeeping after, so that the data leaves first */
	slli	t2, a0, 22
	srli	a4, a4, 2
	or	t2, t2, a4			/* t2: the buffer's global word address */
	add	t3, a7, t1			/* t3: the data's end */
	beq	t3, a7, 6f
5:	lw	a1, 0(a7)
	SEND(4, t2, a1)				/* syswr */
	addi	t2, t2, 1
	addi	a7, a7, 4
	bltu	a7, t3, 5b
6:	SENDD(4, a3, L_W_SRCTAG, a5)		/* syswr: source and tag */
	lui	a1, %hi(mpi_opt + L_OPT_DONE_SIZED)
	lbu	a1, %lo(mpi_opt + L_OPT_DONE_SIZED)(a1)
	bnez	a1, .Lsized
	addi	t2, a3, L_W_BYTES
	SEND(4, t2, t1)				/* syswr: the size */
	li	a1, L_DONE_SET
	SEND(6, a3, a1)				/* iwr: complete */
.Lsent:	lw	a5, 0(t6)			/* isq_take: the entry's next */
	sw	a5, L_KEY_HEAD(t5)
	li	a4, 0				/* a4: the table to sweep at the end, or 0 */
	bnez	a5, 12f
	lw	t3, L_KQ_IDLE(t4)		/* the key goes idle (kq_key_emptied) */
	addi	t3, t3, 1
	sw	t3, L_KQ_IDLE(t4)
	li	t2, L_KQ_IDLE_MAX
	bgeu	t2, t3, 12f
	mv	a4, t4				/* beyond the idle keys kept: kq_sweep */
12:	sh	zero, L_REQ_ISQ_COUNT(a6)
	sw	zero, L_REQ_ISQ_REQ(a6)
	ADD_G	mpi_counters+L_COUNT_CONCURRENT, 1, t2, t3
	ADD_G	mpi_counters+L_COUNT_ONE_SIDED, 1, t2, t3
	/* req_complete: an I-structure write if a wait reads `done`, else the flag */
	lhu	t4, L_REQ_FLAGS(a6)
	andi	t2, t4, L_RF_ARMED_READER
	beqz	t2, .Lflag
	LW_G(t2, mpi_me_gaddr)
	srli	t3, a6, 2
	or	t2, t2, t3
	li	t3, 1
	SEND(6, t2, t3)				/* iwr */
.Lcomplete:
	LW_G(t0, mpi_send_queues)		/* credit_reclaim: our send queue to the */
	slli	t2, a0, L_SENDQ_SHIFT		/* requester */
	add	t0, t0, t2
	lhu	t2, L_SENDQ_CREDITS(t0)
	addi	t2, t2, 1
	sh	t2, L_SENDQ_CREDITS(t0)
	lw	a5, L_DL_NEXT(t0)
	sub	a5, a5, t0			/* a5: sends wait for credits (0: none) */
	UNREF	a6
	FRAME_FREE
	or	t1, a4, a5
	bnez	t1, 13f
	THREAD_END
13:	mv	a1, a0				/* (after the data and the frame) */
	mv	a0, a4
	mv	a2, a5
	tail	rreq_crossed_after
.Lflag:	ori	t4, t4, L_RF_COMPLETE
	sh	t4, L_REQ_FLAGS(a6)
	j	.Lcomplete
.Lsized:	/* -mpi-option=done-sized */
	addi	a1, t1, L_DONE_SIZED
	SEND(6, a3, a1)				/* iwr: complete, with the size */
	j	.Lsent
.Lfile:	/* rreq_file's usual case: a record appended under a known key of mpi_assoc */
	li	a6, 0xffff0000			/* MPI_ANY_TAG: C */
	bgeu	t1, a6, .Lgeneral
	LA(t4, mpi_assoc)
	FIND_KEY .Lgeneral			/* t5: the key (a new key: C) */
	LA(t6, mpi_recv_record_pool)
	lw	a6, 0(t6)			/* a6: a record */
	beqz	a6, .Lgeneral
	lw	a7, 0(a6)
	sw	a7, 0(t6)
	sw	a3, L_RR_RREQ(a6)
	sw	a4, L_RR_BUF(a6)
	sw	a5, L_RR_CAPACITY(a6)
	KQ_APPEND a6, a7
	FRAME_FREE
	THREAD_END
.Lbuffered:	/* Buffered's rule: the data goes to the receiver's buffer anyway, this receive
	 * request is dropped (rreq_arrived's usual case): our send's own entry goes; a send
	 * still queued with its credit (its buffer asked for) is marked crossed
	 * (sendq_dequeue); one not queued has its send request out. */
	addi	a7, a6, L_REQ_ISQ_OWN
	bne	a7, t6, .Lcrossed_c
	lhu	a7, L_REQ_ISQ_COUNT(a6)
	addi	a7, a7, -1
	bnez	a7, .Lcrossed_c
	lw	t0, L_REQ_FIX(a6)		/* t0: its queue state */
	andi	a7, t0, L_SQ_QUEUED
	beqz	a7, 1f
	andi	a7, t0, L_SQ_CREDIT
	beqz	a7, .Lcrossed_c			/* no credit yet: sent one-sided (C) */
	li	a7, L_SQ_CROSSED
	or	t0, t0, a7
1:	KQ_TAKE a5, t3, a7, .Lcrossed_c	/* isq_take */
	sh	zero, L_REQ_ISQ_COUNT(a6)
	sw	zero, L_REQ_ISQ_REQ(a6)
	sw	t0, L_REQ_FIX(a6)
	ADD_G	mpi_counters+L_COUNT_CONCURRENT, 1, t2, t3
	UNREF	a6
	FRAME_FREE
	THREAD_END
.Lcrossed_c:	/* rreq_arrived(pe, rreq, buf, capacity, tag, ctx) decides (sender_match.c) */
	FRAME_FREE
	mv	a1, a3
	mv	a2, a4
	mv	a3, a5
	srli	a4, t1, 16
	mv	a5, t2
	tail	rreq_arrived
.Lbits:	srli	a1, a0, 10
	andi	a0, a0, 0x3ff
	j	1f
.Lgeneral:
	li	a1, 0
1:	addi	a2, tp, 16			/* the words (the frame back first: nothing */
	FRAME_FREE				/* runs in between) */
	tail	rreq_words_general
	.size	rreq_arrived_words, . - rreq_arrived_words

	/* The receive request's thread on a machine whose remote writes are not the memory
	 * unit's (EM-X', EM-4; creation_init chooses): all in C. */
	.globl	mpi_rreq_thread_indirect
	.type	mpi_rreq_thread_indirect, @function
	.p2align 2
mpi_rreq_thread_indirect:
	addi	a2, tp, 16
	srli	a1, a0, 10
	andi	a0, a0, 0x3ff
	FRAME_FREE
	tail	rreq_words_general
	.size	mpi_rreq_thread_indirect, . - mpi_rreq_thread_indirect

	/* The send request's thread with matching on both sides (creation.c's template,
	 * as its C threads: the frame back first, the words read after): a0 = the sender's
	 * PE | bits << 10, tp the frame, the words from ARGS (word 4). */
	.globl	mpi_sreq_thread_both
	.type	mpi_sreq_thread_both, @function
	.p2align 2
mpi_sreq_thread_both:
	FRAME_BACK_ONLY				/* (the inbound count: each way below) */
	srli	a1, a0, 10
	andi	a0, a0, 0x3ff
	.size	mpi_sreq_thread_both, . - mpi_sreq_thread_both

	.globl	sreq_both
	.type	sreq_both, @function
sreq_both:	/* (a send's tag is named; the words in the frame, tp) */
	andi	t0, a1, L_SREQ_FALLBACK
	bnez	t0, .Ls_general
	lw	t0, 28(tp)			/* tag | context << 16 */
	slli	t1, t0, 16
	or	t1, t1, a0			/* t1: pt */
	srli	t2, t0, 16			/* t2: the context */
	HASH
	LA(t4, mpi_isq_recv)			/* t4: the request-issued queue of receives */
	lw	t5, L_KQ_ANY_KEYS(t4)
	bnez	t5, .Ls_general
	FIND_KEY .Ls_general
	lw	t6, L_KEY_HEAD(t5)		/* t6: the oldest entry: our receive */
	beqz	t6, .Ls_general
	lw	a6, L_ISQ_REQ(t6)		/* a6: its request */
	addi	a7, a6, L_REQ_ISQ_OWN		/* its own entry, its only one */
	bne	a7, t6, .Ls_general
	lhu	a7, L_REQ_ISQ_COUNT(a6)
	addi	a7, a7, -1
	bnez	a7, .Ls_general
	LW_G(a7, mpi_held_pending)		/* rreq_credit_back with nothing more to do */
	bnez	a7, .Ls_general
	LW_G(a7, mpi_rreq_credits)
	slli	t0, a0, 2
	add	a7, a7, t0
	lw	t0, 0(a7)
	addi	t0, t0, 1			/* t0: the credits for the sender, one back */
	LW_G(a3, mpi_rreq_return_at)
	bgeu	t0, a3, .Ls_general
	andi	t1, a1, L_SREQ_PROTO
	beqz	t1, .Ls_buffered
	KQ_TAKE a3, a4, a5, .Ls_general		/* isq_take */
	sw	t0, 0(a7)
	INBOUND -1
	sh	zero, L_REQ_ISQ_COUNT(a6)
	sw	zero, L_REQ_ISQ_REQ(a6)
	UNREF	a6
	THREAD_END
.Ls_buffered:	/* The data is in the temporary buffer this PE gave: copied into the receive
	 * (sreq.S's buffered case, the receive matched through its issued request, not the
	 * posted list), the send having completed at its sender. t0 the credits, a7 where,
	 * t4 the table, t5 the key, t6 the entry. */
	bnez	a1, .Ls_general			/* (the data in the request, SREQ_INLINE: C) */
	lw	t1, 24(tp)			/* t1: the bytes sent */
	beqz	t1, .Ls_empty
	lw	a3, L_REQ_CAPACITY(a6)
	mv	a4, t1				/* a4: the bytes taken, min(sent, capacity) */
	bgeu	a3, t1, 1f
	mv	a4, a3
1:	lw	a5, 20(tp)			/* a5: the data (in the temporary buffer) */
	lw	t2, L_REQ_BUF(a6)		/* t2: the receive buffer */
	or	t3, a5, t2
	or	t3, t3, a4
	andi	t3, t3, 3
	bnez	t3, .Ls_general
	addi	t3, a4, -1			/* 1 .. S_SHORT_BYTES */
	li	a3, S_SHORT_BYTES
	bgeu	t3, a3, .Ls_general
	MINTED_OUT .Ls_general
	KQ_TAKE a3, t3, a1, .Ls_general		/* isq_take (t4: the table) */
	sw	t0, 0(a7)			/* rreq_credit_back */
	sh	zero, L_REQ_ISQ_COUNT(a6)
	sw	zero, L_REQ_ISQ_REQ(a6)
	add	t3, a5, a4			/* the words out */
	mv	t4, a5
	COPY_WORDS t4, t2, t3, a3
	RECEIVED
	INBOUND -2				/* the creation's, and the buffer's (filled) */
	andi	a0, a5, -4			/* the buffer back (mpi_tmp_free_buffered) */
	addi	a1, t1, 8
	TMP_BACK 1
.Ls_empty:	/* an empty message: the receive completes */
	MINTED_OUT .Ls_general
	KQ_TAKE a3, t3, a1, .Ls_general		/* isq_take (t4: the table) */
	sw	t0, 0(a7)			/* rreq_credit_back */
	sh	zero, L_REQ_ISQ_COUNT(a6)
	sw	zero, L_REQ_ISQ_REQ(a6)
	RECEIVED
	INBOUND -1
	THREAD_END
.Ls_general:
	INBOUND -1
	addi	a2, tp, 16			/* the words */
	tail	sreq_arrived
	.size	sreq_both, . - sreq_both

	/* mpi_h_remove (records.c names it): a removal, the special packet a one-sided
	 * sender sends for our request it matched (a0: its address here; a1: the sender's
	 * PE | bits << 10, 1: a receive request, 0: a send request). Its usual case by hand,
	 * as the original's removal handler: the entry alone heads a concrete tag's key of
	 * the request-issued queue, and the key may go idle without a sweep. The entry goes
	 * (isq_remove_fast), the request's reference with it; for a receive request its
	 * credit comes back (rreq_credit_back: rreq_credits_came if that has more to do).
	 * Anything else:
	 * remove_general (sender_match.c), before any change. */
	.globl	mpi_h_remove
	.type	mpi_h_remove, @function
	.p2align 2
mpi_h_remove:
	srli	a3, a1, 10			/* a3: the side */
	LA(t4, mpi_isq_send)			/* t4: the request-issued queue */
	beqz	a3, 1f
	LA(t4, mpi_isq_recv)
1:	lw	t0, L_REQ_HANDLE(a0)		/* req_live */
	andi	t0, t0, -8
	bne	t0, a0, .Lrm_general
	lhu	t0, L_REQ_ISQ_COUNT(a0)		/* its own entry, its only one, */
	li	t1, 1
	bne	t0, t1, .Lrm_general
	lw	t0, L_REQ_ISQ_NEWEST(a0)
	addi	t6, a0, L_REQ_ISQ_OWN		/* t6: the entry */
	bne	t0, t6, .Lrm_general
	lw	t5, L_REQ_ISQ_KEY(a0)		/* t5: its key, */
	lw	t0, L_KEY_HEAD(t5)
	bne	t0, t6, .Lrm_general		/* which it heads */
	lh	t0, L_KEY_PT + 2(t5)		/* a concrete tag (kq_pop): not */
	addi	t0, t0, 1			/* 0xffff */
	beqz	t0, .Lrm_general
	beqz	a3, 2f
	lhu	a6, L_REQ_PE(a0)		/* a6: its sender */
	LW_G(a4, mpi_rreq_credits)
	slli	t0, a6, 2
	add	a4, a4, t0			/* a4: the credits for the sender */
	lw	a5, 0(a4)
	addi	a5, a5, 1			/* a5: one back (rreq_credit_back) */
2:	KQ_TAKE t0, t1, t2, .Lrm_general	/* isq_take */
	sh	zero, L_REQ_ISQ_COUNT(a0)
	sw	zero, L_REQ_ISQ_REQ(a0)
	beqz	a3, 3f
	sw	a5, 0(a4)
3:	ADD_G	mpi_counters+L_COUNT_REMOVALS, 1, t2, t3
	UNREF	a0
	beqz	a3, 4f				/* the credit: more to do? */
	LW_G(t0, mpi_held_pending)
	bnez	t0, 5f
	LW_G(t0, mpi_rreq_return_at)
	bgeu	a5, t0, 5f
4:	THREAD_END
5:	mv	a0, a6
	tail	rreq_credits_came
.Lrm_general:
	tail	remove_general
	.size	mpi_h_remove, . - mpi_h_remove
