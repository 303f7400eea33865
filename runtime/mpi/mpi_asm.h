/* Macros of the hand-written MPI paths (arrivals.S, send_miss.S): packets, addresses, the
 * keyed queues' hash and lookup (keyqueue.c's kq_hash and kq_find). Offsets:
 * irecv_layout.h and arrivals_layout.h. */
#ifndef EMX_MPI_ASM_H
#define EMX_MPI_ASM_H

#define SEND(type, addr, data) .insn r 0x0b, 0, type, x0, addr, data
/* The base + displacement form (types 0..7): to the global address base + disp (words). */
#define SENDD(type, base, disp, data) .insn s 0x2b, type, data, disp(base)
#define LA(rd, sym) lui rd, %hi(sym); addi rd, rd, %lo(sym)
#define LW_G(rd, sym) lui rd, %hi(sym); lw rd, %lo(sym)(rd)
#define SW_G(rs, sym, tmp) lui tmp, %hi(sym); sw rs, %lo(sym)(tmp)

/* The global word \sym += \n (the linker makes each access one gp-relative instruction
 * when it can). Uses \tmp, \tmp2. */
.macro ADD_G sym, n, tmp, tmp2
	LW_G(\tmp, \sym)
	addi	\tmp, \tmp, \n
	SW_G(\tmp, \sym, \tmp2)
.endm

/* t3 = the bucket's byte offset of key (pt t1, context t2): kq_hash. Uses t4. */
.macro HASH
	slli	t3, t2, 16
	add	t3, t3, t2
	add	t3, t3, t1
	li	t4, 0x9e3779b1
	mul	t3, t3, t4
	srli	t3, t3, 26
	slli	t3, t3, 2
.endm

/* t5 = the key (pt t1, context t2) of the table in t4, bucket offset t3; to \none if
 * there is none. Uses t6. */
.macro FIND_KEY none
	add	t5, t4, t3
	lw	t5, 0(t5)
1:	beqz	t5, \none
	lw	t6, L_KEY_PT(t5)
	bne	t6, t1, 2f
	lw	t6, L_KEY_CTX(t5)
	beq	t6, t2, 3f
2:	lw	t5, L_KEY_CHAIN(t5)
	j	1b
3:
.endm

/* kq_append of \item (its link: next, seq) to the key t5 of the table t4, idle or not
 * (a concrete tag's key). Uses \tmp. */
.macro KQ_APPEND item, tmp
	sw	zero, 0(\item)
	lw	\tmp, L_KQ_SEQ(t4)
	sw	\tmp, 4(\item)
	addi	\tmp, \tmp, 1
	sw	\tmp, L_KQ_SEQ(t4)
	lw	\tmp, L_KEY_HEAD(t5)
	beqz	\tmp, 1f
	lw	\tmp, L_KEY_TAIL(t5)
	sw	\item, 0(\tmp)
	j	2f
1:	sw	\item, L_KEY_HEAD(t5)		/* an idle key takes an item again */
	lw	\tmp, L_KQ_IDLE(t4)
	addi	\tmp, \tmp, -1
	sw	\tmp, L_KQ_IDLE(t4)
2:	sw	\item, L_KEY_TAIL(t5)
.endm

/* The head entry t6 of key t5 (table t4) goes (kq_pop of a concrete tag's key); to \fail,
 * before any change, if the key would go idle beyond KQ_IDLE_MAX (a sweep: C). \next:
 * the entry's next. Uses \tmp1, \tmp2. */
.macro KQ_TAKE next, tmp1, tmp2, fail
	lw	\next, 0(t6)
	bnez	\next, 1f
	lw	\tmp1, L_KQ_IDLE(t4)
	li	\tmp2, L_KQ_IDLE_MAX
	bgeu	\tmp1, \tmp2, \fail
	addi	\tmp1, \tmp1, 1
	sw	\tmp1, L_KQ_IDLE(t4)
1:	sw	\next, L_KEY_HEAD(t5)
.endm

/* The first creation into the empty outbox t0 of PE \pe (none waits, no segment is
 * asked: an empty outbox has neither): its operand segment asked for, one creation, one
 * segment asked. Uses t1, t2. */
.macro FIRST_CREATION pe=a1
	LW_G(t1, mpi_segment_word)		/* emx_invoke(pe, mpi_h_segment, me, 0) */
	slli	t2, \pe, 22
	or	t1, t1, t2
	SEND(3, t1, zero)
	li	t2, 1
	sw	t2, L_OB_ASKED(t0)
	sw	t2, L_OB_CREATES(t0)
.endm

/* The creation's op \op joins the outbox of PE \pe (creation.c's create after the op is
 * filled: enqueue, the count of creations) and the operand segment is asked for unless two
 * are asked already (mpi_segment_word names this PE); into an empty outbox:
 * FIRST_CREATION. Uses t0, t1, t2. */
