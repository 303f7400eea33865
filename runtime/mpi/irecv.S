/* MPI_Irecv's usual case by hand, as the original had its hot paths in assembly: a
 * receive posted in advance from a named source, nothing unexpected or wildcard around,
 * a request cell at hand, its key known to the request-issued queue. It does what the C
 * path does for it (args_ok, setup, recv_start, issue_recv_request), with no register
 * to save, and sends the receive request as a pair (rreq_send_pair: mpi_internal.h,
 * RREQ_PAIR_*) or, by the paper's creation (the default), ends in a tail call of
 * proto_direct_begin (creation.c), which asks for the operand segment and returns the
 * context the caller suspends on until it comes (mpi.h; MPI_Irecv in p2p.c). A receive
 * that does not go to the request-issued queue at once (matching on the receiver only,
 * a wildcard or unexpected message around) is set up here and handed to recv_start
 * (mpi_irecv_post); an empty request pool is refilled here; anything else (arguments to
 * check, a new key) goes
 * to mpi_irecv_general (p2p.c), which also names the errors. Offsets: irecv_layout.h, checked in irecv_layout.c.
 *
 * a0 buf, a1 count, a2 type, a3 source, a4 tag, a5 comm, a6 request: left intact up to
 * the last branch to .Lgeneral. Fields go into the free cell early (its first word links
 * the free list; the others are anybody's while it is free), which frees registers. */
#include "irecv_layout.h"
#include "arrivals_layout.h"

#include "mpi_asm.h"

/* Committed: the cell leaves the pool (pool_get) with the rest of req_new's fields. */
.macro COMMIT
	lw	t5, 0(t3)
	lui	a1, %hi(mpi_request_pool)
	sw	t5, %lo(mpi_request_pool)(a1)
	sw	zero, L_REQ_DONE(t3)
	lw	t5, L_REQ_HANDLE(t3)		/* the handle: the cell, the next generation */
	addi	t5, t5, 1
	andi	t5, t5, L_REQ_GEN_MASK
	or	t5, t5, t3
	sw	t5, L_REQ_HANDLE(t3)
	li	t5, L_KIND_FLAGS		/* a receive, active (its proto is a send's only) */
	sw	t5, L_REQ_KIND(t3)
	sw	zero, L_REQ_BYTES(t3)
	sw	zero, L_REQ_WAITER(t3)
.endm

	.text
	/* mpi_irecv_begin: MPI_Irecv, except that a receive request by creation returns the
	 * context to suspend on (proto_direct_begin): mpi.h compiles the suspension into
	 * the caller, so that only its live values are kept (as MPI_Wait's); MPI_Irecv
	 * (p2p.c) suspends itself. */
	.globl	mpi_irecv_begin
	.type	mpi_irecv_begin, @function
	.p2align 2
mpi_irecv_begin:
	/* The arguments, as args_ok checks them for a receive. */
	LW_G(t0, mpi_comm_count)
	bgeu	a5, t0, .Lgeneral
	LW_G(t0, mpi_comm_table)
	slli	t1, a5, 2
	add	t0, t0, t1
	lw	t0, 0(t0)			/* t0: the communicator */
	beqz	t0, .Lgeneral
	li	t1, L_BASIC_TYPES
	bgeu	a2, t1, .Lgeneral
	lui	t1, 0x1000			/* count < 2^24 */
	bgeu	a1, t1, .Lgeneral
	LA(t1, basic_types)
	slli	t2, a2, L_TYPE_INFO_SHIFT
	add	t1, t1, t2
	lw	t1, 0(t1)			/* the type's size */
	blez	t1, .Lgeneral
	mul	t1, t1, a1			/* t1: bytes */
	beqz	t1, 1f
	LA(t2, __emx_handlers_start)	/* a buffer in writable memory */
	bltu	a0, t2, .Lgeneral
	LW_G(t2, mpi_mem_end)
	add	t3, a0, t1
	bltu	t2, t3, .Lgeneral
	bltu	t3, t1, .Lgeneral
