// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "free-nesting.h"
#include "allocator-functions.h"
#include "elf-functions.h"
#include "error.h"
#include "probe-sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBDW
#include "sorted.h"
#include "unwind-table.h"

/*
 * The C library's string functions read and write memory and call
 * nothing.  glibc's free clears memory with memset, and its error path
 * measures its message with strlen, through slots the file binds to its
 * own functions (IRELATIVE): the only ones through_slot takes them from.
 */
static const char *const string_functions[] = {
	"memset", "memcpy", "memmove", "mempcpy", "memcmp", "memchr",
	"strlen", "strnlen", "strchr", "strchrnul", "strcmp",
};

/*
 * The C library's functions that never return: a call nested in one is
 * made by a process about to die, and is recorded as an outermost call.
 */
static const char *const noreturn_functions[] = {
	"abort", "__assert_fail", "__assert_perror_fail", "__libc_fatal",
	"__stack_chk_fail", "__fortify_fail", "__chk_fail",
};

static bool
named_in(const char *name, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

#define NAMED_IN(name, names) named_in(name, names, sizeof(names) / sizeof(names[0]))

/*
 * Where a path starts, and whether (%rsp) was written just before: a jump
 * leaves the stack as it is, and so does a call once it returns, so a
 * retpoline may push, jump or call, then return.
 */
struct path {
	uint64_t vaddr;
	bool top_written;
};

struct walk {
	const struct nesting_file *file;
	const char *free_name;
	uint64_t entry, site;	/* the free's first byte, and its probe's */
	struct u64map seen;	/* the instructions walked: their WALKED_* */
	struct path *todo;	/* the paths still to walk */
	size_t ntodo, todo_cap;
	struct nesting_proof *out;
};

/* How an instruction was walked: each at most once in each state. */
enum {
	WALKED = 1,
	WALKED_TOP_WRITTEN = 2,	/* just after the return address was written */
};

static uint64_t
walked_as(bool top_written)
{
	return top_written ? WALKED_TOP_WRITTEN : WALKED;
}

static bool
walked(const struct walk *w, uint64_t vaddr, bool top_written)
{
	const struct u64map_slot *seen = u64map_find(&w->seen, vaddr);

	return seen && (seen->value & walked_as(top_written));
}

/* Where a path goes from a call or jump the walk has followed. */
enum onward {
	ONWARD_FAILS,	/* the proof fails */
	ONWARD_ON,	/* on, as the instruction goes */
	ONWARD_ENDS,	/* nowhere: a function that never returns was called */
};

static enum onward
fail(struct walk *w, enum nesting_why why, uint64_t at, const char *name)
{
	w->out->why = why;
	w->out->at = at;
	snprintf(w->out->name, sizeof(w->out->name), "%s", name ? name : "");
	return ONWARD_FAILS;
}

static uint64_t
fde_start(const void *fdes, size_t i)
{
	return ((const struct unwind_fde *)fdes)[i].start;
}

/* The FDE that covers vaddr, or NULL. */
static const struct unwind_fde *
fde_at(const struct walk *w, uint64_t vaddr)
{
	const struct unwind_fde *fdes = w->file->fdes;
	size_t i = sorted_first_above(fdes, 0, w->file->nfdes, fde_start, vaddr);

	return i && vaddr < fdes[i - 1].end ? &fdes[i - 1] : NULL;
}

/*
 * A call or jump through a GOT slot reaches a function of any file, by
 * its name; a string function only through a slot the file binds to its
 * own code at load (IRELATIVE), which no other file can interpose and no
 * lazy binding resolves.
 */
static enum onward
through_slot(struct walk *w, uint64_t at, uint64_t slot)
{
	bool bound_here;
	const char *name = elf_got_name(w->file->got, slot, &bound_here);
	size_t rank;

	if (!name)
		return fail(w, NESTING_INDIRECT, at, NULL);
	if (allocator_function(name, &rank))
		return fail(w, NESTING_ALLOCATOR, at, name);
	/* A static program's slot can be named for the internal alias: __strchrnul. */
	if (bound_here &&
	    (NAMED_IN(name, string_functions) ||
	     (!strncmp(name, "__", 2) && NAMED_IN(name + 2, string_functions))))
		return ONWARD_ON;
	if (NAMED_IN(name, noreturn_functions))
		return ONWARD_ENDS;
	return fail(w, NESTING_OTHER_FILE, at, name);
}

/*
 * A function of any file, through its GOT slot; not by a jump just after
 * the return address was written, where its ret would go.
 */
static enum onward
follow_slot(struct walk *w, uint64_t at, uint64_t slot, bool top_written)
{
	return top_written ? fail(w, NESTING_INDIRECT, at, NULL) : through_slot(w, at, slot);
}

/* The code at vaddr, up to the end of its segment: NULL outside the file. */
static const uint8_t *
code_at(const struct walk *w, uint64_t vaddr, uint64_t *room)
{
	uint64_t offset;

	if (!w->file->bytes_at(w->file->ctx, vaddr, &offset, room))
		return NULL;
	return w->file->image + offset;
}

/* Code to walk from vaddr, once the paths before it have been. */
static void
walk_later(struct walk *w, uint64_t vaddr, bool top_written)
{
	w->todo = xgrow(w->todo, &w->todo_cap, w->ntodo + 1, sizeof(*w->todo));
	w->todo[w->ntodo++] = (struct path){ vaddr, top_written };
}

/*
 * Whether the code at vaddr takes its return address from (%rsp), as a
 * function's first instruction does: by its CFI, the CFA is rsp + 8.
 */
static bool
returns_from_top(const struct walk *w, uint64_t vaddr)
{
	struct ms_unwind_rule r = unwind_rule_at(w->file->elf, vaddr);

	return r.cfa == MS_CFA_RSP && r.cfa_offset == 8;
}

/*
 * A branch, jump or call of the instruction at at, to this file's code:
 * walked in turn, unless it is an allocator function's (the free's own
 * code only by a jump, past its probe) or a PLT stub, which jumps through
 * its slot.  A jump just after (%rsp) was written to code whose return
 * address is there is a call that returns where the write says.
 */
static enum onward
to_code(struct walk *w, uint64_t at, uint64_t to, bool call, bool top_written)
{
	const char *allocator = w->file->allocator_at(w->file->ctx, to);
	const uint8_t *code;
	struct probe_jump stub;
	uint64_t room;

	/* Back to the free's probe: another call of it, whose return nothing would see. */
	if (allocator && (call || allocator != w->free_name || (to >= w->entry && to <= w->site)))
		return fail(w, NESTING_ALLOCATOR, at, allocator);
	/* Walked already: neither a stub nor a function that never returns. */
	if (walked(w, to, top_written))
		return ONWARD_ON;
	code = code_at(w, to, &room);
	if (code && probe_site_jump(code, room, to, &stub) == 1 && stub.through_slot)
		return follow_slot(w, at, stub.to, top_written);
	if (u64map_find(&w->file->noreturn, to))
		return ONWARD_ENDS;
	if (top_written && returns_from_top(w, to))
		return fail(w, NESTING_INDIRECT, at, NULL);
	walk_later(w, to, top_written);
	return ONWARD_ON;
}

static enum onward
follow(struct walk *w, uint64_t at, const struct probe_step *s, bool top_written)
{
	if (!s->known)
		return fail(w, NESTING_INDIRECT, at, NULL);
	/* A call pushes the return address its callee takes. */
	if (s->flow == FLOW_CALL)
		top_written = false;
	if (s->through_slot)
		return follow_slot(w, at, s->to, top_written);
	return to_code(w, at, s->to, s->flow == FLOW_CALL, top_written);
}

/* The instruction at vaddr, decoded within its FDE; false when it does not decode. */
static bool
step_at(struct walk *w, uint64_t vaddr, const struct unwind_fde *fde, struct probe_step *s)
{
	uint64_t room;
	const uint8_t *code = code_at(w, vaddr, &room);

	if (code && probe_site_step(code, room < fde->end - vaddr ? room : fde->end - vaddr,
				    vaddr, s) == 1)
		return true;
	fail(w, NESTING_UNDECODABLE, vaddr, NULL);
	return false;
}

/* The path from its start, to where it ends or meets code walked already. */
static bool
walk_path(struct walk *w, struct path path)
{
	uint64_t vaddr = path.vaddr;
	const struct unwind_fde *fde = fde_at(w, vaddr);
	bool from_entry = vaddr == w->entry, top_written = path.top_written;
	const struct u64map_slot *seen;
	struct probe_step s;
	enum onward onward;

	if (!fde) {
		fail(w, NESTING_NO_CFI, vaddr, NULL);
		return false;
	}
	for (;; vaddr += s.length) {
		/* Other code running into the free's probe: another call of it. */
		if (!from_entry && vaddr >= w->entry && vaddr <= w->site) {
			fail(w, NESTING_ALLOCATOR, vaddr, w->free_name);
			return false;
		}
		if (walked(w, vaddr, top_written))
			return true;
		seen = u64map_find(&w->seen, vaddr);
		if (!seen && ++w->out->insns > NESTING_INSNS_MAX) {
			fail(w, NESTING_TOO_LONG, vaddr, NULL);
			return false;
		}
		u64map_put(&w->seen, vaddr, (seen ? seen->value : 0) | walked_as(top_written));
		if (!step_at(w, vaddr, fde, &s))
			return false;
		/* A retpoline: the return address replaced, a jump through a pointer. */
		if (s.flow == FLOW_RETURNS && top_written) {
			fail(w, NESTING_INDIRECT, vaddr, NULL);
			return false;
		}
		if (s.flow == FLOW_STOPS || s.flow == FLOW_RETURNS)
			return true;
		/* A jump, or a call once it returns, leaves (%rsp) as it was. */
		if (s.flow != FLOW_BRANCH && s.flow != FLOW_JUMP && s.flow != FLOW_CALL)
			top_written = s.writes_top;
		onward = s.flow == FLOW_ON ? ONWARD_ON : follow(w, vaddr, &s, top_written);
		if (onward == ONWARD_FAILS)
			return false;
		/* A Jcc's other way goes on when its target never returns. */
		if (s.flow == FLOW_JUMP || (onward == ONWARD_ENDS && s.flow == FLOW_CALL))
			return true;
		/* Nothing of the function follows: a call there never returns. */
		if (vaddr + s.length >= fde->end) {
			if (s.flow == FLOW_CALL)
				return true;
			fail(w, NESTING_RUNS_ON, vaddr, NULL);
			return false;
		}
	}
}

static void
note_noreturn(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	if (NAMED_IN(name, noreturn_functions))
		u64map_put(ctx, vaddr, 1);
}

/* What every proof of the file reads: once, at the first. */
static void
read_file(struct nesting_file *file)
{
	file->nfdes = unwind_fdes_read(file->elf, &file->fdes);
	u64map_init(&file->noreturn);
	elf_foreach_function(file->elf, note_noreturn, &file->noreturn);
	file->read = true;
}

void
free_nesting_prove(struct nesting_file *file, uint64_t vaddr, uint64_t site,
		   struct nesting_proof *out)
{
	struct walk w = { .file = file, .entry = vaddr, .site = site, .out = out };
	bool proven = true;

	*out = (struct nesting_proof){ .why = NESTING_NONE };
	if (!probe_sites_decoder) {
		fail(&w, NESTING_NO_DECODER, vaddr, NULL);
		return;
	}
	if (!file->read)
		read_file(file);
	w.free_name = file->allocator_at(file->ctx, vaddr);
	u64map_init(&w.seen);
	walk_later(&w, vaddr, false);
	while (proven && w.ntodo)
		proven = walk_path(&w, w.todo[--w.ntodo]);
	u64map_free(&w.seen);
	free(w.todo);
}

void
nesting_file_release(struct nesting_file *file)
{
	if (!file->read)
		return;
	u64map_free(&file->noreturn);
	free(file->fdes);
	file->read = false;
}

#else

void
free_nesting_prove(struct nesting_file *file, uint64_t vaddr, uint64_t site,
		   struct nesting_proof *out)
{
	*out = (struct nesting_proof){ .why = NESTING_NO_CFI, .at = vaddr };
}

void
nesting_file_release(struct nesting_file *file)
{
}

#endif
