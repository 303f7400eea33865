/* mpi_h_segment_reply by hand (creation.c: the C form is segment_reply_general): on the
 * requester, the operand segment for the oldest creation waiting in the target's outbox.
 * The request's words go first by remote writes (from the op, or, for a send request
 * that send_only queued with no words, from the send itself: its op's header is then
 * just its bits << 16), then the invocation (on the critical path of every send
 * request), then the outbox's bookkeeping. a0: the frame's global address, a1: the target's PE.
 * Anything unusual (no creation at the head, a creation on this PE): the C form, before
 * any change; what queued behind the creation and waiting computations:
 * proto_after_invocation. Offsets: arrivals_layout.h (checked in creation.c). */
#include "irecv_layout.h"
#include "arrivals_layout.h"
#include "mpi_asm.h"

/* The operand segment's frame in a0 (global address), the target in a1: to .Lgeneral
 * unless a creation heads the target's outbox and the target is another PE. Then a4 the
 * outbox, a5 the op, a3 its header (op | kind << 8 | bits << 16 | n << 24), t1 this PE. */
.macro HEAD
	LW_G(a4, mpi_outboxes)
	slli	a5, a1, L_OB_SHIFT
	add	a4, a4, a5			/* a4: its outbox */
	lw	a5, L_OB_HEAD(a4)		/* a5: the op */
	beqz	a5, .Lgeneral
	lbu	t0, L_OP_HDR(a5)
	bnez	t0, .Lgeneral			/* not a creation */
	LW_G(t1, mpi_me)			/* t1: this PE */
	beq	t1, a1, .Lgeneral
	lw	a3, L_OP_HDR(a5)
.endm

/* A remote write or the invocation to base + disp (words): by the send's displacement
 * form where the machine has it (d = 1), else by an address computed first (uses t3). */
.macro SEND_AT type, base, disp, data, d
.if \d
	SENDD(\type, \base, \disp, \data)
.else
	addi	t3, \base, \disp
	SEND(\type, t3, \data)
.endif
.endm

/* The request's words by remote writes to a0 + L_REQ_ARGS, then the invocation. */
.macro WORDS d
	srli	t2, a3, 24
	bnez	t2, 2f
	/* No words in the op: a send request (send_only), its four words from the request */
	lw	a6, L_OP_W(a5)			/* a6: the send */
	slli	t0, t1, 22
	srli	t2, a6, 2
	or	t0, t0, t2
	SEND_AT 4, a0, L_REQ_ARGS, t0, \d	/* its global address */
	lw	t0, L_REQ_BUF(a6)
	SEND_AT 4, a0, L_REQ_ARGS + 1, t0, \d	/* the data */
	lw	t0, L_REQ_CAPACITY(a6)
	SEND_AT 4, a0, L_REQ_ARGS + 2, t0, \d	/* the bytes */
	TAG_CTX	t0, a6, t2
	SEND_AT 4, a0, L_REQ_ARGS + 3, t0, \d	/* tag | context << 16 */
	srli	t2, a3, 6			/* requester PE | bits << 10 */
	or	t2, t2, t1
	SEND_AT 0, a0, 1, t2, \d		/* slot 1 + REQ_SREQ (0) */
	j	3f
2:	/* 2 or 4 words in the op */
	lw	t0, L_OP_W(a5)
	SEND_AT 4, a0, L_REQ_ARGS, t0, \d
	lw	t0, L_OP_W + 4(a5)
	SEND_AT 4, a0, L_REQ_ARGS + 1, t0, \d
	li	t0, 2
	beq	t2, t0, 1f
	lw	t0, L_OP_W + 8(a5)
	SEND_AT 4, a0, L_REQ_ARGS + 2, t0, \d
	lw	t0, L_OP_W + 12(a5)
	SEND_AT 4, a0, L_REQ_ARGS + 3, t0, \d
