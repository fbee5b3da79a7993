// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "sites.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

void
sites_init(struct sites *s)
{
	memset(s, 0, sizeof(*s));
	address_spaces_init(&s->spaces);
	u64map_init(&s->stack_ids);
	u64map_init(&s->site_of);
	stack_table_init(&s->stacks);
	stack_table_init(&s->resolved);
}

void
sites_free(struct sites *s)
{
	address_spaces_free(&s->spaces);
	u64map_free(&s->stack_ids);
	u64map_free(&s->site_of);
	stack_table_free(&s->stacks);
	stack_table_free(&s->resolved);
	free(s->memo);
}

static uint64_t
resolve_frame(const struct address_space *as, uint64_t addr)
{
	const struct space_mapping *m = address_space_find(as, addr);

	if (!m)
		return SITE_FRAME_OFFSET(addr);
	return (uint64_t)m->module << 48 | SITE_FRAME_OFFSET(addr - m->start + m->offset);
}

/* Stack id's site in the view of generation, from site_of or made. */
static uint32_t
site_of_stack(struct sites *s, const struct address_space *as, uint32_t stack_id)
{
	struct u64map_slot *slot = u64map_find(&s->stack_ids, stack_id);
	uint64_t key, resolved[MS_STACK_MAX];
	const uint64_t *frames;
	uint32_t id, n, i;
	bool added;

	if (!slot)
		return 0;
	id = (uint32_t)slot->value;
	key = (uint64_t)id << 32 | as->generation;
	slot = u64map_find(&s->site_of, key);
	if (slot)
		return (uint32_t)slot->value;
	frames = stack_table_get(&s->stacks, id, &n);
	for (i = 0; i < n && i < MS_STACK_MAX; i++)
		resolved[i] = resolve_frame(as, frames[i]);
	id = stack_table_intern(&s->resolved, resolved, i, &added);
	u64map_put(&s->site_of, key, id);
	return id;
}

/*
 * A generation names one view of a space (a fork child shares its
 * parent's, any change takes a new one), and a stack id's frames change
 * only with a STACK record, which forgets its memo: so the memo gives
 * what site_of_stack() would.
 */
static uint32_t
site_of_call(struct sites *s, const struct record *r)
{
	struct address_space *as = s->last_space;
	uint32_t stack_id = r->call.stack_id, site;
	struct site_memo *memo = stack_id < s->memo_cap ? &s->memo[stack_id] : NULL;

	if (!as || s->last_pid != r->pid) {
		as = address_spaces_get(&s->spaces, r->pid);
		s->last_space = as;
		s->last_pid = r->pid;
	}
	if (memo && memo->generation == as->generation)
		return memo->site;
	site = site_of_stack(s, as, stack_id);
	if (memo && site) {
		memo->generation = as->generation;
		memo->site = site;
	}
	return site;
}

/* Room in the memo for a stack id, unless ids are far sparser than stacks. */
static void
memo_forget(struct sites *s, uint32_t stack_id)
{
	size_t cap = s->memo_cap;

	if (stack_id >= cap && stack_id <= 2 * (size_t)s->stacks.count + 1024) {
		s->memo = xgrow(s->memo, &s->memo_cap, (size_t)stack_id + 1, sizeof(*s->memo));
		memset(s->memo + cap, 0, (s->memo_cap - cap) * sizeof(*s->memo));
	}
	if (stack_id < s->memo_cap)
		s->memo[stack_id] = (struct site_memo){ 0 };
}

void
sites_apply(struct sites *s, struct record *r)
{
	uint32_t id;
	bool added;

	/* Zero is no pid, no stack: a damaged capture's (u64map keys are not 0). */
	if (!r->pid || (r->type == REC_FORK && !r->fork.child) ||
	    (r->type == REC_STACK && !r->stack.id)) {
		if (r->type == REC_CALL)
			r->call.site = 0;
		return;
	}
	switch (r->type) {
	case REC_CALL:
		r->call.site = r->call.stack_id ? site_of_call(s, r) : 0;
		break;
	case REC_STACK:
		id = stack_table_intern(&s->stacks, r->stack.frames, r->stack.nframes, &added);
		u64map_put(&s->stack_ids, r->stack.id, id);
		memo_forget(s, r->stack.id);
		break;
	default:
		/* A space may be made, changed or dropped. */
		address_spaces_apply(&s->spaces, r);
		s->last_space = NULL;
		break;
	}
}

const uint64_t *
sites_frames(const struct sites *s, uint32_t site, uint32_t *n)
{
	return stack_table_get(&s->resolved, site, n);
}
