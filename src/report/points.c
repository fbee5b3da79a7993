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

struct point *
points_ranked(const struct heap_model *h, const struct sites *s, enum site_metric m,
	      size_t *count)
{
	struct point_finder r;
	size_t i, nsites, n = 0, cap = 0;
	uint32_t *order = sites_ranked(h, m, &nsites);
	struct point *v = NULL;
	struct u64map index;	/* frame + 1 -> point + 1 */
	size_t no_stack = 0;	/* the point of the sites without a stack + 1 */

	point_finder_init(&r, s);
	u64map_init(&index);
	for (i = 0; i < nsites; i++) {
		struct u64map_slot *slot = NULL;
		uint64_t frame = 0;
		uint32_t depth = 0;
		bool stack = point_of(&r, order[i], &frame, &depth);
		struct point *p;

		/* A frame's key is one more: a module's frame 0 is no key. */
		if (stack)
			slot = u64map_find(&index, frame + 1);
		if (stack ? slot != NULL : no_stack != 0) {
			p = &v[(stack ? slot->value : no_stack) - 1];
		} else {
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			p = &v[n++];
			*p = (struct point){ .stack = stack, .frame = frame };
			if (stack)
				u64map_put(&index, frame + 1, n);
			else
				no_stack = n;
		}
		/* Sites come largest first: so do each point's. */
		p->sites = xreallocarray(p->sites, p->nsites + 1, sizeof(*p->sites));
		p->depths = xreallocarray(p->depths, p->nsites + 1, sizeof(*p->depths));
		p->depths[p->nsites] = depth;
		p->sites[p->nsites++] = order[i];
		p->value += site_metric_value(h, order[i], m);
	}
	u64map_free(&index);
	point_finder_free(&r);
	free(order);
	if (n)		/* qsort may not be given NULL */
		qsort(v, n, sizeof(*v), by_value_descending);
	*count = n;
	return v;
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
