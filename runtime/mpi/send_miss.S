/* MPI_Isend's miss with matching on both sides by hand, as the original had its queue
 * operations, request allocation and creations in assembly (start_send, p2p.c, after
 * put_to_posted found no receive request for a short message of get or sync; a0: the new
 * send request, its fields set). The usual case -- no receive request filed under its
 * key, the key known to the request-issued queue, no MPI_ANY_TAG key, nothing waiting for
 * credits to the receiver and a credit at hand, an op cell at hand -- files the send in
 * the request-issued queue (the miss-and-insert in this thread) and creates its send
 * request (get, sync) or, buffered, its temporary buffer's request (the send waits in its
 * receiver's queue meanwhile, as sendq_add leaves it): the op with its words heads or
 * joins the receiver's outbox, and the operand segment is asked for unless two are asked
 * already (creation.c's create).
 * send_miss_at: MPI_Isend's lookup found no receive request under the key, a1 the key's
 * bucket offset | 1 (put_to_posted_looked); send_miss looks for one first.
 * Returns MPI_SUCCESS or the context to suspend on (ASK_SEGMENT). Anything else:
 * send_start (send_start_ok), before any change. Offsets: irecv_layout.h, arrivals_layout.h (checked in sender_match.c, creation.c). */
#include "irecv_layout.h"
#include "arrivals_layout.h"
#include "mpi_asm.h"


/* The operand segment for the creation that heads the empty outbox t0 of PE a1: by
 * default MPI_Isend waits for it, as the original's issuing thread did (the answer to a
 * context's continuation, a2 that context, the caller suspends on it and mpi_isend_end
 * writes the words and invokes; its op, marked OP_DIRECT, heads the outbox meanwhile, as
 * MPI_Irecv's, proto_direct_begin: the outbox's own direct op when it holds no words).
 * With -mpi-option=local-isend, no context at hand, or a1 this PE: to \local (before any
 * change), where the caller asks by FIRST_CREATION (the answer's handler writes the
 * words). Uses t1, t2. */
.macro ASK_SEGMENT local
	lui	t1, %hi(mpi_opt + L_OPT_LOCAL_ISEND)	/* a byte */
	lbu	t1, %lo(mpi_opt + L_OPT_LOCAL_ISEND)(t1)
	bnez	t1, \local
	LW_G(a2, __emx_ctx_pool)
	beqz	a2, \local
	LW_G(t1, mpi_me)
	beq	t1, a1, \local
	LW_G(t1, mpi_segment_word)		/* emx_invoke(pe, mpi_h_segment, me, cont) */
	slli	t2, a1, 22
	or	t1, t1, t2
	lw	t2, L_CTX_CONT(a2)
	SEND(3, t1, t2)
	lw	t1, L_CTX_NEXT(a2)		/* __emx_ctx_get (after: the request first) */
	SW_G(t1, __emx_ctx_pool, t2)
.endm

/* The op a7 out of its pool a6 (checked there before any change). Uses t1. */
.macro POP_OP
	lw	t1, 0(a7)
	sw	t1, 0(a6)
	sw	zero, 0(a7)
.endm

/* The temporary buffer's request (kind 2, no bits, 2 words: the bytes and the answer's
 * special address) into the op a7 of send a0 to PE a1. Uses t1, t4. */
.macro TMP_OP_WORDS
	li	t1, L_OP_TMP_HDR
	sw	t1, L_OP_HDR(a7)
	lw	t1, L_REQ_CAPACITY(a0)
	addi	t1, t1, 8
	sw	t1, L_OP_W(a7)
	LW_G(t1, mpi_tmp_answer_word)		/* emx_special_addr(me, mpi_h_tmp_answer, pe) */
	or	t1, t1, a1
	sw	t1, L_OP_W + 4(a7)
.endm

/* a7 = the direct op of the empty outbox t0 (creation.c: its header says OP_DIRECT, its
 * next is 0 while it is free: DIRECT_OP_OFF). */
.macro DIRECT_OP
	addi	a7, t0, L_OB_DIRECT
.endm

/* The send request's header (kind 0, the protocol a5 in its bits, 4 words) and words into
 * the op a7 of send a0, for a creation whose answer's handler writes them (the send may
 * be complete and its cell reused by then). Uses t1, t4. */
