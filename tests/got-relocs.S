/*
 * GOT slots as tests/unit-got-names reads them: an object never linked,
 * whose relocations name its slots as a linked file's dynamic ones would
 * (an IRELATIVE by its resolver's address, in the addend).  The
 * comments give each slot's offset in .data, its address in the object.
 */
	.text
	nop; nop; nop; nop
	.type chosen_memset, @gnu_indirect_function
chosen_memset:				/* +4 */
	ret

	.data
	.quad 0		/* no slot is at address 0 */
slots:
	.quad 0		/* 8: malloc's */
	.quad 0		/* 16: free's and puts': named by neither */
	.quad 0		/* 24: bound here, to chosen_memset */
	.quad 0		/* 32: bound here, to no indirect function */
	.quad 0		/* 40: named by no relocation */
	.quad malloc	/* 48: a pointer, not a slot (R_X86_64_64) */
	.quad 0		/* 56: bound here and to memset: named by neither */
	.reloc slots+0, R_X86_64_JUMP_SLOT, malloc
	.reloc slots+8, R_X86_64_GLOB_DAT, free
	.reloc slots+8, R_X86_64_JUMP_SLOT, puts
	.reloc slots+16, R_X86_64_IRELATIVE, 4
	.reloc slots+24, R_X86_64_IRELATIVE, 2
	.reloc slots+48, R_X86_64_IRELATIVE, 4
	.reloc slots+48, R_X86_64_JUMP_SLOT, memset
	.section .note.GNU-stack, "", @progbits