.macro OUTBOX_CREATE op, pe
	LW_G(t0, mpi_outboxes)
	slli	t1, \pe, L_OB_SHIFT
	add	t0, t0, t1			/* t0: the outbox */
	ADD_G	mpi_outbox_pending, 1, t1, t2
	lw	t1, L_OB_TAIL(t0)
	sw	\op, L_OB_TAIL(t0)
	beqz	t1, 4f
	sw	\op, 0(t1)
	lw	t1, L_OB_CREATES(t0)
	addi	t1, t1, 1
	sw	t1, L_OB_CREATES(t0)
	lw	t1, L_OB_ASKED(t0)		/* the operand segment, unless two are asked */
	li	t2, L_MAX_ASKED
	bgeu	t1, t2, 6f
	addi	t1, t1, 1
	sw	t1, L_OB_ASKED(t0)
	LW_G(t1, mpi_segment_word)		/* emx_invoke(pe, mpi_h_segment, me, 0) */
	slli	t2, \pe, 22
	or	t1, t1, t2
	SEND(3, t1, zero)			/* spec */
	j	6f
4:	sw	\op, L_OB_HEAD(t0)
	FIRST_CREATION \pe
6:
.endm

/* The words from \from up to \end (at least one) to \to; \from and \to advance. */
.macro COPY_WORDS from, to, end, tmp
8:	lw	\tmp, 0(\from)
	sw	\tmp, 0(\to)
	addi	\from, \from, 4
	addi	\to, \to, 4
	bltu	\from, \end, 8b
.endm

/* The end of a thread or handler that is entered only as one and has not moved its
 * stack pointer: the end instruction itself (a return would go through
 * __emx_thread_end, which gives a finished computation's stack back). */
#define THREAD_END .insn i 0x0b, 1, x0, x0, 0

/* The temporary buffer a0 of a1 bytes (the message's + 8) back, and return, or with
 * \thread 1 end the thread (THREAD_END) (mpi_tmp_free_buffered): a small one to its free
 * list, else free() by a tail call. S_TMP_SMALL_BYTES: sreq_layout.h. Uses t0. */
.macro TMP_BACK thread=0
	li	t0, S_TMP_SMALL_BYTES
	bltu	t0, a1, 7f
	LW_G(t0, mpi_tmp_small_free)
	sw	t0, 0(a0)
	lui	t0, %hi(mpi_tmp_small_free)
	sw	a0, %lo(mpi_tmp_small_free)(t0)
.if \thread
	THREAD_END
.else
	ret
.endif
7:	tail	mpi_tmp_free_buffered
.endm

/* A creation's thread done with its frame (tp): the frame back to its free list
 * (emx_frame_free). Uses t0. */
.macro FRAME_BACK_ONLY
	LW_G(t0, __emx_frame_pool)
	sw	t0, 0(tp)
	lui	t0, %hi(__emx_frame_pool)
	sw	tp, %lo(__emx_frame_pool)(t0)
.endm

/* mpi_inbound += \n (a creation's count: -1 when its thread runs; sreq.S has the
 * same). Uses t0, t3. */
.macro INBOUND n
	LW_G(t0, mpi_inbound)
	addi	t0, t0, \n
	lui	t3, %hi(mpi_inbound)
	sw	t0, %lo(mpi_inbound)(t3)
.endm

/* The frame back and the creation's inbound count down (creation.c's threads). */
.macro FRAME_FREE
	FRAME_BACK_ONLY
	INBOUND -1
.endm

/* \dst = request \req's tag | context << 16 (a request's fourth word). Uses \tmp. */
.macro TAG_CTX dst, req, tmp
	lhu	\dst, L_REQ_PE + 2(\req)
	lhu	\tmp, L_REQ_CTX(\req)
	slli	\tmp, \tmp, 16
	or	\dst, \dst, \tmp
.endm

/* The four words of request \req (its global address, buffer, capacity, tag | context
 * << 16) by remote writes to \at and the three words after it (\at advances): a
 * creation's words (irecv.S, send_miss.S). Uses t0, t1. */
.macro REQ_WORDS req, at
	LW_G(t1, mpi_me_gaddr)
	srli	t0, \req, 2
	or	t1, t1, t0			/* its global address */
	SEND(4, \at, t1)
	lw	t0, L_REQ_BUF(\req)
	addi	\at, \at, 1
	SEND(4, \at, t0)
	lw	t0, L_REQ_CAPACITY(\req)
	addi	\at, \at, 1
	SEND(4, \at, t0)
	TAG_CTX	t0, \req, t1
	addi	\at, \at, 1
	SEND(4, \at, t0)
.endm

/* a0 = the outbox of request a4's peer a1. Uses t0. */
.macro PEER_OUTBOX
	lhu	a1, L_REQ_PE(a4)		/* a1: the peer */
	LW_G(a0, mpi_outboxes)
	slli	t0, a1, L_OB_SHIFT
	add	a0, a0, t0			/* a0: its outbox */
.endm

/* The end of a creation by the issuing computation (mpi_irecv_end, mpi_isend_end): the
 * direct op heading outbox a0 of peer a1 (creation.c: the outbox's own) leaves it, its
 * next 0 again; what queued behind it, or computations waiting for the empty outbox:
 * irecv_end_after (creation.c). Returns MPI_SUCCESS; its label 9 returns it at once. */
.macro DIRECT_OP_OFF
	lw	t0, L_OB_DIRECT(a0)		/* t0: the next */
	sw	t0, L_OB_HEAD(a0)
	ADD_G	mpi_outbox_pending, -1, t1, t2
	bnez	t0, 7f
	sw	zero, L_OB_TAIL(a0)
	lw	t0, L_OB_DRAINED(a0)
	bnez	t0, 8f
9:	li	a0, 0
	ret
7:	sw	zero, L_OB_DIRECT(a0)
8:	tail	irecv_end_after
.endm

#endif
