// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "points.h"
#include "error.h"
#include "heap.h"
#include "sites.h"
#include "suppressions.h"
#include "u64map.h"

#include <stdbool.h>
#include <stdlib.h>

void
point_finder_init(struct point_finder *r, const struct sites *s)
{
	uint32_t i;

	r->s = s;
	r->known = xreallocarray(NULL, s->spaces.nmodules ? s->spaces.nmodules : 1, 1);
	for (i = 0; i < s->spaces.nmodules; i++)
		r->known[i] = -1;
}

void
point_finder_free(struct point_finder *r)
{
	free(r->known);
}

static bool
in_runtime(struct point_finder *r, uint64_t frame)
{
	uint32_t module = SITE_FRAME_MODULE(frame);

	if (!module)
		return false;
	if (r->known[module - 1] < 0)
		r->known[module - 1] = runtime_file(r->s->spaces.modules[module - 1].path);
	return r->known[module - 1];
}

bool
point_of(struct point_finder *r, uint32_t site, uint64_t *frame, uint32_t *depth)
{
	const uint64_t *frames;
	uint32_t n = 0, i;

	frames = sites_frames(r->s, site, &n);
	if (!frames || !n)
		return false;
	for (i = 0; i < n && in_runtime(r, frames[i]); i++)
		;
	/* A chain all in the runtimes is theirs: its innermost frame. */
	*depth = i < n ? i : 0;
	*frame = frames[*depth];
	return true;
}

static int
by_value_descending(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->sites[0] < y->sites[0] ? -1 : x->sites[0] > y->sites[0];
}

/* The points being gathered, found by their frame. */
struct gathering {
	struct point_finder finder;
	struct point *v;
	size_t n, cap;
	struct u64map index;	/* frame + 1 -> point + 1 */
	size_t no_stack;	/* the point of the sites without a stack + 1 */
};

/* Site's point; made when new if make, else NULL. */
static struct point *
gathered_point(struct gathering *g, uint32_t site, bool make, uint32_t *depth)
{
	struct u64map_slot *slot = NULL;
	uint64_t frame = 0;
	bool stack = point_of(&g->finder, site, &frame, depth);
	struct point *p;

	/* A frame's key is one more: a module's frame 0 is no key. */
	if (stack)
		slot = u64map_find(&g->index, frame + 1);
	if (stack ? slot != NULL : g->no_stack != 0)
		return &g->v[(stack ? slot->value : g->no_stack) - 1];
	if (!make)
		return NULL;
	g->v = xgrow(g->v, &g->cap, g->n + 1, sizeof(*g->v));
	p = &g->v[g->n++];
	*p = (struct point){ .stack = stack, .frame = frame };
	if (stack)
		u64map_put(&g->index, frame + 1, g->n);
	else
		g->no_stack = g->n;
	return p;
}

static void
add_site(struct point *p, uint32_t site, uint32_t depth)
{
	p->sites = xreallocarray(p->sites, p->nsites + 1, sizeof(*p->sites));
	p->depths = xreallocarray(p->depths, p->nsites + 1, sizeof(*p->depths));
	p->depths[p->nsites] = depth;
	p->sites[p->nsites++] = site;
}

struct point *
points_ranked(const struct heap_model *h, const struct sites *s, enum site_metric m,
	      size_t *count)
{
	struct gathering g = { .v = NULL };
	size_t i, nvalued;
	uint32_t *order = sites_ranked(h, m, &nvalued), site, depth;
	struct point *p;

	point_finder_init(&g.finder, s);
	u64map_init(&g.index);
	/* The sites with a value, largest first: so are each point's. */
	for (i = 0; i < nvalued; i++) {
		p = gathered_point(&g, order[i], true, &depth);
		add_site(p, order[i], depth);
		p->nvalued++;
		p->value += site_metric_value(h, order[i], m);
	}
	/* Then the others of those points, for their figures. */
	for (site = 0; site < h->nsites; site++) {
		if (!h->sites[site].allocs || site_metric_value(h, site, m))
			continue;
		p = gathered_point(&g, site, false, &depth);
		if (p)
			add_site(p, site, depth);
	}
	u64map_free(&g.index);
	point_finder_free(&g.finder);
	free(order);
	if (g.n)	/* qsort may not be given NULL */
		qsort(g.v, g.n, sizeof(*g.v), by_value_descending);
	*count = g.n;
	return g.v;
}

void
points_free(struct point *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].sites);
		free(v[i].depths);
	}
	free(v);
}

void
site_totals_add(struct site_totals *t, const struct heap_model *h, uint32_t site)
{
	const struct heap_site *st = &h->sites[site];

	t->allocs += st->allocs;
	t->bytes_allocated += st->bytes_allocated;
	t->peak_bytes += heap_site_peak_bytes(h, site);
	t->leaked_bytes += st->leaked_bytes;
	t->leaked_blocks += st->leaked_blocks;
	t->temporary += st->temporary;
}

void
point_totals(struct site_totals *t, const struct heap_model *h, const struct point *p)
{
	size_t i;

	*t = (struct site_totals){ 0 };
	for (i = 0; i < p->nsites; i++)
		site_totals_add(t, h, p->sites[i]);
}
