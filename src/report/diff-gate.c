// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup diff --fail-on-increase: a yes or no for CI on how much the
 * whole tree's figure grew from A to B, with the chains that grew most.
 */
#include "config.h"
#include "diff.h"
#include "error.h"
#include "heap.h"
#include "json.h"
#include "replay.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The chains a failed gate names. */
enum { GATE_CHAINS = 3 };

bool
increase_gate_parse(const char *arg, struct increase_gate *g)
{
	const char *comma = strchr(arg, ','), *end;
	size_t len = strspn(arg, "0123456789"), decimals;

	/* Digits, then a point and digits: strtod would take signs, hex, exponents, inf. */
	if (!len)
		return false;
	if (arg[len] == '.') {
		decimals = strspn(arg + len + 1, "0123456789");
		if (!decimals)
			return false;
		len += 1 + decimals;
	}
	g->percent = strtod(arg, NULL);
	if (!isfinite(g->percent))
		return false;
	end = arg + len;
	if (*end == '%')
		end++;
	if (end != (comma ? comma : arg + strlen(arg)))
		return false;
	g->metric = METRIC_PEAK;
	if (comma && !site_metric_parse(comma + 1, &g->metric))
		return false;
	g->on = true;
	return true;
}

/* The tree's figure that metric m reads, as a site's. */
static uint64_t
tree_figure(const struct heap_stats *t, enum site_metric m)
{
	const struct site_figures f = {
		.allocs = t->allocs,
		.bytes_allocated = t->bytes_allocated,
		.peak_bytes = t->peak_bytes,
		.leaked_bytes = t->leaked_bytes,
		.temporary = t->temporary,
	};

	return site_figure(&f, m);
}

/* As the diff's whole-tree lines name the figure. */
static const char *
tree_title(enum site_metric m)
{
	static const char *const titles[] = {
		[METRIC_PEAK] = "peak live heap",
		[METRIC_LEAKED] = "leaked bytes",
		[METRIC_ALLOCATED] = "bytes allocated",
		[METRIC_COUNT] = "allocations",
		[METRIC_TEMPORARY] = "temporary allocations",
	};

	return titles[m];
}

/* Exact, for a verdict: "14.6 KiB (15,000 bytes)", "17". */
static const char *
amount(char buf[HUMAN_MAX], enum site_metric m, uint64_t v)
{
	return m == METRIC_COUNT || m == METRIC_TEMPORARY ? human_count(buf, v) :
							    human_bytes(buf, v);
}

void
increase_gate_apply(struct increase_gate *g, const struct replay *p)
{
	g->a = tree_figure(&p[0].heap.tree, g->metric);
	g->b = tree_figure(&p[1].heap.tree, g->metric);
	/* From nothing, any growth is more than any percentage. */
	g->failed = g->b > g->a &&
		    (!g->a || (double)(g->b - g->a) * 100 > g->percent * (double)g->a);
}

static uint64_t
growth(const struct chain *ch, enum site_metric m)
{
	uint64_t a = site_figure(&ch->side[0], m), b = site_figure(&ch->side[1], m);

	return b > a ? b - a : 0;
}

static int
by_growth(const void *x, const void *y, void *metric)
{
	const struct chain *a = *(const struct chain *const *)x;
	const struct chain *b = *(const struct chain *const *)y;
	enum site_metric m = *(const enum site_metric *)metric;
	uint64_t ga = growth(a, m), gb = growth(b, m);

	if (ga != gb)
		return ga < gb ? 1 : -1;
	return strcmp(a->name, b->name);
}

/*
 * The chains that grew by m, largest growth first (then by name): an
 * array to free, and how many.
 */
static const struct chain **
grown_most(const struct chains *c, enum site_metric m, size_t *n)
{
	const struct chain **grown = xreallocarray(NULL, c->n ? c->n : 1, sizeof(*grown));
	size_t i;

	*n = 0;
	for (i = 0; i < c->n; i++)
		if (growth(&c->v[i], m))
			grown[(*n)++] = &c->v[i];
	if (*n)		/* qsort_r may not be given NULL */
		qsort_r(grown, *n, sizeof(*grown), by_growth, &m);
	return grown;
}

/* "leak <- work <- main": a chain innermost first, as the diff lists it. */
static void
print_chain(FILE *out, const char *chain)
{
	const char *frame, *end = NULL;
	size_t len;
	const char *sep = "";

	while ((frame = diff_prev_frame(chain, &end, &len))) {
		fprintf(out, "%s%.*s", sep, (int)len, frame);
		sep = " <- ";
	}
}

void
increase_gate_print(FILE *out, const struct increase_gate *g, const struct chains *c)
{
	const struct chain **grown;
	char a[HUMAN_MAX], b[HUMAN_MAX], d[HUMAN_MAX];
	size_t i, n;

	if (!g->failed)
		return;
	fprintf(out, "memsup: diff: the %s grew ", tree_title(g->metric));
	if (g->a)
		fprintf(out, "%.1f%% ", (double)(g->b - g->a) * 100 / (double)g->a);
	fprintf(out, "from A to B, more than %g%%: %s -> %s, +%s\n", g->percent,
		amount(a, g->metric, g->a), amount(b, g->metric, g->b),
		amount(d, g->metric, g->b - g->a));
	grown = grown_most(c, g->metric, &n);
	if (!n)
		fputs("  no chain grew: the growth is in allocations without a call "
		      "stack\n", out);
	else
		fprintf(out, "  the chains that grew most in %s:\n",
			site_metric_title(g->metric));
	for (i = 0; i < n && i < GATE_CHAINS; i++) {
		fprintf(out, "  +%s  ", amount(d, g->metric, growth(grown[i], g->metric)));
		print_chain(out, grown[i]->name);
		fputc('\n', out);
	}
	free(grown);
}

void
increase_gate_json(FILE *out, const struct increase_gate *g, const struct chains *c)
{
	size_t i, n;
	const struct chain **grown = grown_most(c, g->metric, &n);

	fprintf(out, "{\"metric\": \"%s\", \"percent\": %g, \"a\": %" PRIu64
		", \"b\": %" PRIu64 ", \"failed\": %s, \"grew_most\": [",
		site_metric_name(g->metric), g->percent, g->a, g->b,
		g->failed ? "true" : "false");
	for (i = 0; i < n && i < GATE_CHAINS; i++) {
		fputs(i ? ", {\"chain\": " : "{\"chain\": ", out);
		json_string(out, grown[i]->name);
		fprintf(out, ", \"a\": %" PRIu64 ", \"b\": %" PRIu64 "}",
			site_figure(&grown[i]->side[0], g->metric),
			site_figure(&grown[i]->side[1], g->metric));
	}
	fputs("]}", out);
	free(grown);
}
