// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-sites.h"
#include "points.h"
#include "error.h"
#include "heap.h"
#include "human-numbers.h"
#include "sites.h"
#include "symbolize.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[] = {
	[METRIC_PEAK] = "peak",
	[METRIC_LEAKED] = "leaked",
	[METRIC_ALLOCATED] = "allocated",
	[METRIC_COUNT] = "count",
	[METRIC_TEMPORARY] = "temporary",
};

static const char *const metric_titles[] = {
	[METRIC_PEAK] = "bytes live at the peak",
	[METRIC_LEAKED] = "leaked bytes",
	[METRIC_ALLOCATED] = "bytes allocated",
	[METRIC_COUNT] = "allocations",
	[METRIC_TEMPORARY] = "temporary allocations",
};

const enum site_metric site_rankings[SITE_RANKINGS] = {
	METRIC_PEAK, METRIC_LEAKED, METRIC_COUNT, METRIC_TEMPORARY,
};

const char *
site_metric_title(enum site_metric m)
{
	return metric_titles[m];
}

const char *
site_metric_name(enum site_metric m)
{
	return metric_names[m];
}

bool
site_metric_parse(const char *name, enum site_metric *m)
{
	size_t i;

	for (i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++) {
		if (!strcmp(name, metric_names[i])) {
			*m = (enum site_metric)i;
			return true;
		}
	}
	return false;
}

void
site_figures_of(const struct heap_model *h, uint32_t site, struct site_figures *f)
{
	const struct heap_site *st = &h->sites[site];

	*f = (struct site_figures){
		.allocs = st->allocs,
		.bytes_allocated = st->bytes_allocated,
		.peak_bytes = heap_site_peak_bytes(h, site),
		.leaked_bytes = st->suppressed ? 0 : st->leaked_bytes,
		.temporary = st->temporary,
	};
}

uint64_t
site_figure(const struct site_figures *f, enum site_metric m)
{
	switch (m) {
	case METRIC_PEAK:
		return f->peak_bytes;
	case METRIC_LEAKED:
		return f->leaked_bytes;
	case METRIC_ALLOCATED:
		return f->bytes_allocated;
	case METRIC_COUNT:
		return f->allocs;
	case METRIC_TEMPORARY:
		return f->temporary;
	}
	return 0;
}

uint64_t
site_metric_value(const struct heap_model *h, uint32_t site, enum site_metric m)
{
	struct site_figures f;

	site_figures_of(h, site, &f);
	return site_figure(&f, m);
}

struct ranked {
	uint32_t site;
	uint64_t value;
};

static int
by_value_descending(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* The n sites of order, largest value first: an array to free. */
static uint32_t *
ranked_sites(struct ranked *order, size_t n, size_t *count)
{
	uint32_t *sites;
	size_t i;

	qsort(order, n, sizeof(*order), by_value_descending);
	sites = xcalloc(n ? n : 1, sizeof(*sites));
	for (i = 0; i < n; i++)
		sites[i] = order[i].site;
	free(order);
	*count = n;
	return sites;
}

uint32_t *
sites_ranked(const struct heap_model *h, enum site_metric m, size_t *count)
{
	struct ranked *order = xcalloc(h->nsites ? h->nsites : 1, sizeof(*order));
	size_t i, n = 0;

	for (i = 0; i < h->nsites; i++) {
		uint64_t v = site_metric_value(h, (uint32_t)i, m);

		if (v)
			order[n++] = (struct ranked){ (uint32_t)i, v };
	}
	return ranked_sites(order, n, count);
}

uint32_t *
sites_suppressed(const struct heap_model *h, struct suppressed_leaks *total, size_t *count)
{
	struct ranked *order = xcalloc(h->nsites ? h->nsites : 1, sizeof(*order));
	size_t i, n = 0;

	*total = (struct suppressed_leaks){ 0 };
	for (i = 0; i < h->nsites; i++) {
		const struct heap_site *st = &h->sites[i];

		if (!st->suppressed)
			continue;
		order[n++] = (struct ranked){ (uint32_t)i, st->leaked_bytes };
		total->bytes += st->leaked_bytes;
		total->blocks += st->leaked_blocks;
	}
	total->sites = n;
	return ranked_sites(order, n, count);
}

size_t
frame_describe(struct symbolizer *z, const struct sites *s, uint64_t frame, size_t k,
	       struct frame_name *out)
{
	uint32_t module = SITE_FRAME_MODULE(frame);
	const struct symbol_name *names;
	size_t n;

	*out = (struct frame_name){
		.path = module ? s->spaces.modules[module - 1].path : "?",
		.where = "",
	};
	names = symbolize(z, s, frame, &out->offset, &out->why, &n);
	if (!names) {
		out->offset = SITE_FRAME_OFFSET(frame);
		return 1;
	}
	if (k >= n)
		k = n - 1;
	out->function = names[k].function;
	out->where = names[k].where;
	out->inlined = k + 1 < n;
	if (out->inlined)
		out->offset = 0;
	return n;
}

size_t
frame_label(char *buf, size_t size, struct symbolizer *z, const struct sites *s,
	    uint64_t frame, size_t k)
{
	struct frame_name f;
	size_t n = frame_describe(z, s, frame, k, &f);
	const char *base;

	if (f.function) {
		snprintf(buf, size, "%s", f.function);
	} else if (f.inlined) {
		snprintf(buf, size, "?");
	} else {
		base = strrchr(f.path, '/');
		snprintf(buf, size, "%s+0x%" PRIx64, base ? base + 1 : f.path, f.offset);
	}
	return n;
}

/* The frames of site's chain from the from-th on, and to the to-th, innermost first. */
static void
print_frames(FILE *out, const struct sites *s, struct symbolizer *z, uint32_t site,
	     uint32_t from, uint32_t to)
{
	struct frame_name f;
	const uint64_t *frames;
	uint32_t n, i;
	size_t k, nk;

	frames = sites_frames(s, site, &n);
	if (!frames) {
		fprintf(out, "        (no stack)\n");
		return;
	}
	for (i = from; i < n && i <= to; i++) {
		for (k = 0, nk = 1; k < nk; k++) {
			nk = frame_describe(z, s, frames[i], k, &f);
			if (!f.function && !f.inlined) {
				fprintf(out, "        %s+0x%" PRIx64 " (%s)\n", f.path,
					f.offset, f.why);
				continue;
			}
			if (f.inlined)
				fprintf(out, "        %s (inlined, ",
					f.function ? f.function : "?");
			else
				fprintf(out, "        %s+0x%" PRIx64 " (", f.function,
					f.offset);
			if (f.where[0])
				fprintf(out, "%s, ", f.where);
			fprintf(out, "%s)\n", f.path);
		}
	}
}

const char *
suppressed_describe(char *buf, size_t size, const struct heap_model *h)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX];
	struct suppressed_leaks t;
	size_t count;

	free(sites_suppressed(h, &t, &count));
	if (!t.sites)
		return NULL;
	snprintf(buf, size, "%s in %s block%s from %s site%s", human_bytes(a, t.bytes),
		 human_count(b, t.blocks), plural(t.blocks), human_count(c, t.sites),
		 plural(t.sites));
	return buf;
}