1:	srli	t0, a3, 8			/* the invocation: slot 1 + kind */
	andi	t0, t0, 0xff
	add	t0, t0, a0
	srli	t2, a3, 16			/* requester PE | bits << 10 */
	andi	t2, t2, 0xff
	slli	t2, t2, 10
	or	t2, t2, t1
	SEND_AT 0, t0, 1, t2, \d
3:
.endm

	.text
/* EM-X: the words by the send's displacement form. */
	.globl	mpi_h_segment_reply
	.type	mpi_h_segment_reply, @function
	.p2align 2
mpi_h_segment_reply:
	HEAD
	WORDS 1
	j	.Linvoked
/* A machine without it (creation_init chooses): each address computed. */
	.globl	mpi_h_segment_reply_separate
mpi_h_segment_reply_separate:
	HEAD
	WORDS 0
.Linvoked:
	lw	t0, L_OB_CREATES(a4)		/* one creation less */
	lw	t2, L_OB_ASKED(a4)
	addi	t0, t0, -1
	sw	t0, L_OB_CREATES(a4)
	bgeu	t0, t2, .Lask			/* one more waits: this answer's slot asks */
	addi	t2, t2, -1
	sw	t2, L_OB_ASKED(a4)
.Lasked:
	lw	t0, 0(a5)			/* t0: the next op */
	sw	t0, L_OB_HEAD(a4)
	LA(t2, mpi_op_pool)			/* the op back to its pool */
	lw	t3, 0(t2)
	sw	t3, 0(a5)
	sw	a5, 0(t2)
	LA(t2, mpi_outbox_pending)
	lw	t3, 0(t2)
	addi	t3, t3, -1
	sw	t3, 0(t2)
	bnez	t0, .Lnext
	sw	zero, L_OB_TAIL(a4)
	lw	t3, L_OB_DRAINED(a4)
	bnez	t3, .Lafter			/* computations wait for the empty outbox */
	ret
.Lnext:	lbu	t3, L_OP_HDR(t0)
	bnez	t3, .Lafter			/* a removal queued behind it leaves now */
	ret
.Lask:	LW_G(t2, mpi_idx_segment)		/* emx_invoke(target, mpi_h_segment, me, 0) */
	slli	t2, t2, 16
	slli	t0, a1, 22
	or	t2, t2, t0
	or	t2, t2, t1
	SEND(3, t2, zero)
	j	.Lasked
.Lafter:
	mv	a0, a4
	tail	proto_after_invocation
.Lgeneral:
	tail	segment_reply_general
	.size	mpi_h_segment_reply, . - mpi_h_segment_reply

	/* mpi_h_segment (creation.c says what it does): a0 the continuation to answer (0:
	 * the requester's mpi_h_segment_reply), a1 the requester's PE. */
	.globl	mpi_h_segment
	.type	mpi_h_segment, @function
	.p2align 2
mpi_h_segment:
	LW_G(a5, __emx_frame_pool)		/* a5: the frame */
	beqz	a5, .Lcarve
	LW_G(a3, mpi_me_gaddr)
	srli	a4, a5, 2
	or	a3, a3, a4			/* its global address */
	beqz	a0, .Lto_reply
	SEND(0, a0, a3)				/* inv1: the waiting computation resumes */
.Ltaken:
	lw	a4, 0(a5)			/* the frame leaves the free list */
	LW_G(a2, mpi_request_tmpl)
	SW_G(a4, __emx_frame_pool, a3)
	sw	a2, 0(a5)
	ADD_G	mpi_inbound, 1, a4, a3
	THREAD_END
.Lto_reply:
	LW_G(a4, mpi_segment_reply_word)
	slli	a1, a1, 22
	or	a1, a1, a4
	SEND(3, a1, a3)				/* special: mpi_h_segment_reply */
	j	.Ltaken
.Lcarve:
	ADD_G	mpi_inbound, 1, a4, a3
	beqz	a0, 1f
	tail	segment_carved_to
1:	mv	a0, a1
	tail	segment_carved
	.size	mpi_h_segment, . - mpi_h_segment
