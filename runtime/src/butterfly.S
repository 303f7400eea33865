/* The steps of the integer sum and of the sum with the exclusive prefix (emx_sum_i32,
 * emx_scan_i32, emx_sum_scan_i32: emx/collective.h) by hand, as EM-C's compiler made a
 * function's code between suspension points: one strongly connected block per step, the
 * live values (the value, the prefix, the step) in registers, saved in the collectives'
 * frame only when a step waits for its partner's message and restored by the thread
 * the message starts, which adds it and sends the next step's message. The plan is
 * __emx_collective_init's (emx/butterfly.h): one table per element set, each ending in
 * an entry whose target is 0. The caller's inline asm declares every register but sp,
 * gp, tp and s0 clobbered, so its own live values are GCC's, in its frame (docs/runtime.md,
 * "Suspension"); a step that waits first keeps sp, ra, tp and s0 in the frame (the
 * first wait of a call) and makes a shared stack its own, as __emx_wait_frame does.
 * Offsets: butterfly_layout.h (checked in collective.c). */
#include "butterfly_layout.h"

#define END .insn i 0x0b, 1, x0, x0, 0
#define SEND(type, addr, data) .insn r 0x0b, 0, type, x0, addr, data
#define RTAG(rd, word) .insn r 0x0b, 2, 0, rd, word, x0
#define WTAG(word, tag) .insn r 0x0b, 3, 0, x0, word, tag
#define LOAD_GLOBAL(rd, sym) lui rd, %hi(sym); lw rd, %lo(sym)(rd)

/* a2 = this call's plan: set (calls & 1); calls += 1. */
.macro PLAN
	lui	t2, %hi(__emx_coll_calls)
	lw	t0, %lo(__emx_coll_calls)(t2)
	lui	a2, %hi(__emx_bfly_steps)
	addi	t1, t0, 1
	sw	t1, %lo(__emx_coll_calls)(t2)
	andi	t0, t0, 1
	addi	a2, a2, %lo(__emx_bfly_steps)
	beqz	t0, 1f
	addi	a2, a2, BFLY_SET_BYTES
1:
.endm

/* The steps, from `p`_combine (t4 = the partner block's value, a2 = its step) or
 * `p`_step (a2 = the next step). a0 = this block's value, a1 = the values of the blocks
 * before this PE (scan). */
.macro STEPS p, scan, wait, done
\p\()_combine:
	add	a0, a0, t4
	.if \scan
	lw	t5, BFLY_LOWER(a2)
	and	t5, t5, t4
	add	a1, a1, t5
	.endif
	addi	a2, a2, BFLY_BYTES
\p\()_step:
	lw	t0, BFLY_TO(a2)
	lw	t1, BFLY_EXTRA(a2)
	bnez	t1, \p\()_targets
	SEND(BFLY_PKT_IWRITE, t0, a0)
\p\()_sent:	/* the partner block's value here already? Then take it, no packet */
	lw	t2, BFLY_ELEM(a2)
	RTAG(t3, t2)
	andi	t4, t3, 1			/* EMX_TAG_PRESENT */
	beqz	t4, \wait
	lw	t4, 0(t2)
	xori	t3, t3, 1
	WTAG(t2, t3)
	j	\p\()_combine
\p\()_targets:	/* the end (no target), or P not a power of two: 0 or 2 targets */
	beqz	t0, \done
	addi	t1, t1, 1
	beqz	t1, \p\()_sent
	lw	t5, BFLY_STRIDE(a2)
1:	SEND(BFLY_PKT_IWRITE, t0, a0)
	add	t0, t0, t5
	addi	t1, t1, -1
	bnez	t1, 1b
	j	\p\()_sent
.endm

/* The wait: the I-structure read of this step's element names slot `slot` of frame `f`;
 * the live values go to the frame. */
