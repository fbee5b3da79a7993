// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup diff's allocation points: the chains grouped by the frame that
 * asked for the memory, as memsup report ranks them, matched by names as
 * the chains are.
 */
#include "config.h"
#include "diff.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

uint64_t
diff_point_change(const struct diff_point *pt, enum site_metric m)
{
	uint64_t a = site_figure(&pt->side[0], m), b = site_figure(&pt->side[1], m);

	return a > b ? a - b : b - a;
}

/* Sorts chain indexes by their point's name, then by their rank. */
static int
by_point(const void *x, const void *y, void *chains)
{
	const struct chain *v = chains;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int order = strcmp(v[i].point, v[j].point);

	if (order)
		return order;
	return i < j ? -1 : i > j;
}

static int
by_change(const void *x, const void *y, void *metric)
{
	const struct diff_point *a = x, *b = y;
	enum site_metric m = *(const enum site_metric *)metric;
	uint64_t ca = diff_point_change(a, m), cb = diff_point_change(b, m);

	if (ca != cb)
		return ca < cb ? 1 : -1;
	return strcmp(a->name, b->name);
}

struct diff_point *
diff_points(const struct chains *c, enum site_metric m, size_t *count)
{
	size_t *order = xreallocarray(NULL, c->n ? c->n : 1, sizeof(*order));
	struct diff_point *v = NULL;
	size_t i, n = 0, cap = 0;
	int side;

	for (i = 0; i < c->n; i++)
		order[i] = i;
	if (c->n)	/* qsort_r may not be given NULL */
		qsort_r(order, c->n, sizeof(*order), by_point, c->v);
	for (i = 0; i < c->n; i++) {
		const struct chain *ch = &c->v[order[i]];
		struct diff_point *pt = n ? &v[n - 1] : NULL;

		if (!pt || strcmp(pt->name, ch->point)) {
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			pt = &v[n++];
			*pt = (struct diff_point){ .name = ch->point };
		}
		pt->chains = xreallocarray(pt->chains, pt->nchains + 1, sizeof(*pt->chains));
		pt->chains[pt->nchains++] = order[i];
		for (side = 0; side < 2; side++)
			diff_figures_add(&pt->side[side], &ch->side[side]);
	}
	free(order);
	if (n)
		qsort_r(v, n, sizeof(*v), by_change, &m);
	*count = n;
	return v;
}

void
diff_points_free(struct diff_point *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].chains);
	free(v);
}

size_t
diff_names_in(const char *folded)
{
	size_t n = 1;

	while ((folded = strchr(folded, ';')))
		n++, folded++;
	return n;
}

void
diff_print_names(FILE *out, const struct chain *ch, size_t from, size_t to)
{
	const char *frame, *end = NULL, *where, *where_end = NULL;
	size_t len, where_len, i;

	for (i = 0; i < to && (frame = diff_prev_frame(ch->name, &end, &len)); i++) {
		where = diff_prev_frame(ch->sources, &where_end, &where_len);
		if (i < from)
			continue;
		fprintf(out, "        %.*s", (int)len, frame);
		if (where && where_len)
			fprintf(out, " (%.*s)", (int)where_len, where);
		fputc('\n', out);
	}
}
