/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unwind table of a file: its call frame information (.eh_frame),
 * reduced to the rules a walker in BPF can apply without interpreting
 * DWARF.  Each row says from which address on a rule holds, until the
 * next row; rows are sorted, and a row that repeats the rule before it
 * is dropped.  A rule gives the canonical frame address (CFA) from rsp
 * or rbp, takes the return address from CFA - 8, and says where the
 * caller's rbp is.  What a rule cannot express (another DWARF expression,
 * a signal frame, a return address elsewhere, rbp kept in a register) is
 * marked, for the walker to stop there and leave the stack to the
 * fallback.  x86-64 only, as memsup is.
 */
#ifndef MEMSUP_UNWIND_TABLE_H
#define MEMSUP_UNWIND_TABLE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

enum unwind_cfa {
	UNWIND_CFA_NONE,	/* no frame description covers it */
	UNWIND_CFA_RSP,		/* CFA = rsp + cfa_offset */
	UNWIND_CFA_RBP,		/* CFA = rbp + cfa_offset */
	/* A PLT entry: CFA = rsp + 8, and 8 more once rip & 15 >= plt_limit
	 * (the entry's push has run). */
	UNWIND_CFA_PLT,
	UNWIND_CFA_OUTERMOST,	/* no return address: the stack's first frame */
	UNWIND_CFA_MARKED,	/* a rule the walker does not apply */
};

enum unwind_rbp {
	UNWIND_RBP_SAME,	/* the caller's rbp is the callee's */
	UNWIND_RBP_SAVED,	/* the caller's rbp is at CFA + rbp_offset */
};

struct unwind_rule {
	uint8_t cfa;		/* enum unwind_cfa */
	uint8_t rbp;		/* enum unwind_rbp */
	uint8_t plt_limit;
	int32_t cfa_offset;
	int32_t rbp_offset;
};

struct unwind_row {
	uint64_t pc;		/* in the file's addresses, as its symbols */
	uint32_t rule;		/* in the table's rules */
};

struct unwind_table {
	struct unwind_row *rows;
	size_t nrows, rows_cap;
	struct unwind_rule *rules;	/* each different from the others */
	size_t nrules, rules_cap;
};

/*
 * Builds the table of the file from its .eh_frame, found through its
 * .eh_frame_hdr search table.  Returns 0, -ENOENT when the file has
 * neither, or -EINVAL when its frame descriptions cannot be read.
 */
int unwind_table_build(Elf *elf, struct unwind_table *t);
/* The rule for pc, or NULL before the first row. */
const struct unwind_rule *unwind_table_find(const struct unwind_table *t, uint64_t pc);
void unwind_table_free(struct unwind_table *t);

#endif