.macro WAIT slot, scan, f
	lw	t5, BFLY_SELF(a2)
	LOAD_GLOBAL(t6, __emx_coll_cont)
	addi	t6, t6, \slot - 1
	SEND(BFLY_PKT_IREAD, t5, t6)
	sw	a0, BFLY_F_VALUE(\f)
	sw	a2, BFLY_F_STEP(\f)
	.if \scan
	sw	a1, BFLY_F_LOWER(\f)
	.endif
.endm

/* The first wait of a call: the caller's activation (sp, ra, tp, s0) into the frame. */
.macro FIRST_WAIT slot, scan
	LOAD_GLOBAL(a3, __emx_coll_frame)
	WAIT \slot, \scan, a3
	sw	sp, CTX_SP(a3)
	sw	ra, CTX_RA(a3)
	sw	tp, CTX_TP(a3)
	sw	s0, CTX_S0(a3)
	j	__emx_end_owning_the_stack
.endm

/* The last step after a wait: back to the caller's activation (tp = the frame). */
.macro RETURN_RESUMED
	lw	sp, CTX_SP(tp)
	lw	ra, CTX_RA(tp)
	lw	s0, CTX_S0(tp)
	lw	tp, CTX_TP(tp)
	ret
.endm

	.text
/* a0 = x; returns the sum over all PEs in a0. */
	.globl	__emx_bfly_sum_i32
	.type	__emx_bfly_sum_i32, @function
	.p2align 2
__emx_bfly_sum_i32:
	PLAN
	j	.Lsum_step
	STEPS .Lsum, 0, .Lsum_wait, .Lsum_done
.Lsum_done:
	ret
.Lsum_wait:
	FIRST_WAIT BFLY_SLOT_SUM, 0
	.size	__emx_bfly_sum_i32, . - __emx_bfly_sum_i32

/* Slot 3 of the collectives' frame: tp = the frame, a0 = the partner block's value
 * (the sum is commutative: it comes in a0, our value in t4). */
	.globl	__emx_bfly_resume_sum
	.type	__emx_bfly_resume_sum, @function
	.p2align 2
__emx_bfly_resume_sum:
	lw	t4, BFLY_F_VALUE(tp)
	lw	a2, BFLY_F_STEP(tp)
	STEPS .Lsum_r, 0, .Lsum_r_wait, .Lsum_r_done
.Lsum_r_done:
	RETURN_RESUMED
.Lsum_r_wait:
	WAIT BFLY_SLOT_SUM, 0, tp
	END
	.size	__emx_bfly_resume_sum, . - __emx_bfly_resume_sum

/* a0 = x; returns the sum over all PEs in a0 and that over the PEs numbered below this
 * one in a1. */
	.globl	__emx_bfly_sum_scan_i32
	.type	__emx_bfly_sum_scan_i32, @function
	.p2align 2
__emx_bfly_sum_scan_i32:
	PLAN
	li	a1, 0
	j	.Lscan_step
	STEPS .Lscan, 1, .Lscan_wait, .Lscan_done
.Lscan_done:
	ret
.Lscan_wait:
	FIRST_WAIT BFLY_SLOT_SCAN, 1
	.size	__emx_bfly_sum_scan_i32, . - __emx_bfly_sum_scan_i32

/* Slot 4: tp = the frame, a0 = the partner block's value. */
	.globl	__emx_bfly_resume_scan
	.type	__emx_bfly_resume_scan, @function
	.p2align 2
__emx_bfly_resume_scan:
	mv	t4, a0
	lw	a0, BFLY_F_VALUE(tp)
	lw	a1, BFLY_F_LOWER(tp)
	lw	a2, BFLY_F_STEP(tp)
	STEPS .Lscan_r, 1, .Lscan_r_wait, .Lscan_r_done
.Lscan_r_done:
	RETURN_RESUMED
.Lscan_r_wait:
	WAIT BFLY_SLOT_SCAN, 1, tp
	END
	.size	__emx_bfly_resume_scan, . - __emx_bfly_resume_scan
