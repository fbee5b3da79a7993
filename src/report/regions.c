// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "regions.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

void
region_table_free(struct region_table *t)
{
	size_t i;

	for (i = 0; i < t->nregions; i++)
		free(t->regions[i].name);
	free(t->regions);
	t->regions = NULL;
	t->nregions = 0;
	t->regions_cap = 0;
}

/* A harness marks a few dozen regions, so a linear search is enough. */
const struct region_stats *
region_find(const struct region_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nregions; i++)
		if (!strcmp(t->regions[i].name, name))
			return &t->regions[i];
	return NULL;
}

static size_t
region_of(struct region_table *t, const char *name)
{
	const struct region_stats *found = region_find(t, name);

	if (found)
		return (size_t)(found - t->regions);
	t->regions = xgrow(t->regions, &t->regions_cap, t->nregions + 1, sizeof(*t->regions));
	memset(&t->regions[t->nregions], 0, sizeof(*t->regions));
	t->regions[t->nregions].name = xstrdup(name);
	return t->nregions++;
}

static struct open_region *
open_of(const struct region_table *t, const struct open_regions *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nopen; i++)
		if (!strcmp(t->regions[o->open[i].region].name, name))
			return &o->open[i];
	return NULL;
}

void
regions_begin(struct region_table *t, struct open_regions *o, const char *name,
	      uint64_t live_bytes)
{
	struct open_region *r = open_of(t, o, name);
	size_t region;

	if (r) {
		r->depth++;
		return;
	}
	region = region_of(t, name);
	t->regions[region].entries++;
	o->open = xgrow(o->open, &o->open_cap, o->nopen + 1, sizeof(*o->open));
	o->open[o->nopen++] = (struct open_region){ region, 1, live_bytes };
}

static void
forget(struct open_regions *o, struct open_region *r)
{
	*r = o->open[--o->nopen];
	if (!o->nopen) {
		free(o->open);
		o->open = NULL;
		o->open_cap = 0;
	}
}

void
regions_end(struct region_table *t, struct open_regions *o, const char *name)
{
	struct open_region *r = open_of(t, o, name);
	size_t region;

	if (r) {
		if (!--r->depth)
			forget(o, r);
		return;
	}
	/* Found first: the lookup may move the table. */
	region = region_of(t, name);
	t->regions[region].unmatched_ends++;
}

void
regions_allocated(struct region_table *t, const struct open_regions *o,
		  uint64_t size, uint64_t live_bytes)
{
	size_t i;

	for (i = 0; i < o->nopen; i++) {
		const struct open_region *r = &o->open[i];
		struct region_stats *st = &t->regions[r->region];

		st->allocs++;
		st->bytes_allocated += size;
		if (live_bytes > r->live_at_begin && live_bytes - r->live_at_begin > st->peak_bytes)
			st->peak_bytes = live_bytes - r->live_at_begin;
	}
}

void
regions_inherit(struct open_regions *child, const struct open_regions *parent)
{
	size_t i;

	if (!parent->nopen)
		return;
	child->open = xcalloc(parent->nopen, sizeof(*child->open));
	for (i = 0; i < parent->nopen; i++) {
		child->open[i] = parent->open[i];
		child->open[i].live_at_begin = 0;
	}
	child->nopen = parent->nopen;
	child->open_cap = parent->nopen;
}

void
regions_close(struct region_table *t, struct open_regions *o)
{
	while (o->nopen) {
		t->regions[o->open[0].region].left_open++;
		forget(o, &o->open[0]);
	}
}
