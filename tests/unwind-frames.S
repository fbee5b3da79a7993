/*
 * Functions whose only use is their call frame information, for
 * tests/unit-unwind-table (each gives the table builder one kind of rule)
 * and tests/unit-unwinder (stacks through two of them).  None is ever
 * called.
 */
	.text

/* push %rbp; mov %rsp,%rbp: the frame pointer's prologue and epilogue. */
	.globl frames_fp
	.type frames_fp, @function
frames_fp:
	.cfi_startproc
	push %rbp			/* +0 */
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov %rsp, %rbp			/* +1 */
	.cfi_def_cfa_register %rbp
	nop				/* +4 */
	pop %rbp
	.cfi_restore %rbp
	.cfi_def_cfa %rsp, 8
	ret				/* +6 */
	.cfi_endproc
	.size frames_fp, .-frames_fp

/* No frame pointer: the CFA moves with sub and add. */
	.globl frames_sub
	.type frames_sub, @function
frames_sub:
	.cfi_startproc
	sub $40, %rsp			/* +0 */
	.cfi_adjust_cfa_offset 40
	nop				/* +4 */
	add $40, %rsp
	.cfi_adjust_cfa_offset -40
	ret				/* +9 */
	.cfi_endproc
	.size frames_sub, .-frames_sub

/* A frame larger than 32 KiB: the offset does not fit 16 bits. */
	.globl frames_big
	.type frames_big, @function
frames_big:
	.cfi_startproc
	sub $0x12000, %rsp		/* +0 */
	.cfi_adjust_cfa_offset 0x12000
	nop				/* +7 */
	add $0x12000, %rsp
	.cfi_adjust_cfa_offset -0x12000
	ret
	.cfi_endproc
	.size frames_big, .-frames_big

/* A CFA only an expression gives (rsp + 8, dereferenced): marked. */
	.globl frames_expression
	.type frames_expression, @function
frames_expression:
	.cfi_startproc
	nop				/* +0 */
	/* DW_CFA_def_cfa_expression, 3 bytes: DW_OP_breg7 8, DW_OP_deref */
	.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06
	nop				/* +1 */
	ret
	.cfi_endproc
	.size frames_expression, .-frames_expression

/* The return address undefined: the outermost frame, as _start's. */
	.globl frames_outermost
	.type frames_outermost, @function
frames_outermost:
	.cfi_startproc
	.cfi_undefined %rip
	nop				/* +0 */
	ret
	.cfi_endproc
	.size frames_outermost, .-frames_outermost

/* A signal frame: marked, whatever its rule. */
	.globl frames_signal
	.type frames_signal, @function
frames_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop				/* +0 */
	ret
	.cfi_endproc
	.size frames_signal, .-frames_signal

/* Code no frame description covers, after one that ends early. */
	.globl frames_gap
	.type frames_gap, @function
frames_gap:
	.cfi_startproc
	nop				/* +0 */
	.cfi_endproc
	nop				/* +1: outside the description */
	ret
	.size frames_gap, .-frames_gap

	.section .note.GNU-stack, "", @progbits
