// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "unwind-table.h"
#include "eh-frame-index.h"
#include "error.h"
#include "u64map.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* DWARF's numbers for the x86-64 registers the rules use. */
enum { DWARF_RBP = 6, DWARF_RSP = 7, DWARF_RIP = 16 };

/* What the return address is, from its rule. */
enum return_address { RA_AT_CFA_MINUS_8, RA_UNDEFINED, RA_ELSEWHERE };

static enum return_address
return_address(Dwarf_Frame *frame, int column)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(frame, column, mem, &ops, &n))
		return RA_ELSEWHERE;
	if (!n)
		return ops ? RA_UNDEFINED : RA_ELSEWHERE;
	return n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	       ops[1].atom == DW_OP_plus_uconst && (int64_t)ops[1].number == -8 ?
	       RA_AT_CFA_MINUS_8 : RA_ELSEWHERE;
}

/* The caller's rbp: unchanged, or saved at an offset from the CFA. */
static bool
rbp_rule(Dwarf_Frame *frame, struct ms_unwind_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(frame, DWARF_RBP, mem, &ops, &n))
		return false;
	if (!n) {
		r->rbp = MS_RBP_SAME;
		return !ops;		/* "undefined" cannot be followed */
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1) {
		r->rbp = MS_RBP_SAVED;
		return true;
	}
	if (n != 2 || ops[1].atom != DW_OP_plus_uconst ||
	    (int64_t)ops[1].number != (int32_t)ops[1].number)
		return false;
	r->rbp = MS_RBP_SAVED;
	r->rbp_offset = (int32_t)ops[1].number;
	return true;
}

/*
 * The PLT's expression, as GNU ld writes it for 16-byte entries:
 * rsp + 8, and 8 more once (rip & 15) >= limit.
 */
static bool
plt_expression(const Dwarf_Op *ops, size_t n, uint8_t *limit)
{
	static const uint8_t atoms[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (n != sizeof(atoms) || ops[0].number != 8 || ops[1].number != 0 ||
	    ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
		return false;
	for (i = 0; i < n; i++)
		if (atoms[i] && ops[i].atom != atoms[i])
			return false;
	*limit = (uint8_t)(ops[4].atom - DW_OP_lit0);
	return true;
}

static struct ms_unwind_rule
rule_of(Dwarf_Frame *frame, int ra_column, bool signal)
{
	struct ms_unwind_rule r = { .cfa = MS_CFA_MARKED };
	struct ms_unwind_rule marked = r;
	Dwarf_Op *ops;
	size_t n;

	if (signal || dwarf_frame_cfa(frame, &ops, &n))
		return marked;
	switch (return_address(frame, ra_column)) {
	case RA_UNDEFINED:
		r.cfa = MS_CFA_OUTERMOST;
		return r;
	case RA_ELSEWHERE:
		return marked;
	case RA_AT_CFA_MINUS_8:
		break;
	}
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == DWARF_RSP || ops[0].number == DWARF_RBP) &&
	    (int64_t)ops[0].number2 == (int32_t)ops[0].number2) {
		r.cfa = ops[0].number == DWARF_RSP ? MS_CFA_RSP : MS_CFA_RBP;
		r.cfa_offset = (int32_t)ops[0].number2;
	} else if (plt_expression(ops, n, &r.plt_limit)) {
		r.cfa = MS_CFA_PLT;
	} else {
		return marked;
	}
	return rbp_rule(frame, &r) ? r : marked;
}

uint64_t
unwind_rule_key(const struct ms_unwind_rule *r)
{
	return UINT64_C(1) << 63 | (uint64_t)r->cfa | (uint64_t)r->rbp << 3 |
	       (uint64_t)r->plt_limit << 4 | (uint64_t)(uint32_t)r->cfa_offset << 8 |
	       ((uint64_t)(uint32_t)r->rbp_offset & 0x7fffff) << 40;
}

struct builder {
	struct unwind_table *t;
	struct u64map rules;		/* unwind_rule_key -> index + 1 */
};