.macro SREQ_OP_WORDS
	slli	t1, a5, 16
	li	t4, 4 << 24
	or	t1, t1, t4
	sw	t1, L_OP_HDR(a7)
	LW_G(t1, mpi_me_gaddr)
	srli	t4, a0, 2
	or	t1, t1, t4
	sw	t1, L_OP_W(a7)			/* the request's global address */
	lw	t1, L_REQ_BUF(a0)
	sw	t1, L_OP_W + 4(a7)		/* the data */
	lw	t1, L_REQ_CAPACITY(a0)
	sw	t1, L_OP_W + 8(a7)		/* the bytes */
	TAG_CTX	t1, a0, t4
	sw	t1, L_OP_W + 12(a7)		/* tag | context << 16 */
.endm

/* The op a7 heads the empty outbox t0; returns a2 (MPI_SUCCESS or the context). */
.macro OP_HEADS
	sw	a7, L_OB_HEAD(t0)
	sw	a7, L_OB_TAIL(t0)
	ADD_G	mpi_outbox_pending, 1, t1, t2
	mv	a0, a2				/* MPI_SUCCESS or the context */
	ret
.endm

	.section .sdata, "aw"
	.p2align 2
isq_one:	.word	L_ISQ_ONE		/* refs, isq_count: one reference, one entry */

	.text
/* MPI_Isend's miss with matching on the receiver only (start_send, p2p.c; a0: the new
 * send request): the usual case -- get or sync, nothing waiting for credits to the
 * receiver and a credit at hand, no staged records, an op cell at hand, the outbox to
 * the receiver empty -- creates the send request (as send_start's proto_create4 would):
 * the credit, the operand segment asked for first (the answer's handler runs only after
 * this computation ends, so nothing is lost by asking before the op is written), then
 * the op heads the outbox: the send request's kind and bits, no words (n 0) but the send
 * itself, whose four words the answer's handler (segment_reply.S) or mpi_isend_end writes
 * from it. Returns MPI_SUCCESS or the context to suspend on (ASK_SEGMENT). Anything
 * else: send_start (send_start_ok), before any change. */
	.globl	send_only
	.type	send_only, @function
	.p2align 2
send_only:
	lbu	a5, L_REQ_PROTO(a0)		/* a5: the protocol */
	lhu	a1, L_REQ_PE(a0)		/* a1: the receiver's PE */
	LW_G(a3, mpi_send_queues)		/* a3: the send queue to the receiver */
	beqz	a5, .Lonly_general		/* buffered: C */
	lui	t0, %hi(mpi_opt + L_OPT_STAGED)	/* staged records: C */
	lbu	t0, %lo(mpi_opt + L_OPT_STAGED)(t0)
	slli	a4, a1, L_SENDQ_SHIFT
	add	a3, a3, a4
	bnez	t0, .Lonly_general
	lw	a4, L_DL_NEXT(a3)
	bne	a4, a3, .Lonly_general		/* sends wait before it */
	lhu	a4, L_SENDQ_CREDITS(a3)		/* a4: the credits at hand */
	LA(a6, mpi_op_pool)
	lw	a7, 0(a6)			/* a7: the op */
	beqz	a4, .Lonly_general
	LW_G(t0, mpi_outboxes)
	slli	t1, a1, L_OB_SHIFT
	add	t0, t0, t1			/* t0: the outbox */
	beqz	a7, .Lonly_general
	lw	t1, L_OB_TAIL(t0)
	bnez	t1, .Lonly_general
	ASK_SEGMENT .Lonly_local
	DIRECT_OP				/* (mpi_isend_end writes the words) */
.Lonly_asked:
	addi	a4, a4, -1			/* the credit (sendq_credit_now) */
	sh	a4, L_SENDQ_CREDITS(a3)
	sw	zero, L_REQ_FIX(a0)		/* not queued */
	sw	a7, L_OB_HEAD(t0)		/* the op heads the empty outbox */
	sw	a7, L_OB_TAIL(t0)
	lui	t1, %hi(mpi_outbox_pending)	/* (one instruction each once relaxed) */
	lw	t2, %lo(mpi_outbox_pending)(t1)
	addi	t2, t2, 1
	sw	t2, %lo(mpi_outbox_pending)(t1)
	lui	t1, %hi(mpi_counters + L_COUNT_SEND_REQUESTS)
	lw	t2, %lo(mpi_counters + L_COUNT_SEND_REQUESTS)(t1)
	addi	t2, t2, 1
	sw	t2, %lo(mpi_counters + L_COUNT_SEND_REQUESTS)(t1)
	mv	a0, a2				/* MPI_SUCCESS or the context */
	ret