1:	lw	t2, L_COMM_SIZE(t0)		/* a named source (ANY_SOURCE, PROC_NULL: < 0) */
	bgeu	a3, t2, .Lgeneral
	li	t6, 0xffff			/* t6: the tag in 16 bits (MPI_ANY_TAG: 0xffff) */
	li	t2, -1
	beq	a4, t2, 2f
	li	t2, L_TAG_UB			/* a named tag */
	bltu	t2, a4, .Lgeneral
	mv	t6, a4
2:	lhu	t4, L_COMM_CTX(t0)		/* t4: the context (a mapped communicator's */
	li	t2, L_RREQ_PAIR_CTX		/* are beyond: the C path translates) */
	bgeu	t4, t2, .Lgeneral
.Lcell:	LW_G(t3, mpi_request_pool)		/* t3: the request, the pool's free cell */
	beqz	t3, .Lrefill
	/* Its fields from the arguments (setup). */
	lhu	t5, L_COMM_BASE_PE(t0)
	add	t0, t5, a3			/* t0: the peer PE */
	slli	t2, t6, 16
	or	t2, t2, t0			/* t2: pe | tag << 16, the key's pt and the srctag */
	sh	t4, L_REQ_CTX(t3)
	sh	t5, L_REQ_CTX + 2(t3)		/* base_pe */
	sw	t2, L_REQ_PE(t3)		/* pe, tag */
	sw	t2, L_REQ_SRCTAG(t3)		/* for the paths that do not write it */
	sw	a0, L_REQ_BUF(t3)
	sw	t1, L_REQ_CAPACITY(t3)
	sw	a5, L_REQ_COMM(t3)
	sw	a3, L_REQ_RANK(t3)
	/* The usual case of recv_start: matching on both sides, no wildcard receive or
	 * unexpected message around. Else the posted list (.Lpost). */
	LW_G(t5, mpi_matching)
	bnez	t5, .Lpost
	LW_G(t5, mpi_wild_pending)
	bnez	t5, .Lpost
	LA(t5, mpi_unexpected)
	lw	a7, L_DL_NEXT(t5)
	bne	a7, t5, .Lpost
	/* kq_find(&mpi_isq_recv, pt, ctx): bucket (pt + ctx * 0x10001) * 2654435761 >> 26. */
	slli	a7, t4, 16
	add	a7, a7, t4
	add	a7, a7, t2
	li	t5, 0x9e3779b1
	mul	a7, a7, t5
	srli	a7, a7, 26
	slli	a7, a7, 2
	LA(t6, mpi_isq_recv)			/* t6: the table */
	add	a7, a7, t6
	lw	a7, 0(a7)			/* a7: the key */
3:	beqz	a7, .Lgeneral			/* a new key: the general way makes it */
	lw	t5, L_KEY_PT(a7)
	bne	t5, t2, 4f
	lw	t5, L_KEY_CTX(a7)
	beq	t5, t4, 5f
4:	lw	a7, L_KEY_CHAIN(a7)
	j	3b
5:	/* A credit for the receive request to the peer (mpi_internal.h), else the posted
	 * list: the receive waits there, held back. a2: the credits left (for
	 * proto_direct_begin). */
	LW_G(a3, mpi_rreq_credits)
	slli	a2, t0, 2
	add	a3, a3, a2
	lw	a2, 0(a3)
	beqz	a2, .Lpost
	addi	a2, a2, -1
	sw	a2, 0(a3)
	COMMIT
	li	t5, L_REFS_ISQ			/* one reference: its entry in the queue */
	sw	t5, L_REQ_REFS(t3)
	/* isq_add: its own entry, appended to the key's FIFO (kq_append). */
	addi	t5, t3, L_REQ_ISQ_OWN		/* t5: the entry's link */
	sw	t5, L_REQ_ISQ_NEWEST(t3)
	sw	t3, L_REQ_ISQ_REQ(t3)
	sw	a7, L_REQ_ISQ_KEY(t3)
	sw	zero, L_REQ_ISQ_OWN(t3)		/* link.next */
	lw	a1, L_KQ_SEQ(t6)
	sw	a1, L_REQ_ISQ_SEQ(t3)
	addi	a1, a1, 1
	sw	a1, L_KQ_SEQ(t6)
	lw	a1, L_KEY_HEAD(a7)
	beqz	a1, 6f
	lw	a1, L_KEY_TAIL(a7)
	sw	t5, 0(a1)			/* tail->next */
	j	7f