/* "#RANK 2 allocations, 12.0 KiB; ...; 0 temporary", after indent. */
static void
print_figures(FILE *out, const char *indent, const char *rank,
	      const struct site_totals *f)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX],
	     t[HUMAN_MAX];

	fprintf(out, "%s#%s %s allocation%s, %s; %s live at the peak; %s leaked in %s "
		"block%s; %s temporary\n", indent, rank, human_count(a, f->allocs),
		plural(f->allocs), human_bytes(b, f->bytes_allocated),
		human_bytes(c, f->peak_bytes), human_bytes(d, f->leaked_bytes),
		human_count(e, f->leaked_blocks), plural(f->leaked_blocks),
		human_count(t, f->temporary));
}

/* --by=chain: each site, its whole chain. */
static size_t
print_chains(FILE *out, const struct heap_model *h, const struct sites *s,
	     struct symbolizer *z, size_t n, enum site_metric m)
{
	size_t i, count;
	uint32_t *order = sites_ranked(h, m, &count);
	char rank[32];

	for (i = 0; i < count && i < n; i++) {
		struct site_totals f = { 0 };

		site_totals_add(&f, h, order[i]);
		snprintf(rank, sizeof(rank), "%zu", i + 1);
		print_figures(out, "  ", rank, &f);
		print_frames(out, s, z, order[i], 0, UINT32_MAX);
	}
	free(order);
	return i;
}

/*
 * Each allocation point: its figures, its frame, then the chains that
 * reach it, each with its figures and its callers, the n largest.  A
 * point of one chain is that chain, from the point out.
 */
static size_t
print_points(FILE *out, const struct heap_model *h, const struct sites *s,
	     struct symbolizer *z, size_t n, enum site_metric m)
{
	size_t i, j, count;
	struct point *v = points_ranked(h, s, m, &count);
	char rank[48], more[HUMAN_MAX];

	for (i = 0; i < count && i < n; i++) {
		const struct point *p = &v[i];
		struct site_totals f;

		point_totals(&f, h, p);
		snprintf(rank, sizeof(rank), "%zu", i + 1);
		print_figures(out, "  ", rank, &f);
		if (p->nsites == 1) {
			print_frames(out, s, z, p->sites[0], p->depths[0], UINT32_MAX);
			continue;
		}
		print_frames(out, s, z, p->sites[0], p->depths[0], p->depths[0]);
		fprintf(out, "      from %s call chains:\n", human_count(more, p->nsites));
		for (j = 0; j < p->nvalued && j < n; j++) {
			struct site_totals one = { 0 };

			site_totals_add(&one, h, p->sites[j]);
			snprintf(rank, sizeof(rank), "%zu.%zu", i + 1, j + 1);
			print_figures(out, "      ", rank, &one);
			print_frames(out, s, z, p->sites[j], p->depths[j] + 1, UINT32_MAX);
		}
		if (j < p->nsites)
			fprintf(out, "      and %s more\n", human_count(more, p->nsites - j));
	}
	points_free(v, count);
	return i;
}

/* The leak ranking leaves out the suppressed sites, and says what they leaked. */
static void
print_top(FILE *out, const struct heap_model *h, const struct sites *s,
	  struct symbolizer *z, size_t n, enum site_metric m, bool by_chain)
{
	char hidden[SUPPRESSED_DESCRIBE_MAX];
	size_t shown;

	fprintf(out, "top %s by %s:\n", by_chain ? "sites" : "allocation points",
		site_metric_title(m));
	if (by_chain)
		shown = print_chains(out, h, s, z, n, m);
	else
		shown = print_points(out, h, s, z, n, m);
	if (!shown)
		fprintf(out, "  none\n");
	if (m == METRIC_LEAKED && suppressed_describe(hidden, sizeof(hidden), h))
		fprintf(out, "  suppressed: %s\n", hidden);
}

void
sites_print(FILE *out, const struct heap_model *h, const struct sites *s,
	    struct symbolizer *z, size_t n, bool by_chain)
{
	size_t i;

	for (i = 0; i < SITE_RANKINGS; i++)
		print_top(out, h, s, z, n, site_rankings[i], by_chain);
}
