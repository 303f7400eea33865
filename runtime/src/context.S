/* Suspension and resumption of C code (emx/threads.h, docs/runtime.md "Suspension").
 *
 * The caller of __emx_wait is an inline asm that declares every register but sp, gp,
 * tp and s0 clobbered: GCC has already put the live values in the stack frame, so only
 * sp, ra, tp and s0 remain to keep. The stack itself stays where it is: a suspended
 * computation owns it until it ends, and if it is the shared thread stack, new threads
 * get another one. */
#include "context_layout.h"

#define END .insn i 0x0b, 1, x0, x0, 0
#define CSR_THREAD_STACK 0x801

/* lw/sw of a small global: lui+%lo, which the linker relaxes to one gp-relative access. */
#define LOAD_GLOBAL(rd, sym) lui rd, %hi(sym); lw rd, %lo(sym)(rd)
#define STORE_GLOBAL(rs, sym, tmp) lui tmp, %hi(sym); sw rs, %lo(sym)(tmp)

	.text
/* a0 = the context (the request naming it is already sent). Ends the thread. */
	.globl	__emx_wait
	.type	__emx_wait, @function
	.p2align 2
__emx_wait:
	sw	sp, CTX_SP(a0)
	sw	ra, CTX_RA(a0)
	sw	tp, CTX_TP(a0)
	sw	s0, CTX_S0(a0)
	.globl	__emx_end_owning_the_stack	/* also butterfly.S's first wait */
__emx_end_owning_the_stack:
	/* Are we on the shared thread stack, i.e. top - size < sp <= top? */
	csrr	t0, CSR_THREAD_STACK
	lw	t1, STACK_SIZE(t0)
	sub	t2, t0, sp
	bltu	t2, t1, 1f
	END				/* no: this stack is already ours */
1:	/* Yes: it is ours now. New threads get a stack from the pool, or a new one. */
	LOAD_GLOBAL(t1, __emx_stack_pool)
	beqz	t1, 2f
	lw	t2, STACK_NEXT(t1)
	STORE_GLOBAL(t2, __emx_stack_pool, t3)
	csrw	CSR_THREAD_STACK, t1
	END
2:	call	__emx_stack_new		/* C, below our sp: the frames above stay intact */
	csrw	CSR_THREAD_STACK, a0
	END
	.size	__emx_wait, . - __emx_wait

/* Every slot of a context's template starts here: tp = the context, a0, a1 = the
 * packet's data words, a2 = its address word (the continuation). */
	.globl	__emx_resume
	.type	__emx_resume, @function
	.p2align 2
__emx_resume:
	lw	t0, CTX_SP(tp)
	beqz	t0, 1f			/* nobody waits yet: keep the reply */
	lw	ra, CTX_RA(tp)
	mv	sp, t0
	lw	s0, CTX_S0(tp)
	/* The context goes back to the free list: link in the ra word, "not waiting". */
	LOAD_GLOBAL(t1, __emx_ctx_pool)
	sw	zero, CTX_SP(tp)
	sw	t1, CTX_RA(tp)
	STORE_GLOBAL(tp, __emx_ctx_pool, t2)
	lw	tp, CTX_TP(tp)
	ret
1:	sw	a0, CTX_RA(tp)
	sw	a1, CTX_TP(tp)
	sw	a2, CTX_S0(tp)
	li	t0, 1
	sw	t0, CTX_SP(tp)
	END
	.size	__emx_resume, . - __emx_resume

/* The lean pair (emx/threads.h, __emx_suspend_frame): a0 = the wait's own frame. */
	.globl	__emx_wait_frame
	.type	__emx_wait_frame, @function
	.p2align 2
__emx_wait_frame:
	sw	sp, CTX_SP(a0)
	sw	ra, CTX_RA(a0)
	sw	tp, CTX_TP(a0)
	sw	s0, CTX_S0(a0)
	j	__emx_end_owning_the_stack
	.size	__emx_wait_frame, . - __emx_wait_frame

/* The frame's template starts here: tp = the frame, a0 = the reply. */
	.globl	__emx_resume_frame
	.type	__emx_resume_frame, @function
	.p2align 2
__emx_resume_frame:
	lw	sp, CTX_SP(tp)
	lw	ra, CTX_RA(tp)
	lw	s0, CTX_S0(tp)
	lw	tp, CTX_TP(tp)
	ret
	.size	__emx_resume_frame, . - __emx_resume_frame

/* __emx_resume_direct(ctx, a0, a1, cont): a running thread becomes the resumed
 * computation (a handler that has the reply in hand saves a packet round trip). */
	.globl	__emx_resume_direct
	.type	__emx_resume_direct, @function
	.p2align 2
__emx_resume_direct:
	mv	tp, a0
	mv	a0, a1
	mv	a1, a2
	mv	a2, a3
	j	__emx_resume
	.size	__emx_resume_direct, . - __emx_resume_direct

/* A thread written as a C function returns here (the hardware's ra at a thread start).
 * This definition replaces crt0's plain `end` in programs that use suspension. sp is
 * back at the top of the stack the computation started on: if that is not the shared
 * stack any more, the computation had made it its own by blocking, and it is free now.
 * Kept with crt0 in .text.start: the simulator finds it by name, nothing calls it. */
	.section .text.start, "ax", @progbits
	.globl	__emx_thread_end
	.type	__emx_thread_end, @function
	.p2align 2
__emx_thread_end:
	csrr	t0, CSR_THREAD_STACK
	bne	sp, t0, 1f
	END
1:	LOAD_GLOBAL(t1, __emx_stack_pool)
	sw	t1, STACK_NEXT(sp)
	STORE_GLOBAL(sp, __emx_stack_pool, t2)
	END
	.size	__emx_thread_end, . - __emx_thread_end

/* For traces: the simulator names a resumed computation by the code it returns into, the
 * address saved at this offset in the context (tp) that __emx_resume starts with. */
	.globl	__emx_ctx_ra_offset
	.set	__emx_ctx_ra_offset, CTX_RA
