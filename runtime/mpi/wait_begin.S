/* MPI_Wait's start by hand (mpi_wait_begin, mpi.h compiles the suspension into the
 * caller), as the original had MPI_Wait in assembly: its blocking case -- a valid
 * handle, a plain request (wait.c) not complete yet, its `done` element empty, a context
 * at hand -- marks the request read, sends the I-structure read of `done` to the context's
 * continuation and returns the context to suspend on; and a plain send complete
 * already (after a one-sided send) with no status asked for is finished. Everything
 * else (the value is there, a receive complete, a request not plain, a bad handle):
 * mpi_wait_begin_general (wait.c), before any change. Offsets: irecv_layout.h, arrivals_layout.h (checked in
 * wait.c). */
#include "irecv_layout.h"
#include "arrivals_layout.h"
#include "mpi_asm.h"

	.section .sdata, "aw"
	.p2align 2
wait_plain:	/* the flags a plain request not complete may not have but RF_ACTIVE */
	.word	L_WAIT_PLAIN

	.text
	.globl	mpi_wait_begin
	.type	mpi_wait_begin, @function
	.p2align 2
mpi_wait_begin:
	lw	a4, 0(a0)			/* a4: the handle */
	LW_G(a3, mpi_req_span)			/* in [0x1000, 0x1000 + span) */
	lui	a5, 0xfffff
	add	a5, a4, a5
	bgeu	a5, a3, .Lgeneral
	andi	a5, a4, -8			/* a5: the request, */
	lw	a3, L_REQ_HANDLE(a5)		/* which the handle names */
	bne	a3, a4, .Lgeneral
	lhu	a3, L_REQ_FLAGS(a5)		/* a3: its flags: plain, not complete */
	xori	a2, a3, L_RF_ACTIVE
	LW_G(a4, wait_plain)
	and	a2, a2, a4
	bnez	a2, .Lcomplete
	.insn r 0x0b, 2, 0, a2, a5, x0		/* rtag of `done` */
	andi	a2, a2, 1			/* the value is there: the general way takes it */
	bnez	a2, .Lgeneral
	LW_G(a4, __emx_ctx_pool)		/* a4: a context (__emx_ctx_get) */
	beqz	a4, .Lgeneral
	lw	a2, L_CTX_NEXT(a4)
	lui	t0, %hi(__emx_ctx_pool)
	sw	a2, %lo(__emx_ctx_pool)(t0)
	ori	a3, a3, L_RF_READER		/* (plain: not armed) */
	sh	a3, L_REQ_FLAGS(a5)
	LW_G(a2, mpi_me_gaddr)
	srli	a5, a5, 2
	or	a2, a2, a5			/* `done`'s global address */
	lw	a1, L_CTX_CONT(a4)
	SEND(7, a2, a1)				/* ird */
	mv	a0, a4
	ret
.Lcomplete:	/* A plain send complete already (a one-sided send's), no status asked for:
	 * finish_plain -- the cell goes back unless a protocol reference holds it. */
	li	a4, L_RF_COMPLETE
	bne	a2, a4, .Lgeneral
	bnez	a1, .Lgeneral
	lhu	a2, L_REQ_KIND(a5)
	li	a4, L_REQ_RECV
	beq	a2, a4, .Lgeneral		/* (a receive's way makes progress: C) */
	ori	a3, a3, L_RF_COMPLETE | L_RF_USER_FREED
	sh	a3, L_REQ_FLAGS(a5)
	lhu	a2, L_REQ_REFS(a5)
	bnez	a2, 1f
	LA(a4, mpi_request_pool)		/* pool_put */
	lw	a2, 0(a4)
	sw	a2, 0(a5)
	sw	a5, 0(a4)
1:	sw	zero, 0(a0)			/* MPI_REQUEST_NULL */
	li	a0, 0
	ret
.Lgeneral:
	tail	mpi_wait_begin_general
	.size	mpi_wait_begin, . - mpi_wait_begin
