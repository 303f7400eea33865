/* Macros of the hand-written MPI paths (arrivals.S, send_miss.S): packets, addresses, the
 * keyed queues' hash and lookup (keyqueue.c's kq_hash and kq_find). Offsets:
 * irecv_layout.h and arrivals_layout.h. */
#ifndef EMX_MPI_ASM_H
#define EMX_MPI_ASM_H

#define SEND(type, addr, data) .insn r 0x0b, 0, type, x0, addr, data
#define LA(rd, sym) lui rd, %hi(sym); addi rd, rd, %lo(sym)
#define LW_G(rd, sym) lui rd, %hi(sym); lw rd, %lo(sym)(rd)

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

#endif
