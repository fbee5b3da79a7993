// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "unwind-table.h"
#include "eh-frame-index.h"
#include "elf-functions.h"
#include "error.h"
#include "sorted.h"
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

/* DW_EH_PE_*: how .eh_frame encodes a pointer. */
enum {
	PE_FORMAT = 0x0f, PE_SIGNED = 0x08, PE_APPLICATION = 0x70,
	PE_ABSOLUTE = 0x00, PE_PCREL = 0x10, PE_INDIRECT = 0x80,
};

/* The bytes of a pointer of the encoding; 0 for one of variable size. */
static size_t
encoded_size(unsigned int encoding)
{
	switch (encoding & PE_FORMAT & ~PE_SIGNED) {
	case 0x0:
		return encoding & PE_SIGNED ? 0 : 8;	/* absptr; 0x8 is sleb128 */
	case 0x2:
		return 2;
	case 0x3:
		return 4;
	case 0x4:
		return 8;
	default:
		return 0;
	}
}

/* The encoding of the FDEs of a CIE, from its 'R' augmentation; -1 if unknown. */
static int
fde_encoding(const Dwarf_CIE *cie)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	const char *a = cie->augmentation;
	size_t size;

	if (a[0] != 'z')
		return a[0] ? -1 : PE_ABSOLUTE;
	for (a++; *a; a++) {
		if (*a == 'S' || *a == 'B')
			continue;
		if (!p || p >= end)
			return -1;
		if (*a == 'R')
			return *p;
		if (*a == 'L') {
			p++;
		} else if (*a == 'P' && (size = encoded_size(*p))) {
			p += 1 + size;
		} else {
			return -1;
		}
	}
	return PE_ABSOLUTE;
}

/*
 * Decodes an FDE's initial location, at vaddr in the file's image, and
 * the length of code it covers, which follows in the same format.
 */
static bool
decode_range(int encoding, const uint8_t *p, const uint8_t *end, uint64_t vaddr,
	     struct unwind_fde *fde)
{
	size_t size = encoded_size((unsigned int)encoding), i;
	uint64_t v = 0, length = 0;

	if (!size || 2 * size > (size_t)(end - p) || encoding & PE_INDIRECT)
		return false;
	for (i = 0; i < size; i++) {
		v |= (uint64_t)p[i] << (8 * i);
		length |= (uint64_t)p[size + i] << (8 * i);
	}
	if (encoding & PE_SIGNED && size < 8 && v >> (8 * size - 1))
		v |= ~UINT64_C(0) << (8 * size);
	switch (encoding & PE_APPLICATION) {
	case PE_ABSOLUTE:
		fde->start = v;
		break;
	case PE_PCREL:
		fde->start = vaddr + v;
		break;
	default:
		return false;
	}
	fde->end = fde->start + length;
	return true;
}

/* A section of frame descriptions: its data and address. */
static Elf_Data *
frame_section(Elf *elf, const char *name, uint64_t *vaddr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(elf, name, &sh);

	if (!scn || sh.sh_type != SHT_PROGBITS)
		return NULL;
	*vaddr = sh.sh_addr;
	return elf_getdata(scn, NULL);
}

static int
by_start(const void *a, const void *b)
{
	uint64_t x = ((const struct unwind_fde *)a)->start, y = ((const struct unwind_fde *)b)->start;

	return (x > y) - (x < y);
}

/*
 * The code every FDE covers, sorted, found by reading the section entry
 * by entry: .eh_frame in a static program, which has no .eh_frame_hdr
 * (the C library registers its frames at start instead), or
 * .debug_frame.  Returns the count; 0 when an FDE cannot be read, as the
 * builder then takes none.
 */
static size_t
scan_descriptions(Elf *elf, bool eh, struct unwind_fde **fdes)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct u64map encodings;	/* CIE offset + 1 -> encoding + 1 */
	size_t n = 0, cap = 0;
	Dwarf_Off offset = 0, next;
	Dwarf_CFI_Entry entry, cie;
	uint64_t vaddr;
	Elf_Data *data = frame_section(elf, eh ? ".eh_frame" : ".debug_frame", &vaddr);

	*fdes = NULL;
	if (!data || !ident)
		return 0;
	u64map_init(&encodings);
	while (dwarf_next_cfi(ident, data, eh, offset, &next, &entry) == 0) {
		struct u64map_slot *slot;
		struct unwind_fde fde;
		int encoding;

		offset = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		slot = u64map_find(&encodings, entry.fde.CIE_pointer + 1);
		if (slot) {
			encoding = (int)slot->value - 1;
		} else {
			encoding = dwarf_next_cfi(ident, data, eh, entry.fde.CIE_pointer,
						  &next, &cie) == 0 && dwarf_cfi_cie_p(&cie) ?
				   fde_encoding(&cie.cie) : -1;
			u64map_put(&encodings, entry.fde.CIE_pointer + 1, (uint64_t)(encoding + 1));
		}
		if (encoding < 0 ||
		    !decode_range(encoding, entry.fde.start, entry.fde.end,
				  vaddr + (uint64_t)(entry.fde.start - (const uint8_t *)data->d_buf),
				  &fde)) {
			n = 0;
			break;
		}
		*fdes = xgrow(*fdes, &cap, n + 1, sizeof(**fdes));
		(*fdes)[n++] = fde;
	}
	u64map_free(&encodings);
	if (n)
		qsort(*fdes, n, sizeof(**fdes), by_start);
	return n;
}