6:	sw	t5, L_KEY_HEAD(a7)		/* an idle key takes an item again */
	lw	a1, L_KQ_IDLE(t6)
	addi	a1, a1, -1
	sw	a1, L_KQ_IDLE(t6)
	addi	a5, a4, 1			/* MPI_ANY_TAG (-1): its key counts */
	bnez	a5, 7f
	lw	a1, L_KQ_ANY_KEYS(t6)
	addi	a1, a1, 1
	sw	a1, L_KQ_ANY_KEYS(t6)
7:	sw	t5, L_KEY_TAIL(a7)
	lw	a1, L_REQ_HANDLE(t3)
	sw	a1, 0(a6)			/* *request */
	/* By remote thread creation (the default: neither of the two below) */
	LW_G(a1, mpi_rreq_by_creation)
	bnez	a1, 9f
	/* A pair: -mpi-option=rreq-pairs, nothing waiting for an operand segment, a word-
	 * aligned buffer of fewer than L_RREQ_PAIR_BYTES, a tag below the pair form's
	 * limit or MPI_ANY_TAG. Else a creation (or a staged record): mpi_irecv_request. */
	LW_G(a1, mpi_rreq_pairs)
	beqz	a1, .Lcreate
	LW_G(a1, mpi_outbox_pending)
	bnez	a1, .Lcreate
	or	a1, a0, t1
	andi	a1, a1, 3
	bnez	a1, .Lcreate
	li	a1, L_RREQ_PAIR_BYTES
	bgeu	t1, a1, .Lcreate
	addi	a1, a4, 1			/* MPI_ANY_TAG: 0 */
	li	a2, L_RREQ_PAIR_ANY + 1
	bgeu	a1, a2, .Lcreate
	/* The receive request as a pair (rreq_send_pair) to slot ctx + 1 of the frame the
	 * peer keeps for this PE. */
	LW_G(a1, mpi_rreq_frames)
	LW_G(a2, mpi_me)
	slli	a2, a2, L_FRAME_SHIFT
	add	a1, a1, a2
	slli	a2, t4, 2
	add	a1, a1, a2
	addi	a1, a1, 4
	srli	a1, a1, 2
	slli	a2, t0, 22
	or	a1, a1, a2			/* a1: the slot's global address */
	srli	a2, t3, 2
	slli	a3, t1, 20
	or	a2, a2, a3			/* the request's word address | capacity / 4 << 22 */
	SEND(1, a1, a2)				/* inv2l */
	srli	a2, t2, 16
	li	a3, 0xffff
	bne	a2, a3, 8f
	li	a2, L_RREQ_PAIR_ANY
8:	slli	a2, a2, 22
	srli	a3, a0, 2
	or	a2, a2, a3			/* the buffer's word address | tag << 22 */
	SEND(2, a1, a2)				/* inv2r */
	LA(a1, mpi_counters)
	lw	a2, L_COUNT_RECV_REQUESTS(a1)
	addi	a2, a2, 1
	sw	a2, L_COUNT_RECV_REQUESTS(a1)
	li	a0, 0
	ret
.Lcreate:
	/* By remote thread creation (proto_create4, which returns MPI_SUCCESS), or as a
	 * staged record (-mpi-option=staged-records: the C path). */
	lui	a1, %hi(mpi_opt + L_OPT_STAGED)	/* a byte */
	lbu	a1, %lo(mpi_opt + L_OPT_STAGED)(a1)
	beqz	a1, 9f
	mv	a0, t3
	tail	mpi_irecv_request		/* returns MPI_SUCCESS */
