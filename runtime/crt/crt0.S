/* Program entry on a PE. The loader has already set sp (the stack top, below the
 * program arguments), a0 = argc, a1 = argv and zeroed .bss, so all that is left is
 * the global pointer (for gp-relative small data) and the calls. */
	.section .text.start, "ax", @progbits
	.globl _start
	.type _start, @function
_start:
	/* norelax: the linker must not turn this into an access relative to gp itself. */
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	call	main
	/* a0 = main's return value: report it and end the thread; emx_exit never returns. */
	tail	emx_exit
	.size _start, . - _start
