/* Program entry on a PE. The loader has already set sp (the stack top, below the
 * program arguments), a0 = argc, a1 = argv and zeroed .bss, so all that is left is
 * the global pointer (for gp-relative small data), the thread pointer and the calls. */
	.section .text.start, "ax", @progbits
	.globl _start
	.type _start, @function
_start:
	/* norelax: the linker must not turn this into an access relative to gp itself. */
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	/* tp: the C library's thread-local block (errno, ...), the PE's only one (emx.ld;
	 * docs/runtime.md, "The C library and threads"). */
	addi	tp, gp, -2048		/* emx.ld: gp = __tls_base + 2 KiB */
	/* Programs that use the EM-C-like layer (suspension: runtime/src/context.c) set it up
	 * first; for the others the weak reference is 0 and nothing happens. */
	.weak	__emx_rt_init
	lla	t0, __emx_rt_init
	beqz	t0, 1f
	mv	s0, a0			/* argc, argv for main */
	mv	s1, a1
	jalr	t0
	mv	a0, s0
	mv	a1, s1
1:	call	main
	/* a0 = main's return value: exit runs the atexit functions, then _exit (emx_exit)
	 * reports the code and ends the thread; it never returns. */
	tail	exit
	.size _start, . - _start

/* Entry points the hardware uses (the simulator finds them by name in the ELF). They sit
 * in .text.start with _start so --gc-sections keeps them.
 *
 * A thread starts with ra = __emx_thread_end, so a thread written as a C function ends
 * when it returns. Weak: the EM-C-like layer replaces it with one that also gives a
 * finished computation's stack back (runtime/src/context.S). */
	.weak	__emx_thread_end
	.type	__emx_thread_end, @function
__emx_thread_end:
	.insn	i 0x0b, 1, x0, x0, 0		/* end */
	.size	__emx_thread_end, . - __emx_thread_end

/* Thread-invoked remote write (EM-X' and EM-4, where SYSWR is not served by the memory
 * unit, and packet type twr): a0 = data, a2 = global address of the word. */
	.globl	__emx_handler_twrite
	.type	__emx_handler_twrite, @function
__emx_handler_twrite:
	slli	t0, a2, 10			/* drop the PE field ... */
	srli	t0, t0, 8			/* ... and turn the word address into bytes */
	sw	a0, 0(t0)
	.insn	i 0x0b, 1, x0, x0, 0		/* end */
	.size	__emx_handler_twrite, . - __emx_handler_twrite

/* Thread-invoked remote read: a0 = continuation, a2 = global address of the word; the
 * value goes back to the continuation as a 1-input invocation. */
	.globl	__emx_handler_tread
	.type	__emx_handler_tread, @function
__emx_handler_tread:
	slli	t0, a2, 10
	srli	t0, t0, 8
	lw	t1, 0(t0)
	.insn	r 0x0b, 0, 0, x0, a0, t1	/* send.inv1 t1, a0 */
	.insn	i 0x0b, 1, x0, x0, 0		/* end */
	.size	__emx_handler_tread, . - __emx_handler_tread
