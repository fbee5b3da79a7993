// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "sites.h"

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
}

static uint64_t
resolve_frame(const struct address_space *as, uint64_t addr)
{
	const struct space_mapping *m = address_space_find(as, addr);

	if (!m)
		return SITE_FRAME_OFFSET(addr);
	return (uint64_t)m->module << 48 | SITE_FRAME_OFFSET(addr - m->start + m->offset);
}

static uint32_t
site_of_call(struct sites *s, const struct record *r)
{
	struct address_space *as = address_spaces_get(&s->spaces, r->pid);
	struct u64map_slot *slot = u64map_find(&s->stack_ids, r->call.stack_id);
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
	address_spaces_apply(&s->spaces, r);
	switch (r->type) {
	case REC_STACK:
		id = stack_table_intern(&s->stacks, r->stack.frames, r->stack.nframes, &added);
		u64map_put(&s->stack_ids, r->stack.id, id);
		break;
	case REC_CALL:
		r->call.site = r->call.stack_id ? site_of_call(s, r) : 0;
		break;
	default:
		break;
	}
}

const uint64_t *
sites_frames(const struct sites *s, uint32_t site, uint32_t *n)
{
	return stack_table_get(&s->resolved, site, n);
}