size_t
unwind_fdes_read(Elf *elf, struct unwind_fde **fdes)
{
	return scan_descriptions(elf, true, fdes);
}

/* Where the FDEs of a section read entry by entry start, sorted. */
static size_t
scanned_starts(Elf *elf, bool eh, uint64_t **starts)
{
	struct unwind_fde *fdes;
	size_t n = scan_descriptions(elf, eh, &fdes), i;

	*starts = n ? xreallocarray(NULL, n, sizeof(**starts)) : NULL;
	for (i = 0; i < n; i++)
		(*starts)[i] = fdes[i].start;
	free(fdes);
	return n;
}

/* Where the FDEs start, sorted: from .eh_frame_hdr, or from .eh_frame. */
static size_t
description_starts(Elf *elf, uint64_t **starts)
{
	struct eh_frame_index index;
	size_t i;

	if (!eh_frame_index_read(elf, &index))
		return scanned_starts(elf, true, starts);
	*starts = xreallocarray(NULL, index.count ? index.count : 1, sizeof(**starts));
	for (i = 0; i < index.count; i++)
		(*starts)[i] = eh_frame_index_start(&index, i);
	return index.count;
}

/* The .debug_frame of debug, if it describes any code: its FDEs' starts and CFI. */
static size_t
debug_frame(Elf *debug, uint64_t **starts, Dwarf **dwarf, Dwarf_CFI **cfi)
{
	size_t n = debug ? scanned_starts(debug, false, starts) : 0;

	*dwarf = n ? dwarf_begin_elf(debug, DWARF_C_READ, NULL) : NULL;
	*cfi = *dwarf ? dwarf_getcfi(*dwarf) : NULL;
	if (*cfi)
		return n;
	if (*dwarf)
		dwarf_end(*dwarf);
	*dwarf = NULL;
	return 0;
}

int
unwind_table_build(Elf *elf, Elf *debug, struct unwind_table *t)
{
	struct builder b = { .t = t };
	uint64_t *eh, *dbg = NULL;
	size_t n_eh, n_dbg, i = 0, j = 0;
	Dwarf_CFI *eh_cfi = NULL, *dbg_cfi;
	Dwarf *dwarf;

	memset(t, 0, sizeof(*t));
	n_eh = description_starts(elf, &eh);
	if (n_eh && !(eh_cfi = dwarf_getcfi_elf(elf))) {
		free(eh);
		return -EINVAL;
	}
	n_dbg = debug_frame(debug, &dbg, &dwarf, &dbg_cfi);
	u64map_init(&b.rules);
	/* Both in address order; where both describe an address, .eh_frame does. */
	while (i < n_eh || j < n_dbg) {
		bool from_eh = j == n_dbg || (i < n_eh && eh[i] <= dbg[j]);
		uint64_t start = from_eh ? eh[i] : dbg[j], limit;

		if (from_eh)
			i++;
		for (j += !from_eh; j < n_dbg && dbg[j] <= start; j++)
			;
		limit = i < n_eh ? eh[i] : UINT64_MAX;
		if (j < n_dbg && dbg[j] < limit)
			limit = dbg[j];
		add_description(&b, from_eh ? eh_cfi : dbg_cfi, start, limit);
	}
	u64map_free(&b.rules);
	if (eh_cfi)
		dwarf_cfi_end(eh_cfi);
	if (dwarf)
		dwarf_end(dwarf);
	free(eh);
	free(dbg);
	return n_eh || n_dbg ? 0 : -ENOENT;
}

struct ms_unwind_rule
unwind_rule_at(Elf *elf, uint64_t pc)
{
	struct ms_unwind_rule r = { .cfa = MS_CFA_NONE };
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	Dwarf_Frame *frame;
	bool signal;
	int ra_column;

	if (!cfi)
		return r;
	if (!dwarf_cfi_addrframe(cfi, pc, &frame)) {
		ra_column = dwarf_frame_info(frame, NULL, NULL, &signal);
		r = rule_of(frame, ra_column, signal);
		free(frame);
	}
	dwarf_cfi_end(cfi);
	return r;
}

static uint64_t
row_pc(const void *rows, size_t i)
{
	return ((const struct unwind_row *)rows)[i].pc;
}

const struct ms_unwind_rule *
unwind_table_find(const struct unwind_table *t, uint64_t pc)
{
	/* The last row at or below pc. */
	size_t end = sorted_first_above(t->rows, 0, t->nrows, row_pc, pc);

	return end ? &t->rules[t->rows[end - 1].rule] : NULL;
}

void
unwind_table_free(struct unwind_table *t)
{
	free(t->rows);
	free(t->rules);
	memset(t, 0, sizeof(*t));
}
