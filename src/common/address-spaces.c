// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "address-spaces.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

void
address_spaces_init(struct address_spaces *a)
{
	memset(a, 0, sizeof(*a));
	u64map_init(&a->by_pid);
}

static void
space_free(struct address_space *as)
{
	if (as)
		free(as->maps);
	free(as);
}

void
address_spaces_free(struct address_spaces *a)
{
	struct u64map_slot *slot;
	uint32_t i;

	u64map_foreach(&a->by_pid, slot)
		space_free((struct address_space *)(uintptr_t)slot->value);
	u64map_free(&a->by_pid);
	for (i = 0; i < a->nmodules; i++) {
		free(a->modules[i].path);
		free(a->modules[i].open_path);
	}
	free(a->modules);
}

struct address_space *
address_spaces_get(struct address_spaces *a, uint32_t pid)
{
	struct u64map_slot *slot = u64map_find(&a->by_pid, pid);
	struct address_space *as;

	if (slot)
		return (struct address_space *)(uintptr_t)slot->value;
	as = xcalloc(1, sizeof(*as));
	as->generation = ++a->generation;
	u64map_put(&a->by_pid, pid, (uintptr_t)as);
	return as;
}

static uint32_t
module_of(struct address_spaces *a, const struct record *r)
{
	uint32_t i;

	for (i = 0; i < a->nmodules; i++) {
		const struct space_module *m = &a->modules[i];

		if (m->build_id_len == r->mapping.build_id_len &&
		    !memcmp(m->build_id, r->mapping.build_id, m->build_id_len) &&
		    !strcmp(m->path, r->mapping.path))
			return i + 1;
	}
	a->modules = xgrow(a->modules, &a->modules_cap, a->nmodules + 1, sizeof(*a->modules));
	a->modules[a->nmodules].path = xstrdup(r->mapping.path);
	a->modules[a->nmodules].open_path = r->mapping.open_path ?
					    xstrdup(r->mapping.open_path) : NULL;
	memcpy(a->modules[a->nmodules].build_id, r->mapping.build_id, BUILD_ID_MAX);
	a->modules[a->nmodules].build_id_len = r->mapping.build_id_len;
	return ++a->nmodules;
}

/* A new mapping replaces whatever it overlaps. */
static void
add_mapping(struct address_spaces *a, const struct record *r)
{
	struct address_space *as = address_spaces_get(a, r->pid);
	size_t i, kept = 0;

	for (i = 0; i < as->n; i++)
		if (as->maps[i].end <= r->mapping.start || as->maps[i].start >= r->mapping.end)
			as->maps[kept++] = as->maps[i];
	as->maps = xgrow(as->maps, &as->cap, kept + 1, sizeof(*as->maps));
	as->maps[kept] = (struct space_mapping){
		.start = r->mapping.start, .end = r->mapping.end,
		.offset = r->mapping.offset, .module = module_of(a, r),
	};
	as->n = kept + 1;
	as->generation = ++a->generation;
}

static void
fork_space(struct address_spaces *a, uint32_t parent, uint32_t child)
{
	struct address_space *from, *to;

	if (parent == child)
		return;
	from = address_spaces_get(a, parent);
	to = address_spaces_get(a, child);

	to->maps = xgrow(to->maps, &to->cap, from->n, sizeof(*to->maps));
	if (from->n)
		memcpy(to->maps, from->maps, from->n * sizeof(*to->maps));
	to->n = from->n;
	to->generation = from->generation;	/* the same view */
}

static void
drop_space(struct address_spaces *a, uint32_t pid)
{
	uint64_t value;

	if (u64map_remove(&a->by_pid, pid, &value))
		space_free((struct address_space *)(uintptr_t)value);
}

void
address_spaces_apply(struct address_spaces *a, const struct record *r)
{
	/* Zero is no pid: a damaged capture's (u64map keys are not 0). */
	if (!r->pid)
		return;
	switch (r->type) {
	case REC_MAPPING:
		add_mapping(a, r);
		break;
	case REC_FORK:
		if (r->fork.child)
			fork_space(a, r->pid, r->fork.child);
		break;
	case REC_EXEC:
	case REC_ATTACH:
	case REC_EXIT:
		drop_space(a, r->pid);
		break;
	default:
		break;
	}
}

const struct space_mapping *
address_space_find(const struct address_space *as, uint64_t addr)
{
	size_t i;

	for (i = 0; i < as->n; i++)
		if (addr >= as->maps[i].start && addr < as->maps[i].end)
			return &as->maps[i];
	return NULL;
}

bool
space_modules_same_build(const struct space_module *a, const struct space_module *b)
{
	return a->build_id_len && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}
