/* The buffered protocol's temporary buffer by hand: the receiver's thread that gives it
 * (mpi_tmp_thread) and the sender's handler of its answer (mpi_h_tmp_answer).
 *
 * mpi_tmp_thread, creation.c's thread of a tmp request (its frame in tp, the words from
 * ARGS: the bytes, the answer's special address word; a0 the requester | bits << 10): the
 * usual case, a buffer of the small ones' free list (pool.c's mpi_tmp_alloc_buffered),
 * goes back in the answer at once; the frame goes back, and the creation's inbound count
 * stays as it was (the frame's is done, the buffer's runs until the send request that
 * fills it: sreq_core, sreq.S, arrivals.S). Anything else: sender_match.c's
 * tmp_alloc_arrived, as creation.c's threads call it.
 *
 * The temporary buffer's answer by hand (credits.c's mpi_h_tmp_answer, a special packet's
 * handler): its usual case, the only send queued to PE arg16 asked for the buffer with its
 * credit and got it (a0 = the buffer there), a short message (at most 4 * SHORT_WORDS bytes
 * from its word boundary) to another PE, an op cell at hand, no staged records. Its data by
 * remote writes (put_covering's words), the send out of its queue, then its send request:
 * with matching on both sides the send completes first (the data has left the user's
 * buffer; with matching on the receiver only the receiver completes it, sender_match.c's
 * issue), then the creation's op joins the outbox and the operand segment is asked for
 * (creation.c's create). Anything else: tmp_answer_general (credits.c), before any
 * change. Offsets: irecv_layout.h, arrivals_layout.h (checked in credits.c, creation.c,
 * sender_match.c). */
#include "irecv_layout.h"
#include "arrivals_layout.h"
#include "sreq_layout.h"
#include "mpi_asm.h"

	.text
	.globl	mpi_h_tmp_answer
	.type	mpi_h_tmp_answer, @function
	.p2align 2
mpi_h_tmp_answer:
	beqz	a0, .Lc				/* no memory there: the send goes as sync (C) */
	andi	a3, a1, 0x3ff			/* a3: the receiver's PE */
	LW_G(a7, mpi_me)			/* a7: this PE */
	beq	a3, a7, .Lc
	LW_G(t0, mpi_send_queues)
	slli	t1, a3, L_SENDQ_SHIFT
	add	t0, t0, t1			/* t0: its send queue (the list's head at 0) */
	lw	t1, L_DL_NEXT(t0)		/* t1: the first send's prq link */
	beq	t1, t0, .Lc
	lw	t2, 4(t1)			/* the only one */
	bne	t2, t0, .Lc
	lhu	t2, L_SENDQ_PUTTING(t0)
	bnez	t2, .Lc
	addi	a5, t1, -L_REQ_PRQ		/* a5: the send */
	lw	a4, L_REQ_FIX(a5)		/* a4: its queue state */
	li	t2, L_SQ_TMP_CREDIT
	and	t3, a4, t2
	bne	t3, t2, .Lc
	lui	t2, %hi(mpi_opt + L_OPT_STAGED)	/* staged records: C */
	lbu	t2, %lo(mpi_opt + L_OPT_STAGED)(t2)
	bnez	t2, .Lc
	lw	a6, L_REQ_BUF(a5)		/* a6: its data */
	lw	t2, L_REQ_CAPACITY(a5)		/* t2: its bytes */
	beqz	t2, .Lc
	andi	t3, a6, 3
	add	t3, t3, t2
	li	t4, L_SHORT_BYTES
	bltu	t4, t3, .Lc
	LA(t5, mpi_op_pool)
	lw	t6, 0(t5)			/* t6: the op */
	beqz	t6, .Lc
	/* The data, the words that cover it, into the buffer */
	slli	a1, a3, 22
	srli	t4, a0, 2
	or	t4, t4, a1			/* t4: the buffer's global word address */
	andi	a2, a6, -4
	add	a1, a6, t2			/* a1: the data's end */
1:	lw	t3, 0(a2)
	SEND(4, t4, t3)				/* syswr */
	addi	t4, t4, 1
	addi	a2, a2, 4
	bltu	a2, a1, 1b
	sw	t0, 0(t0)			/* dl_remove: the queue is empty again */
	sw	t0, 4(t0)
	sw	t1, 0(t1)
	sw	t1, 4(t1)
	sw	zero, L_REQ_FIX(a5)
	ADD_G	mpi_counters+L_COUNT_SEND_REQUESTS, 1, t3, t4
	LW_G(t3, mpi_matching)			/* both sides: the send completes (req_complete) */
	bnez	t3, 3f
	lhu	t4, L_REQ_FLAGS(a5)
	andi	t3, t4, L_RF_ARMED_READER
	beqz	t3, .Lflag
	slli	t3, a7, 22
	srli	t4, a5, 2
	or	t3, t3, t4
	li	t4, 1
	SEND(6, t3, t4)				/* iwr: its waiter resumes after this handler */
3:	/* Its send request (kind 0), the protocol in its bits, 4 words */
	lw	t3, 0(t6)			/* the op off the pool */
	sw	t3, 0(t5)
	sw	zero, 0(t6)
	andi	t3, a4, 0xff
	slli	t3, t3, 16
	li	t4, 4 << 24
	or	t3, t3, t4
	sw	t3, L_OP_HDR(t6)
	slli	t3, a7, 22
	srli	t4, a5, 2
	or	t3, t3, t4
	sw	t3, L_OP_W(t6)			/* the request's global address */
	andi	t3, a6, 3
	add	t3, t3, a0
	sw	t3, L_OP_W + 4(t6)		/* the data in the buffer */
	sw	t2, L_OP_W + 8(t6)		/* the bytes */
	TAG_CTX	t3, a5, t4
	sw	t3, L_OP_W + 12(t6)		/* tag | context << 16 */
	OUTBOX_CREATE t6, a3
	THREAD_END				/* (a handler) */
.Lflag:	ori	t4, t4, L_RF_COMPLETE
	sh	t4, L_REQ_FLAGS(a5)
	j	3b
.Lc:
	tail	tmp_answer_general
	.size	mpi_h_tmp_answer, . - mpi_h_tmp_answer

	.globl	mpi_tmp_thread
	.type	mpi_tmp_thread, @function
	.p2align 2
mpi_tmp_thread:
	lw	a1, 16(tp)			/* a1: the bytes */
	li	t0, S_TMP_SMALL_BYTES
	bltu	t0, a1, .Lalloc
	LW_G(t1, mpi_tmp_small_free)		/* t1: the buffer */
	beqz	t1, .Lalloc
	lw	t2, 0(t1)
	lui	t0, %hi(mpi_tmp_small_free)
	sw	t2, %lo(mpi_tmp_small_free)(t0)
	lw	a2, 20(tp)
	SEND(3, a2, t1)				/* the answer (special) */
	FRAME_BACK_ONLY
	THREAD_END
.Lalloc:
	FRAME_FREE
	addi	a2, tp, 16
	srli	a1, a0, 10
	andi	a0, a0, 0x3ff
	tail	tmp_alloc_arrived
	.size	mpi_tmp_thread, . - mpi_tmp_thread
