/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unwind table of a file: its call frame information (.eh_frame,
 * and .debug_frame where that is all a function has), reduced to the
 * rules a walker in BPF can apply without interpreting DWARF.  Each row says from which address on a rule holds, until the
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

#include "memsup.h"

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct unwind_row {
	uint64_t pc;		/* in the file's addresses, as its symbols */
	uint32_t rule;		/* in the table's rules */
};

struct unwind_table {
	struct unwind_row *rows;
	size_t nrows, rows_cap;
	struct ms_unwind_rule *rules;	/* each different from the others */
	size_t nrules, rules_cap;
};

/*
 * Builds the table of the file from its .eh_frame, found through its
 * .eh_frame_hdr search table or read entry by entry, and from the
 * .debug_frame of debug (the file itself or its separate debug file;
 * NULL for none) for the code .eh_frame does not describe.  Returns 0,
 * -ENOENT when neither describes any code, or -EINVAL when .eh_frame
 * cannot be read.
 */
int unwind_table_build(Elf *elf, Elf *debug, struct unwind_table *t);
/*
 * A rule as a key, not 0, for a u64map: rules whose keys are equal are.
 * An rbp_offset takes 23 bits: the builder marks a rule with more.
 */
uint64_t unwind_rule_key(const struct ms_unwind_rule *r);
/* The rule for pc, or NULL before the first row. */
const struct ms_unwind_rule *unwind_table_find(const struct unwind_table *t, uint64_t pc);
void unwind_table_free(struct unwind_table *t);
/* The code an FDE covers: [start, end). */
struct unwind_fde {
	uint64_t start, end;
};

/*
 * Every FDE of elf's .eh_frame, sorted by start, read entry by entry into
 * *fdes (the caller frees it).  Returns the count; 0 when there is none
 * or one cannot be read.
 */
size_t unwind_fdes_read(Elf *elf, struct unwind_fde **fdes);
/* The rule of elf's .eh_frame at pc, as a table would hold it; MS_CFA_NONE where none is. */
struct ms_unwind_rule unwind_rule_at(Elf *elf, uint64_t pc);

#endif
