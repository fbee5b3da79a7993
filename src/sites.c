// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "sites.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

/* What one process maps, and a generation that changes when that does. */
struct address_space {
	uint32_t generation;
	size_t n;
	struct space_mapping {
		uint64_t start, end, offset;
		uint32_t module;	/* index + 1 */
	} *maps;
};

void
sites_init(struct sites *s)
{
	memset(s, 0, sizeof(*s));
	u64map_init(&s->spaces);
	u64map_init(&s->stack_ids);
	u64map_init(&s->site_of);
	stack_table_init(&s->stacks);
	stack_table_init(&s->resolved);
}

static void
space_free(struct address_space *as)
{
	if (as)
		free(as->maps);
	free(as);
}

void
sites_free(struct sites *s)
{
	struct u64map_slot *slot;
	uint32_t i;

	u64map_foreach(&s->spaces, slot)
		space_free((struct address_space *)(uintptr_t)slot->value);
	u64map_free(&s->spaces);
	for (i = 0; i < s->nmodules; i++)
		free(s->modules[i].path);
	free(s->modules);
	u64map_free(&s->stack_ids);
	u64map_free(&s->site_of);
	stack_table_free(&s->stacks);
	stack_table_free(&s->resolved);
}

static struct address_space *
space_of(struct sites *s, uint32_t pid)
{
	struct u64map_slot *slot = u64map_find(&s->spaces, pid);
	struct address_space *as;

	if (slot)
		return (struct address_space *)(uintptr_t)slot->value;
	as = xcalloc(1, sizeof(*as));
	as->generation = ++s->generation;
	u64map_put(&s->spaces, pid, (uintptr_t)as);
	return as;
}

static uint32_t
module_of(struct sites *s, const struct record *r)
{
	uint32_t i;

	for (i = 0; i < s->nmodules; i++) {
		const struct site_module *m = &s->modules[i];

		if (m->build_id_len == r->mapping.build_id_len &&
		    !memcmp(m->build_id, r->mapping.build_id, m->build_id_len) &&
		    !strcmp(m->path, r->mapping.path))
			return i + 1;
	}
	s->modules = xreallocarray(s->modules, s->nmodules + 1, sizeof(*s->modules));
	s->modules[s->nmodules].path = xstrdup(r->mapping.path);
	memcpy(s->modules[s->nmodules].build_id, r->mapping.build_id, BUILD_ID_MAX);
	s->modules[s->nmodules].build_id_len = r->mapping.build_id_len;
	return ++s->nmodules;
}

/* A new mapping replaces whatever it overlaps. */
static void
add_mapping(struct sites *s, const struct record *r)
{
	struct address_space *as = space_of(s, r->pid);
	size_t i, kept = 0;

	for (i = 0; i < as->n; i++)
		if (as->maps[i].end <= r->mapping.start || as->maps[i].start >= r->mapping.end)
			as->maps[kept++] = as->maps[i];
	as->maps = xreallocarray(as->maps, kept + 1, sizeof(*as->maps));
	as->maps[kept] = (struct space_mapping){
		.start = r->mapping.start, .end = r->mapping.end,
		.offset = r->mapping.offset, .module = module_of(s, r),
	};
	as->n = kept + 1;
	as->generation = ++s->generation;
}

static void
fork_space(struct sites *s, uint32_t parent, uint32_t child)
{
	struct address_space *from, *to;

	if (parent == child)
		return;
	from = space_of(s, parent);
	to = space_of(s, child);

	to->maps = xreallocarray(to->maps, from->n, sizeof(*to->maps));
	if (from->n)
		memcpy(to->maps, from->maps, from->n * sizeof(*to->maps));
	to->n = from->n;
	to->generation = from->generation;	/* the same view */
}

static void
drop_space(struct sites *s, uint32_t pid)
{
	uint64_t value;

	if (u64map_remove(&s->spaces, pid, &value))
		space_free((struct address_space *)(uintptr_t)value);
}

static uint64_t
resolve_frame(const struct address_space *as, uint64_t addr)
{
	size_t i;

	for (i = 0; i < as->n; i++) {
		const struct space_mapping *m = &as->maps[i];

		if (addr >= m->start && addr < m->end)
			return (uint64_t)m->module << 48 |
			       SITE_FRAME_OFFSET(addr - m->start + m->offset);
	}
	return SITE_FRAME_OFFSET(addr);
}

static uint32_t
site_of_call(struct sites *s, const struct record *r)
{
	struct address_space *as = space_of(s, r->pid);
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
	switch (r->type) {
	case REC_MAPPING:
		add_mapping(s, r);
		break;
	case REC_STACK:
		id = stack_table_intern(&s->stacks, r->stack.frames, r->stack.nframes, &added);
		u64map_put(&s->stack_ids, r->stack.id, id);
		break;
	case REC_FORK:
		fork_space(s, r->pid, r->fork.child);
		break;
	case REC_EXEC:
	case REC_ATTACH:
		drop_space(s, r->pid);
		break;
	case REC_EXIT:
		drop_space(s, r->pid);
		break;
	case REC_CALL:
		r->call.site = r->call.stack_id ? site_of_call(s, r) : 0;
		break;
	}
}

const uint64_t *
sites_frames(const struct sites *s, uint32_t site, uint32_t *n)
{
	return stack_table_get(&s->resolved, site, n);
}
