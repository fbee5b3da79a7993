/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks walked from unwind tables (src/record/unwind-table.h), for code
 * without frame pointers.  At the return of the outermost call the
 * registers are the caller's; each step finds the mapping that holds the
 * address, the row that covers it and applies its rule: the CFA from
 * rsp or rbp, the return address just below the CFA, the caller's rbp
 * where the rule says.  Every address on the stack is a return address,
 * so the one looked up is the byte before it, inside the call.  A step
 * that finds no table, no row or a marked rule ends the walk incomplete,
 * for auto's fallback to copy the stack; the outermost frame's rule, or
 * the depth, ends it complete.
 */
#ifndef MEMSUP_UNWIND_WALK_BPF_H
#define MEMSUP_UNWIND_WALK_BPF_H

#include <bpf/bpf_helpers.h>
#include "memsup.h"

/*
 * The maps of the tables, memsup.bpf.c's, filled by the supervisor: the
 * bpf_loop callbacks below reach them only through their context.
 */
struct unwind_maps {
	void *spaces;		/* by tgid: the mappings with a table */
	void *pages;		/* every table's pages */
	void *rows;		/* and rows, two to an element */
	void *rules;
};

struct unwind_walk {
	struct unwind_maps maps;
	__u64 pc, sp, bp;
	__u64 *frames;
	struct ms_unwind_space *space;
	__u32 depth;		/* frames to walk, at most MS_STACK_MAX */
	__u32 n;
	bool complete;
};

/*
 * The searches are bpf_loop callbacks too, and their bounds live in the
 * context: the verifier then checks one step, not every path through a
 * loop of steps.
 */
struct unwind_search {
	void *rows;		/* for the search of rows */
	struct ms_unwind_space *space;
	__u64 key;
	__u32 lo, hi;
};

/* The last mapping of the space that starts at or below key. */
static long
mapping_step(__u32 i, void *ctx)
{
	struct unwind_search *s = ctx;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	if (s->space->m[mid & (MS_UNWIND_MAPPINGS - 1)].start <= s->key)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

static __always_inline struct ms_unwind_row *
unwind_row(void *rows, __u32 i)
{
	__u32 pair = i / 2;
	struct ms_unwind_row_pair *p = bpf_map_lookup_elem(rows, &pair);

	return p ? &p->row[i & 1] : NULL;
}

/* The last row at or below key. */
static long
row_step(__u32 i, void *ctx)
{
	struct unwind_search *s = ctx;
	struct ms_unwind_row *row;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	row = unwind_row(s->rows, mid);
	if (!row) {
		s->lo = s->hi = 0;	/* no row: the walk stops */
		return 1;
	}
	if (row->pc <= s->key)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* The mapping of the space that holds at, or NULL. */
static __always_inline struct ms_unwind_mapping *
unwind_mapping(struct ms_unwind_space *space, __u64 at)
{
	struct unwind_search s = { .space = space, .key = at, .hi = space->n };
	struct ms_unwind_mapping *m;

	if (s.hi > MS_UNWIND_MAPPINGS)
		return NULL;
	bpf_loop(8, mapping_step, &s, 0);
	if (!s.lo || s.lo != s.hi)
		return NULL;
	m = &space->m[(s.lo - 1) & (MS_UNWIND_MAPPINGS - 1)];
	return at < m->end ? m : NULL;
}

/* The rule of the mapping's file at offset rel from its lowest address. */
static __always_inline struct ms_unwind_rule *
unwind_rule(const struct unwind_maps *maps, const struct ms_unwind_mapping *m, __u32 rel)
{
	__u32 at = rel >> MS_UNWIND_PAGE_SHIFT;
	struct ms_unwind_page *page;
	struct unwind_search s = {
		.rows = maps->rows, .key = rel & ((1u << MS_UNWIND_PAGE_SHIFT) - 1),
	};
	struct ms_unwind_row *row;
	__u32 rule;

	if (at >= m->npages)
		return NULL;
	at += m->first_page;
	page = bpf_map_lookup_elem(maps->pages, &at);
	if (!page)
		return NULL;
	s.lo = page->first_row;
	s.hi = page->first_row + page->nrows;
	/* A page holds at most one row an address: 17 steps search it. */
	bpf_loop(MS_UNWIND_PAGE_SHIFT + 1, row_step, &s, 0);
	if (s.lo == page->first_row || s.lo != s.hi)
		return NULL;
	row = unwind_row(maps->rows, s.lo - 1);
	if (!row)
		return NULL;
	rule = row->rule;
	return bpf_map_lookup_elem(maps->rules, &rule);
}

static long
unwind_step(__u32 i, void *ctx)
{
	struct unwind_walk *w = ctx;
	struct ms_unwind_mapping *m;
	struct ms_unwind_rule *r;
	__u64 cfa, at;

	/* The frame is the loop's index: the verifier then needs no other bound. */
	if (i >= w->depth || i >= MS_STACK_MAX) {
		w->complete = true;
		return 1;
	}
	w->frames[i] = w->pc;
	w->n = i + 1;
	at = w->pc - 1;
	m = unwind_mapping(w->space, at);
	if (!m || at - m->base > 0xffffffffULL)
		return 1;
	r = unwind_rule(&w->maps, m, (__u32)(at - m->base));
	if (!r)
		return 1;
	switch (r->cfa) {
	case MS_CFA_RSP:
		cfa = w->sp + r->cfa_offset;
		break;
	case MS_CFA_RBP:
		cfa = w->bp + r->cfa_offset;
		break;
	case MS_CFA_PLT:
		/* The entry's own address, not the byte before: no call returns here. */
		cfa = w->sp + 8 + ((w->pc & 15) >= r->plt_limit ? 8 : 0);
		break;
	case MS_CFA_OUTERMOST:
		w->complete = true;
		return 1;
	default:
		return 1;
	}
	/* Frames lie above each other: anything else is not a frame. */
	if (cfa <= w->sp ||
	    (r->rbp == MS_RBP_SAVED &&
	     bpf_probe_read_user(&w->bp, sizeof(w->bp), (void *)(cfa + r->rbp_offset))) ||
	    bpf_probe_read_user(&w->pc, sizeof(w->pc), (void *)(cfa - 8)) || !w->pc)
		return 1;
	w->sp = cfa;
	return 0;
}

/*
 * Walks from the caller's registers into frames, depth of them at most;
 * returns the frames taken, and whether the walk reached the outermost
 * frame or the depth.
 */
static __always_inline __u32
walk_unwind_tables(const struct unwind_maps *maps, const struct ms_user_regs *r,
		   __u32 tgid, __u32 depth, __u64 *frames, bool *complete)
{
	struct unwind_walk w = {
		.maps = *maps, .pc = r->ip, .sp = r->sp, .bp = r->bp,
		.frames = frames, .depth = depth,
	};

	*complete = false;
	w.space = bpf_map_lookup_elem(maps->spaces, &tgid);
	if (!w.space)
		return 0;
	bpf_loop(MS_STACK_MAX + 1, unwind_step, &w, 0);
	*complete = w.complete;
	return w.n;
}

#endif