.Lonly_local:
	FIRST_CREATION
	li	a2, 0
	POP_OP
	slli	t1, a5, 16			/* a send request (kind 0), its bits, no words: */
	sw	t1, L_OP_HDR(a7)
	sw	a0, L_OP_W(a7)			/* segment_reply.S takes them from the send */
	j	.Lonly_asked
.Lonly_general:
	tail	send_start_ok
	.size	send_only, . - send_only

	.globl	send_miss
	.type	send_miss, @function
	.p2align 2
send_miss:	/* not looked */
	lhu	a1, L_REQ_PE(a0)		/* a1: the receiver's PE */
	lhu	t2, L_REQ_CTX(a0)		/* t2: the context */
	lw	t1, L_REQ_PE(a0)		/* t1: pt (pe | tag << 16) */
	j	.Llook
	.globl	send_miss_at
send_miss_at:	/* looked: a1 the key's bucket offset | 1 */
	addi	t3, a1, -1			/* t3: the key's bucket offset */
	lhu	a1, L_REQ_PE(a0)		/* a1: the receiver's PE */
	lhu	t2, L_REQ_CTX(a0)		/* t2: the context */
	lw	t1, L_REQ_PE(a0)		/* t1: pt (pe | tag << 16) */
.Lisq:	LA(t4, mpi_isq_send)			/* t4, t5: the request-issued queue, the key */
	FIND_KEY .Lgeneral			/* (a send's tag is named: no MPI_ANY_TAG key) */
	LW_G(a3, mpi_send_queues)		/* a3: the send queue to the receiver */
	slli	a4, a1, L_SENDQ_SHIFT
	add	a3, a3, a4
	lw	a4, L_DL_NEXT(a3)
	bne	a4, a3, .Lgeneral		/* sends wait before it */
	lhu	a4, L_SENDQ_CREDITS(a3)		/* a4: the credits at hand */
	beqz	a4, .Lgeneral
	lui	a5, %hi(mpi_opt + L_OPT_STAGED)	/* staged records: the C path */
	lbu	a5, %lo(mpi_opt + L_OPT_STAGED)(a5)
	bnez	a5, .Lgeneral
	lbu	a5, L_REQ_PROTO(a0)		/* a5: the protocol */
	beqz	a5, .Lbuffered
.Lchecked:
	LA(a6, mpi_op_pool)
	lw	a7, 0(a6)			/* a7: the op */
	beqz	a7, .Lgeneral
	/* isq_add: its own entry appended to the key's FIFO (kq_append) */
	addi	t6, a0, L_REQ_ISQ_OWN
	sw	a0, L_REQ_ISQ_REQ(a0)
	sw	t5, L_REQ_ISQ_KEY(a0)
	KQ_APPEND t6, t0
	sw	t6, L_REQ_ISQ_NEWEST(a0)
	LW_G(t0, isq_one)			/* (a word: one gp-relative load) */
	sw	t0, L_REQ_REFS(a0)
	addi	a4, a4, -1			/* the credit (sendq_credit_now) */
	sh	a4, L_SENDQ_CREDITS(a3)
	beqz	a5, .Ltmp			/* buffered: its temporary buffer */
	sw	zero, L_REQ_FIX(a0)		/* not queued */
	ADD_G	mpi_counters+L_COUNT_SEND_REQUESTS, 1, t1, t4
	/* A send request (kind 0, the protocol in its bits, 4 words) joins the receiver's
	 * outbox */
	LW_G(t0, mpi_outboxes)
	slli	t1, a1, L_OB_SHIFT
	add	t0, t0, t1			/* t0: the outbox */
	lw	t1, L_OB_TAIL(t0)
	bnez	t1, .Lsreq_behind
	/* It was empty (no creation waits, no segment asked: send_only's case): the op
	 * heads it, its segment asked for; the thread waits for it and mpi_isend_end
	 * writes the words from the send (the op holds none) */
	ASK_SEGMENT .Lsreq_local
	DIRECT_OP
.Lhead:	OP_HEADS
.Lsreq_local:	/* the answer's handler writes them: from the op */
	POP_OP
	SREQ_OP_WORDS
	FIRST_CREATION
	li	a2, 0
	j	.Lhead
.Lsreq_behind:
	POP_OP
	SREQ_OP_WORDS
	j	.Lbehind
.Lbehind:
	OUTBOX_CREATE a7, a1
	li	a0, 0
	ret