9:	ADD_G	mpi_counters+L_COUNT_RECV_REQUESTS, 1, a1, a5
	/* To the peer PE t0, the request t3 (its words are read from it when they go), a2
	 * the credits left: proto_direct_begin's usual case follows, the caller waits for
	 * the segment. */
	.size	mpi_irecv_begin, . - mpi_irecv_begin

	/* proto_direct_begin (creation.c says what it does), entered from mpi_irecv_begin
	 * only: t0 the peer PE, t3 the receive request, a2 the credits for the peer left;
	 * returns the context to suspend on. Its usual cases by hand: a credit above the
	 * asking mark, another PE, a context at hand; the outbox empty (its direct op heads
	 * it, the segment asked for with the context's continuation) or, behind other
	 * creations, an op cell and a second one for the waiter. Anything else:
	 * direct_slow(pe, request) (creation.c), before any change. */
	.globl	proto_direct_begin
	.type	proto_direct_begin, @function
proto_direct_begin:
	LW_G(a3, mpi_rreq_ask_at)
	bgeu	a3, a2, .Ldslow			/* credits to ask for first */
	LW_G(a3, mpi_me)
	beq	a3, t0, .Ldslow
	LW_G(a0, __emx_ctx_pool)		/* a0: the context */
	beqz	a0, .Ldslow
	LW_G(t1, mpi_outboxes)
	slli	t2, t0, L_OB_SHIFT
	add	t1, t1, t2			/* t1: the outbox */
	lw	t2, L_OB_HEAD(t1)
	bnez	t2, .Lbehind
	/* direct_ask: the outbox's direct op (creation.c) heads it, the segment comes to
	 * the context */
	lw	t4, L_CTX_NEXT(a0)		/* __emx_ctx_get */
	SW_G(t4, __emx_ctx_pool, t5)
	addi	a7, t1, L_OB_DIRECT		/* (its next is 0 while it is free) */
	sw	a7, L_OB_HEAD(t1)
	sw	a7, L_OB_TAIL(t1)
	ADD_G	mpi_outbox_pending, 1, t4, t5
	LW_G(t4, mpi_segment_word)		/* emx_invoke(pe, mpi_h_segment, me, cont) */
	slli	t5, t0, 22
	or	t4, t4, t5
	lw	t5, L_CTX_CONT(a0)
	SEND(3, t4, t5)
	ret
.Lbehind:	/* one more creation, the words in its op a7; t4 the waiter's cell */
	LA(a6, mpi_op_pool)
	lw	a7, 0(a6)
	beqz	a7, .Ldslow
	lw	t4, 0(a7)
	beqz	t4, .Ldslow
	lw	t5, 0(t4)			/* both cells out of the pool */
	sw	t5, 0(a6)
	lw	t5, L_CTX_NEXT(a0)		/* __emx_ctx_get */
	SW_G(t5, __emx_ctx_pool, t2)
	li	t5, L_OP_RREQ_HDR
	sw	t5, L_OP_HDR(a7)
	LW_G(t5, mpi_me_gaddr)			/* the receive request's words (RREQ_WORDS) */
	srli	t2, t3, 2
	or	t5, t5, t2
	sw	t5, L_OP_W(a7)
	lw	t5, L_REQ_BUF(t3)
	sw	t5, L_OP_W + 4(a7)
	lw	t5, L_REQ_CAPACITY(t3)
	sw	t5, L_OP_W + 8(a7)
	TAG_CTX	t5, t3, t2
	sw	t5, L_OP_W + 12(a7)
	sw	zero, 0(a7)			/* enqueue: behind the tail */
	lw	t5, L_OB_TAIL(t1)
	sw	a7, 0(t5)
	sw	a7, L_OB_TAIL(t1)
	ADD_G	mpi_outbox_pending, 1, t5, t2
	lw	t5, L_OB_CREATES(t1)
	addi	t5, t5, 1
	sw	t5, L_OB_CREATES(t1)
	lw	t5, L_OB_ASKED(t1)		/* its segment, unless two are asked */
	li	t2, L_MAX_ASKED
	bgeu	t5, t2, 1f
	addi	t5, t5, 1
	sw	t5, L_OB_ASKED(t1)
	LW_G(t5, mpi_segment_word)
	slli	t2, t0, 22
	or	t5, t5, t2
	SEND(3, t5, zero)