static void
add_row(struct builder *b, uint64_t pc, struct ms_unwind_rule r)
{
	struct unwind_table *t = b->t;
	struct u64map_slot *slot;
	uint32_t rule;

	/* rbp_offset beyond what the key holds: no compiler writes one. */
	if (r.rbp_offset < -(1 << 22) || r.rbp_offset >= 1 << 22)
		r = (struct ms_unwind_rule){ .cfa = MS_CFA_MARKED };
	slot = u64map_find(&b->rules, unwind_rule_key(&r));
	if (slot) {
		rule = (uint32_t)(slot->value - 1);
	} else {
		t->rules = xgrow(t->rules, &t->rules_cap, t->nrules + 1, sizeof(*t->rules));
		rule = (uint32_t)t->nrules;
		t->rules[t->nrules++] = r;
		u64map_put(&b->rules, unwind_rule_key(&r), rule + 1);
	}
	if (t->nrows && t->rows[t->nrows - 1].rule == rule)
		return;
	/* A description that overlaps the one before it replaces its end. */
	while (t->nrows && t->rows[t->nrows - 1].pc >= pc)
		t->nrows--;
	t->rows = xgrow(t->rows, &t->rows_cap, t->nrows + 1, sizeof(*t->rows));
	t->rows[t->nrows++] = (struct unwind_row){ .pc = pc, .rule = rule };
}

/*
 * Rows of one description: libdw interprets it from its start for each,
 * so a long one costs the square of its rows.  Compilers write at most a
 * few hundred (175 in libstdc++); past this, the rest is marked.
 */
#define DESCRIPTION_ROWS_MAX 1024

/*
 * The rows of the description that covers start, up to limit, where the
 * next one begins: libdw gives the rule at an address and the range it
 * holds for, so each row is one look-up.  Where the description ends
 * before limit, no rule holds until it.
 */
static void
add_description(struct builder *b, Dwarf_CFI *cfi, uint64_t start, uint64_t limit)
{
	static const struct ms_unwind_rule none = { .cfa = MS_CFA_NONE };
	static const struct ms_unwind_rule marked = { .cfa = MS_CFA_MARKED };
	uint64_t pc = start;
	unsigned int rows;

	for (rows = 0; pc < limit; rows++) {
		Dwarf_Frame *frame;
		Dwarf_Addr from, to;
		bool signal;
		int ra_column;

		if (rows == DESCRIPTION_ROWS_MAX) {
			add_row(b, pc, marked);
			return;
		}
		if (dwarf_cfi_addrframe(cfi, pc, &frame)) {
			add_row(b, pc, none);
			return;
		}
		ra_column = dwarf_frame_info(frame, &from, &to, &signal);
		add_row(b, pc, rule_of(frame, ra_column, signal));
		free(frame);
		if (ra_column < 0 || to <= pc)
			return;
		pc = to;
	}
}

int
unwind_table_build(Elf *elf, struct unwind_table *t)
{
	struct builder b = { .t = t };
	struct eh_frame_index index;
	Dwarf_CFI *cfi;
	uint64_t i;

	memset(t, 0, sizeof(*t));
	if (!eh_frame_index_read(elf, &index))
		return -ENOENT;
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi)
		return -EINVAL;
	u64map_init(&b.rules);
	for (i = 0; i < index.count; i++)
		add_description(&b, cfi, eh_frame_index_start(&index, i),
				i + 1 < index.count ? eh_frame_index_start(&index, i + 1)
						    : UINT64_MAX);
	u64map_free(&b.rules);
	dwarf_cfi_end(cfi);
	return 0;
}

const struct ms_unwind_rule *
unwind_table_find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows;

	/* The last row at or below pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rules[t->rows[lo - 1].rule] : NULL;
}

void
unwind_table_free(struct unwind_table *t)
{
	free(t->rows);
	free(t->rules);
	memset(t, 0, sizeof(*t));
}