.Ltmp:	/* Buffered (sendq_add with its credit, ask_tmp): the send waits in its receiver's
	 * queue, its temporary buffer asked for by a creation of two words (the bytes and
	 * the answer's special address); credits.c's mpi_h_tmp_answer goes on. */
	addi	t4, a0, L_REQ_PRQ		/* dl_append to the empty queue */
	sw	a3, L_REQ_PRQ(a0)
	sw	a3, L_REQ_PRQ + 4(a0)
	sw	t4, 0(a3)
	sw	t4, L_DL_NEXT(a3)
	li	t4, L_SQ_TMP_STATE		/* queued, a credit, the buffer asked for */
	sw	t4, L_REQ_FIX(a0)
	lw	t4, L_REQ_BUF(a0)
	sw	t4, L_REQ_FIX + 4(a0)		/* the data's address */
	LW_G(t0, mpi_outboxes)			/* the tmp request joins the outbox */
	slli	t1, a1, L_OB_SHIFT
	add	t0, t0, t1			/* t0: the outbox */
	lw	t1, L_OB_TAIL(t0)
	bnez	t1, .Ltmp_behind
	ASK_SEGMENT .Ltmp_local			/* (mpi_isend_end writes its words) */
	DIRECT_OP
	OP_HEADS
.Ltmp_local:	/* the answer's handler writes them: from the op */
	POP_OP
	TMP_OP_WORDS
	FIRST_CREATION
	li	a2, 0
	j	.Lhead
.Ltmp_behind:
	POP_OP
	TMP_OP_WORDS
	j	.Lbehind
.Llook:	/* MPI_Isend did not look (or found a receive request): no receive request may be
	 * filed under the key */
	HASH
	LA(t4, mpi_assoc)
	lw	t5, L_KQ_ANY_KEYS(t4)
	bnez	t5, .Lgeneral
	FIND_KEY .Lisq
	lw	t6, L_KEY_HEAD(t5)
	beqz	t6, .Lisq
	j	.Lgeneral
.Lbuffered:	/* with data (0 B completes at once: C), not in the send request's word */
	lw	t0, L_REQ_CAPACITY(a0)
	beqz	t0, .Lgeneral
	lui	t0, %hi(mpi_opt + L_OPT_SREQ_INLINE)
	lbu	t0, %lo(mpi_opt + L_OPT_SREQ_INLINE)(t0)
	beqz	t0, .Lchecked
.Lgeneral:
	tail	send_start_ok
	.size	send_miss, . - send_miss

	/* mpi_isend_end(request, frame): MPI_Isend's end when its caller was resumed with the
	 * operand segment (frame; 0: it waited in isend_settle, nothing to do), as
	 * mpi_irecv_end (irecv.S) for a receive. The outbox's direct op heading the
	 * receiver's outbox (ASK_SEGMENT) stands for a send request (get, sync: its four
	 * words from the send, its bits the protocol) or, buffered, the temporary buffer's
	 * request (its two words from the send): the words by remote writes, the invocation,
	 * then the op leaves the outbox; what queued behind it, or computations waiting for
	 * the empty outbox: irecv_end_after (creation.c). Returns MPI_SUCCESS. */
	.globl	mpi_isend_end
	.type	mpi_isend_end, @function
	.p2align 2
mpi_isend_end:
	beqz	a1, 9f
	lw	a4, 0(a0)
	andi	a4, a4, -8			/* a4: the send */
	lbu	a3, L_REQ_PROTO(a4)		/* a3: its protocol */
	addi	a2, a1, L_REQ_ARGS
	beqz	a3, 4f				/* buffered: the op's words */
	REQ_WORDS a4, a2			/* the send request's words, from the send */
	addi	t0, a1, 1			/* slot 1 + REQ_SREQ (0), me | protocol << 10 */
	slli	t1, a3, 10
	LW_G(t2, mpi_me)
	or	t1, t1, t2
	SEND(0, t0, t1)
	PEER_OUTBOX
	DIRECT_OP_OFF
4:	lw	t0, L_REQ_CAPACITY(a4)		/* the temporary buffer's request: */
	addi	t0, t0, 8
	SEND(4, a2, t0)				/* the bytes, */
	lhu	t1, L_REQ_PE(a4)
	LW_G(t0, mpi_tmp_answer_word)
	or	t0, t0, t1
	addi	a2, a2, 1
	SEND(4, a2, t0)				/* the answer's special address */
	addi	t0, a1, 1 + ((L_OP_TMP_HDR >> 8) & 0xff) /* slot 1 + REQ_TMP, me */
	LW_G(t1, mpi_me)
	SEND(0, t0, t1)
	PEER_OUTBOX
	DIRECT_OP_OFF
	.size	mpi_isend_end, . - mpi_isend_end