1:	sw	a0, 0(t4)			/* the waiter: the context, */
	lw	t5, L_OB_DRAINED(t1)
	sw	t5, 4(t4)			/* next, */
	li	t5, 1
	sw	t5, 8(t4)			/* pooled */
	sw	t4, L_OB_DRAINED(t1)
	ret
.Ldslow:
	mv	a0, t0
	mv	a1, t3
	tail	direct_slow
	.size	proto_direct_begin, . - proto_direct_begin

	/* mpi_irecv_begin's other ways (after proto_direct_begin, into which it goes on) */
	.type	irecv_other, @function
irecv_other:
.Lpost:	/* Not in any queue yet: recv_start decides (mpi_irecv_post). */
	COMMIT
	sw	zero, L_REQ_REFS(t3)		/* no reference, no entry */
	sw	zero, L_REQ_ISQ_REQ(t3)		/* its own entry is free */
	lw	a1, L_REQ_HANDLE(t3)
	sw	a1, 0(a6)			/* *request */
	mv	a0, t3
	tail	mpi_irecv_post			/* returns MPI_SUCCESS */
.Lrefill:	/* The pool is empty: carve a batch (pool_refill returns a cell and links the
	 * rest; the cell goes back too) and go on here, rather than the general way. */
	addi	sp, sp, -48
	sw	ra, 0(sp)
	sw	a0, 4(sp)
	sw	a1, 8(sp)
	sw	a2, 12(sp)
	sw	a3, 16(sp)
	sw	a4, 20(sp)
	sw	a5, 24(sp)
	sw	a6, 28(sp)
	sw	t0, 32(sp)
	sw	t1, 36(sp)
	sw	t4, 40(sp)
	sw	t6, 44(sp)
	LA(a0, mpi_request_pool)
	call	pool_refill
	LA(a1, mpi_request_pool)		/* pool_put */
	lw	a2, 0(a1)
	sw	a2, 0(a0)
	sw	a0, 0(a1)
	lw	ra, 0(sp)
	lw	a0, 4(sp)
	lw	a1, 8(sp)
	lw	a2, 12(sp)
	lw	a3, 16(sp)
	lw	a4, 20(sp)
	lw	a5, 24(sp)
	lw	a6, 28(sp)
	lw	t0, 32(sp)
	lw	t1, 36(sp)
	lw	t4, 40(sp)
	lw	t6, 44(sp)
	addi	sp, sp, 48
	j	.Lcell
.Lgeneral:
	tail	mpi_irecv_general
	.size	irecv_other, . - irecv_other

	/* mpi_irecv_end(request, frame): MPI_Irecv's end when its caller was resumed with the
	 * operand segment (frame; 0: the request was created behind others, nothing to do):
	 * the receive request's four words by remote writes (RREQ_WORDS), the invocation,
	 * then its op leaves the head of the peer's outbox (back to its pool); what queued
	 * behind it, or computations waiting for the empty outbox: irecv_end_after
	 * (creation.c). Returns MPI_SUCCESS. */
	.globl	mpi_irecv_end
	.type	mpi_irecv_end, @function
	.p2align 2
mpi_irecv_end:
	beqz	a1, 9f
	lw	a4, 0(a0)
	andi	a4, a4, -8			/* a4: the request */
	addi	a2, a1, L_REQ_ARGS
	REQ_WORDS a4, a2
	LW_G(t1, mpi_me)
	addi	t0, a1, 1 + L_REQ_RREQ		/* slot 1 + REQ_RREQ */
	SEND(0, t0, t1)
	PEER_OUTBOX
	DIRECT_OP_OFF
	.size	mpi_irecv_end, . - mpi_irecv_end
