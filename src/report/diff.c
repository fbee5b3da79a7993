// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup diff A B: what changed between two captures, per call chain.
 * Sites are matched by their chains of function names, not addresses, so
 * that two builds of a program, or two machines, compare.
 */
#include "config.h"
#include "diff.h"
#include "points.h"
#include "capture.h"
#include "error.h"
#include "flamegraph.h"
#include "frame-names.h"
#include "json.h"
#include "replay.h"
#include "report-folded.h"
#include "report-options.h"
#include "report-sites.h"

#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(void)
{
	fputs("Usage: memsup diff [-n N] [--by=point|chain] [--format=FORMAT] [--metric=METRIC]\n"
	      "                   [--full-names] [--pid=PID] [--command=NAME] [--debug-dir=DIR]\n"
	      "                   [--strict]\n"
	      "                   [--fail-on-increase=PCT[,METRIC]] A B\n"
	      "Compare two captures: the totals, and the call chains whose\n"
	      "allocations changed most from A to B.  One of them may be -,\n"
	      "standard input.  A capture cut short is compared up to the cut,\n"
	      "with a warning and exit status 2.\n"
	      "\n"
	      "  -n, --top=N   show the N allocation points (or chains) that changed\n"
	      "                most, and of each point its N chains (default 10;\n"
	      "                0 shows none)\n"
	      "      --by=point|chain\n"
	      "                in text, JSON and HTML, group the chains by allocation\n"
	      "                point (the default), as memsup report does, or\n"
	      "                list each chain on its own\n"
	      "  -f, --format=text|json|folded|svg|html\n"
	      "                text (the default); JSON (doc/report-json.md);\n"
	      "                folded stacks with A's value and B's, as\n"
	      "                flamegraph.pl reads a differential flame graph;\n"
	      "                that flame graph as SVG (red grew, blue shrank);\n"
	      "                or one HTML page with all of it\n"
	      "  -m, --metric=peak|leaked|allocated|count|temporary\n"
	      "                what ranks the chains, and the folded values: bytes\n"
	      "                live at the peak (the default), bytes leaked, bytes\n"
	      "                allocated, allocations, temporary allocations\n"
	      "      --full-names\n"
	      "                keep functions' template arguments, parameters\n"
	      "                and return types (shortened by default:\n"
	      "                std::vector<>::push_back())\n"
	      "      --pid=PID count process PID of each capture only\n"
	      "      --command=NAME\n"
	      "                count the processes running the program NAME\n"
	      "                (its base name) only, while they run it, in each\n"
	      "                capture\n"
	      "      --debug-dir=DIR\n"
	      "                look for separate debug files under DIR\n"
	      "      --strict  refuse a capture cut short (exit status 1)\n"
	      "      --fail-on-increase=PCT[,METRIC]\n"
	      "                for CI: exit status 1 when the whole tree's METRIC\n"
	      "                (as --metric names them; peak by default) grew\n"
	      "                more than PCT percent from A to B, naming the\n"
	      "                chains that grew most on stderr; 0 when it did\n"
	      "                not; 125 for a capture that cannot be read, is\n"
	      "                cut short or lost records\n"
	      "  -h, --help    show this help and exit\n", stdout);
}

void
diff_figures_add(struct site_figures *t, const struct site_figures *f)
{
	t->allocs += f->allocs;
	t->bytes_allocated += f->bytes_allocated;
	t->peak_bytes += f->peak_bytes;
	t->leaked_bytes += f->leaked_bytes;
	t->temporary += f->temporary;
}

/* A site's frames' source lines, as folded_chain orders its names. */
static char *
chain_sources(struct replay *p, uint32_t site)
{
	struct frame_name f;
	const uint64_t *frames;
	uint32_t n = 0, i;
	size_t k, nk, size = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		perror_msg_and_die("open_memstream");
	frames = sites_frames(&p->sites, site, &n);
	for (i = n; i-- > 0;) {
		nk = frame_describe(&p->symbolizer, &p->sites, frames[i], 0, &f);
		for (k = nk; k-- > 0;) {
			frame_describe(&p->symbolizer, &p->sites, frames[i], k, &f);
			fputs(f.where, out);
			if (i || k)
				fputc(';', out);
		}
	}
	if (fclose(out))
		perror_msg_and_die("open_memstream");
	return text;
}

/*
 * Site's point frame's names, folded, into ch->point, and into ch->inner
 * how many of its names end with them, from the innermost.
 */
static void
chain_point(struct chain *ch, struct point_finder *finder, struct replay *p,
	    uint32_t site)
{
	const uint64_t *frames;
	struct frame_name f;
	uint64_t frame;
	uint32_t n, depth, i;
	size_t size = 0;
	FILE *out;

	frames = sites_frames(&p->sites, site, &n);
	point_of(finder, site, &frame, &depth);
	for (i = 0; i <= depth; i++)
		ch->inner += frame_describe(&p->symbolizer, &p->sites, frames[i], 0, &f);
	out = open_memstream(&ch->point, &size);
	if (!out)
		perror_msg_and_die("open_memstream");
	folded_frame(out, &p->sites, &p->symbolizer, frame);
	if (fclose(out))
		perror_msg_and_die("open_memstream");
}

/* Every site of p, as a chain with its figures on this side. */
static void
add_sites(struct chains *c, struct replay *p, int side)
{
	const struct heap_model *h = &p->heap;
	struct point_finder finder;
	uint32_t site, nframes;

	point_finder_init(&finder, &p->sites);
	for (site = 0; site < h->nsites; site++) {
		struct site_figures f;
		struct chain *ch;
		size_t size = 0;
		FILE *out;

		if (!h->sites[site].allocs)
			continue;
		if (!sites_frames(&p->sites, site, &nframes) || !nframes) {
			site_figures_of(h, site, &f);
			diff_figures_add(&c->no_stack[side], &f);
			continue;
		}
		c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
		ch = &c->v[c->n++];
		memset(ch, 0, sizeof(*ch));
		out = open_memstream(&ch->name, &size);
		if (!out)
			perror_msg_and_die("open_memstream");
		folded_chain(out, &p->sites, &p->symbolizer, site);
		if (fclose(out))
			perror_msg_and_die("open_memstream");
		ch->sources = chain_sources(p, site);
		chain_point(ch, &finder, p, site);
		site_figures_of(h, site, &ch->side[side]);
	}
	point_finder_free(&finder);
}

/* By name; of one name, B's first, whose sources the merged chain keeps. */
static int
by_name(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;
	int order = strcmp(x->name, y->name);

	if (order)
		return order;
	return (y->side[1].allocs != 0) - (x->side[1].allocs != 0);
}

/* One entry per chain: the sites of one chain, on either side, summed. */
static void
merge_chains(struct chains *c)
{
	size_t i, kept = 0;
	int side;

	if (!c->n)
		return;		/* qsort may not be given NULL */
	qsort(c->v, c->n, sizeof(*c->v), by_name);
	for (i = 0; i < c->n; i++) {
		struct chain *into = kept ? &c->v[kept - 1] : NULL;

		if (!into || strcmp(into->name, c->v[i].name)) {
			c->v[kept++] = c->v[i];
			continue;
		}
		for (side = 0; side < 2; side++)
			diff_figures_add(&into->side[side], &c->v[i].side[side]);
		free(c->v[i].name);
		free(c->v[i].sources);
		free(c->v[i].point);
	}
	c->n = kept;
}

const char *
diff_prev_frame(const char *chain, const char **end, size_t *len)
{
	const char *frame;

	if (!*end)
		*end = chain + strlen(chain);
	if (*end <= chain)
		return NULL;
	frame = *end;
	while (frame > chain && frame[-1] != ';')
		frame--;
	*len = (size_t)(*end - frame);
	*end = frame > chain ? frame - 1 : chain;
	return frame;
}

uint64_t
diff_change(const struct chain *ch, enum site_metric m)
{
	uint64_t a = site_figure(&ch->side[0], m), b = site_figure(&ch->side[1], m);

	return a > b ? a - b : b - a;
}

/* Largest change by the metric first; then by name, so that the order is stable. */
static int
by_change(const void *a, const void *b, void *metric)
{
	const struct chain *x = a, *y = b;
	enum site_metric m = *(const enum site_metric *)metric;
	uint64_t cx = diff_change(x, m), cy = diff_change(y, m);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return strcmp(x->name, y->name);
}

const char *
diff_figure(char buf[HUMAN_MAX], enum diff_unit unit, uint64_t v)
{
	return unit == DIFF_BYTES ? human_size(buf, v) : human_count(buf, v);
}

/* "what 4.6 KiB -> 5.1 KiB (+512 bytes)", "what 9 -> 9 (+0)". */
static void
print_delta(FILE *out, const char *what, enum diff_unit unit, uint64_t a, uint64_t b)
{
	char ha[HUMAN_MAX], hb[HUMAN_MAX], hd[HUMAN_MAX];

	fprintf(out, "%s %s -> %s (%s%s)", what, diff_figure(ha, unit, a),
		diff_figure(hb, unit, b), b >= a ? "+" : "-",
		diff_figure(hd, unit, b >= a ? b - a : a - b));
}

void
diff_foreach_tree_figure(const struct heap_stats *a, const struct heap_stats *b,
			 diff_figure_fn fn, void *ctx)
{
	fn(ctx, "allocations", DIFF_COUNT, a->allocs, b->allocs);
	fn(ctx, "bytes allocated", DIFF_BYTES, a->bytes_allocated, b->bytes_allocated);
	fn(ctx, "frees", DIFF_COUNT, a->frees, b->frees);
	fn(ctx, "temporary", DIFF_COUNT, a->temporary, b->temporary);
	fn(ctx, "peak live heap", DIFF_BYTES, a->peak_bytes, b->peak_bytes);
	fn(ctx, "leaked bytes", DIFF_BYTES, a->leaked_bytes, b->leaked_bytes);
}

static void
tree_figure_text(void *out, const char *name, enum diff_unit unit, uint64_t a, uint64_t b)
{
	char label[32];

	snprintf(label, sizeof(label), "  %s:", name);
	print_delta(out, label, unit, a, b);
	fputc('\n', out);
}

void
diff_foreach_region(const struct replay *p,
		    void (*fn)(void *ctx, const char *name, const struct region_stats *a,
			       const struct region_stats *b), void *ctx)
{
	static const struct region_stats none;
	const struct region_table *ta = &p[0].heap.regions, *tb = &p[1].heap.regions;
	const struct region_stats *other;
	size_t i;

	for (i = 0; i < ta->nregions; i++) {
		other = region_find(tb, ta->regions[i].name);
		fn(ctx, ta->regions[i].name, &ta->regions[i], other ? other : &none);
	}
	for (i = 0; i < tb->nregions; i++)
		if (!region_find(ta, tb->regions[i].name))
			fn(ctx, tb->regions[i].name, &none, &tb->regions[i]);
}

static void
region_text(void *out, const char *name, const struct region_stats *a,
	    const struct region_stats *b)
{
	fprintf(out, "  %s:", name);
	print_delta(out, " entries", DIFF_COUNT, a->entries, b->entries);
	print_delta(out, "; allocations", DIFF_COUNT, a->allocs, b->allocs);
	print_delta(out, "; allocated", DIFF_BYTES, a->bytes_allocated, b->bytes_allocated);
	print_delta(out, "; peak", DIFF_BYTES, a->peak_bytes, b->peak_bytes);
	fputc('\n', out);
}

void
diff_foreach_chain_figure(const struct site_figures *a, const struct site_figures *b,
			  diff_figure_fn fn, void *ctx)
{
	fn(ctx, "peak", DIFF_BYTES, a->peak_bytes, b->peak_bytes);
	fn(ctx, "leaked", DIFF_BYTES, a->leaked_bytes, b->leaked_bytes);
	fn(ctx, "allocated", DIFF_BYTES, a->bytes_allocated, b->bytes_allocated);
	fn(ctx, "allocations", DIFF_COUNT, a->allocs, b->allocs);
	fn(ctx, "temporary", DIFF_COUNT, a->temporary, b->temporary);
}

struct figures_line {
	FILE *out;
	const char *sep;	/* before the next figure */
};

static void
chain_figure_text(void *ctx, const char *name, enum diff_unit unit, uint64_t a, uint64_t b)
{
	struct figures_line *l = ctx;
	char label[32];

	snprintf(label, sizeof(label), "%s %s", l->sep, name);
	print_delta(l->out, label, unit, a, b);
	l->sep = ";";
}

/* " peak A -> B (+C); leaked ...", to the end of the line. */
static void
print_figures(FILE *out, const struct site_figures *a, const struct site_figures *b)
{
	struct figures_line l = { out, "" };

	diff_foreach_chain_figure(a, b, chain_figure_text, &l);
	fputc('\n', out);
}

/*
 * Says which files A and B mapped from one path but in different builds.
 * Each capture that names its frames names them as its build did; frames
 * a capture does not name are named through the file on disk, one build
 * at most, and the other's unnamed frames match nothing, so code that did
 * not change can show as gone in A and new in B: that is a warning.
 */
static void
warn_different_builds(const struct replay *p, char *const *names)
{
	const struct address_spaces *a = &p[0].sites.spaces, *b = &p[1].sites.spaces;
	size_t i, j, k;

	for (i = 0; i < a->nmodules; i++) {
		const struct space_module *ma = &a->modules[i];
		bool same_build = false, other_build = false;
		bool all_named = frame_names_find(capture_names(p[0].rd), ma);

		/* Once a path, at its first module in A. */
		for (k = 0; k < i && strcmp(a->modules[k].path, ma->path); k++)
			;
		if (k < i || !ma->build_id_len)
			continue;
		for (j = 0; j < b->nmodules; j++) {
			const struct space_module *mb = &b->modules[j];

			if (strcmp(mb->path, ma->path) || !mb->build_id_len)
				continue;
			if (space_modules_same_build(ma, mb)) {
				same_build = true;
			} else {
				other_build = true;
				all_named &= !!frame_names_find(capture_names(p[1].rd), mb);
			}
		}
		if (!other_build || same_build)
			continue;
		if (all_named)
			error_msg("%s and %s ran different builds of %s; each capture names "
				  "its own frames", names[0], names[1], ma->path);
		else
			error_msg("warning: %s and %s ran different builds of %s: only the "
				  "installed one's frames can be named, so code that did not "
				  "change may show as gone and new", names[0], names[1], ma->path);
	}
}

/*
 * No chain changed by m: whether some changed by the other metrics, and
 * the option that shows them ("none; other metrics changed: leaked bytes
 * in 2 chains (--metric=leaked)"), so that a leak fixed does not read as
 * nothing done.
 */
static void
print_other_changes(FILE *out, const struct chains *c, enum site_metric m)
{
	static const enum site_metric metrics[] = {
		METRIC_PEAK, METRIC_LEAKED, METRIC_ALLOCATED, METRIC_COUNT, METRIC_TEMPORARY,
	};
	const char *sep = "; other metrics changed: ";
	size_t i, j, changed;

	fputs("  none", out);
	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		if (metrics[i] == m)
			continue;
		for (j = 0, changed = 0; j < c->n; j++)
			changed += !!diff_change(&c->v[j], metrics[i]);
		if (!changed)
			continue;
		fprintf(out, "%s%s in %zu chain%s (--metric=%s)", sep,
			site_metric_title(metrics[i]), changed, plural(changed),
			site_metric_name(metrics[i]));
		sep = ", ";
	}
	fputc('\n', out);
}

/* --by=chain: each chain that changed, its frames. */
static size_t
print_chains_text(FILE *out, const struct chains *c, size_t top, enum site_metric m)
{
	size_t i, shown = 0;

	fprintf(out, "chains by change in %s:\n", site_metric_title(m));
	for (i = 0; i < c->n && shown < top && diff_change(&c->v[i], m); i++) {
		fprintf(out, "  #%zu", ++shown);
		print_figures(out, &c->v[i].side[0], &c->v[i].side[1]);
		diff_print_names(out, &c->v[i], 0, SIZE_MAX);
	}
	return shown;
}

/*
 * Each point that changed: its figures, its frame, then its chains that
 * changed, each with its figures and callers; a point of one chain is
 * that chain from the point out.
 */
static size_t
print_points_text(FILE *out, const struct chains *c, size_t top, enum site_metric m)
{
	size_t i, j, count, shown = 0, listed;
	struct diff_point *v = diff_points(c, m, &count);

	fprintf(out, "allocation points by change in %s:\n", site_metric_title(m));
	for (i = 0; i < count && shown < top && diff_point_change(&v[i], m); i++) {
		const struct diff_point *pt = &v[i];
		const struct chain *first = &c->v[pt->chains[0]];
		/* The point frame's names are the last of the inner ones. */
		size_t from = first->inner - diff_names_in(pt->name);

		fprintf(out, "  #%zu", ++shown);
		print_figures(out, &pt->side[0], &pt->side[1]);
		if (pt->nchains == 1) {
			diff_print_names(out, first, from, SIZE_MAX);
			continue;
		}
		diff_print_names(out, first, from, first->inner);
		fprintf(out, "      from %zu call chains:\n", pt->nchains);
		for (j = 0, listed = 0; j < pt->nchains && listed < top; j++) {
			const struct chain *ch = &c->v[pt->chains[j]];

			if (!diff_change(ch, m))
				continue;
			fprintf(out, "      #%zu.%zu", shown, ++listed);
			print_figures(out, &ch->side[0], &ch->side[1]);
			diff_print_names(out, ch, ch->inner, SIZE_MAX);
		}
	}
	diff_points_free(v, count);
	return shown;
}

static void
print_text(FILE *out, const struct chains *c, const struct replay *p,
	   char *const *files, size_t top, enum site_metric m, bool by_chain)
{
	size_t shown;

	fprintf(out, "A: %s (%s)\nB: %s (%s)\n", files[0], replay_command(&p[0]),
		files[1], replay_command(&p[1]));
	fprintf(out, "whole tree:\n");
	diff_foreach_tree_figure(&p[0].heap.tree, &p[1].heap.tree, tree_figure_text, out);
	if (p[0].heap.regions.nregions || p[1].heap.regions.nregions) {
		fprintf(out, "regions:\n");
		diff_foreach_region(p, region_text, out);
	}
	if (by_chain)
		shown = print_chains_text(out, c, top, m);
	else
		shown = print_points_text(out, c, top, m);
	if (!shown)
		print_other_changes(out, c, m);
	if (c->no_stack[0].allocs || c->no_stack[1].allocs) {
		fprintf(out, "without a call stack, so in no chain:\n ");
		print_figures(out, &c->no_stack[0], &c->no_stack[1]);
	}
}

/* A chain's sources, outermost first, each a string or null. */
static void
json_sources(FILE *out, const char *sources)
{
	const char *where = sources;
	char one[4096];
	size_t len;

	for (;;) {
		len = strcspn(where, ";");
		snprintf(one, sizeof(one), "%.*s", (int)len, where);
		json_string(out, len ? one : NULL);
		if (!where[len])
			break;
		fputs(", ", out);
		where += len + 1;
	}
}

static void
json_stats(FILE *out, const struct site_figures *st)
{
	fprintf(out, "{\"allocations\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 ", \"leaked_bytes\": %" PRIu64
		", \"temporary\": %" PRIu64 "}", st->allocs, st->bytes_allocated,
		st->peak_bytes, st->leaked_bytes, st->temporary);
}

static void
json_tree(FILE *out, const struct replay *p)
{
	const struct heap_stats *t = &p->heap.tree;

	fputs("{\"command\": ", out);
	json_string(out, replay_command(p));
	fprintf(out, ", \"allocations\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64
		", \"frees\": %" PRIu64 ", \"temporary\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 ", \"leaked_bytes\": %" PRIu64 "}",
		t->allocs, t->bytes_allocated, t->frees, t->temporary, t->peak_bytes,
		t->leaked_bytes);
}

static void
json_region_stats(FILE *out, const struct region_stats *r)
{
	fprintf(out, "{\"entries\": %" PRIu64 ", \"allocations\": %" PRIu64
		", \"bytes_allocated\": %" PRIu64 ", \"peak_bytes\": %" PRIu64 "}",
		r->entries, r->allocs, r->bytes_allocated, r->peak_bytes);
}

struct json_regions {
	FILE *out;
	const char *sep;
};

static void
region_json(void *ctx, const char *name, const struct region_stats *a,
	    const struct region_stats *b)
{
	struct json_regions *j = ctx;

	fputs(j->sep, j->out);
	fputs("{\"name\": ", j->out);
	json_string(j->out, name);
	fputs(", \"a\": ", j->out);
	json_region_stats(j->out, a);
	fputs(", \"b\": ", j->out);
	json_region_stats(j->out, b);
	fputc('}', j->out);
	j->sep = ",\n  ";
}

/* The points that changed, at most top: each its name, figures and chains. */
static void
json_points(FILE *out, const struct chains *c, size_t top, enum site_metric m)
{
	size_t i, j, count, listed;
	struct diff_point *v = diff_points(c, m, &count);

	fputs("\"points\": [", out);
	for (i = 0; i < count && i < top && diff_point_change(&v[i], m); i++) {
		fputs(i ? ",\n  {\"point\": " : "\n  {\"point\": ", out);
		json_string(out, v[i].name);
		fputs(", \"a\": ", out);
		json_stats(out, &v[i].side[0]);
		fputs(", \"b\": ", out);
		json_stats(out, &v[i].side[1]);
		fprintf(out, ", \"chains_in_all\": %zu, \"chains\": [", v[i].nchains);
		for (j = 0, listed = 0; j < v[i].nchains && listed < top; j++) {
			if (!diff_change(&c->v[v[i].chains[j]], m))
				continue;
			fputs(listed++ ? ", " : "", out);
			json_string(out, c->v[v[i].chains[j]].name);
		}
		fputs("]}", out);
	}
	fputs(i ? "\n]" : "]", out);
	diff_points_free(v, count);
}

static void
print_json(FILE *out, const struct chains *c, const struct replay *p, size_t top,
	   enum site_metric m, const struct increase_gate *gate)
{
	struct json_regions regions = { out, "\n  " };
	size_t i;

	fputs("{\"memsup_diff\": 1,\n\"a\": ", out);
	json_tree(out, &p[0]);
	fputs(",\n\"b\": ", out);
	json_tree(out, &p[1]);
	fputs(",\n\"regions\": [", out);
	diff_foreach_region(p, region_json, &regions);
	fputs(p[0].heap.regions.nregions || p[1].heap.regions.nregions ? "\n]" : "]", out);
	fputs(",\n\"chains\": [", out);
	for (i = 0; i < c->n && i < top && diff_change(&c->v[i], m); i++) {
		fputs(i ? ",\n  {\"chain\": " : "\n  {\"chain\": ", out);
		json_string(out, c->v[i].name);
		fputs(", \"sources\": [", out);
		json_sources(out, c->v[i].sources);
		fputs("], \"a\": ", out);
		json_stats(out, &c->v[i].side[0]);
		fputs(", \"b\": ", out);
		json_stats(out, &c->v[i].side[1]);
		fputc('}', out);
	}
	fputs(i ? "\n],\n" : "],\n", out);
	json_points(out, c, top, m);
	fputs(",\n\"no_stack\": {\"a\": ", out);
	json_stats(out, &c->no_stack[0]);
	fputs(", \"b\": ", out);
	json_stats(out, &c->no_stack[1]);
	fputc('}', out);
	if (gate->on) {
		fputs(",\n\"fail_on_increase\": ", out);
		increase_gate_json(out, gate, c);
	}
	fputs("}\n", out);
}

/* flamegraph.pl's differential input: each chain, then A's value and B's. */
static void
print_folded(FILE *out, const struct chains *c, enum site_metric m)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		uint64_t a = site_figure(&c->v[i].side[0], m), b = site_figure(&c->v[i].side[1], m);

		if (a || b)
			fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", c->v[i].name, a, b);
	}
}

void
diff_svg(FILE *out, const struct chains *c, enum site_metric m)
{
	struct flame_chain *fc = xreallocarray(NULL, c->n ? c->n : 1, sizeof(*fc));
	size_t i;

	for (i = 0; i < c->n; i++) {
		fc[i].name = c->v[i].name;
		fc[i].a = site_figure(&c->v[i].side[0], m);
		fc[i].b = site_figure(&c->v[i].side[1], m);
	}
	flamegraph_diff_svg(out, fc, c->n, m, "memsup diff");
	free(fc);
}

/*
 * --fail-on-increase's exit status, its verdict said: a capture cut
 * short or that lost records has figures that are not the run's, on
 * which a gate can neither pass nor fail.
 */
static int
gate_verdict(const struct increase_gate *gate, const struct chains *c,
	     const struct replay *p, char *const *files)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (!replay_cut(&p[i]) && !replay_incomplete(&p[i]))
			continue;
		error_msg("diff: %s is %s: its figures are not the run's, so "
			  "--fail-on-increase cannot decide", files[i],
			  replay_cut(&p[i]) ? "cut short" : "incomplete (records or "
			  "calls lost, or processes untraced)");
		return MS_EXIT_FAILURE;
	}
	increase_gate_print(stderr, gate, c);
	return gate->failed ? MS_EXIT_OVER_LIMIT : 0;
}

int
diff_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "metric", required_argument, NULL, 'm' },
		{ "debug-dir", required_argument, NULL, 'g' },
		{ "full-names", no_argument, NULL, 'F' },
		{ "strict", no_argument, NULL, 's' },
		{ "fail-on-increase", required_argument, NULL, 'I' },
		{ "pid", required_argument, NULL, 'p' },
		{ "command", required_argument, NULL, 'c' },
		{ "by", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum report_format format = REPORT_TEXT;
	enum site_metric metric = METRIC_PEAK;
	const char *debug_dir = NULL;
	bool full_names = false, strict = false, by_chain = false;
	struct replay p[2];
	struct chains c = { 0 };
	struct increase_gate gate = { 0 };
	struct heap_filter filter = { 0 };
	unsigned long top = 10;
	size_t i, read = 0;
	int opt, ret = 0;

	/* Options anywhere, as GNU tools take them; 0 starts getopt afresh. */
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:f:m:h", options, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (!report_top_parse("diff", optarg, &top))
				return MS_EXIT_FAILURE;
			break;
		case 'f':
			if (!report_format_parse("diff", optarg, REPORT_FORMAT(REPORT_TEXT) |
						 REPORT_FORMAT(REPORT_JSON) |
						 REPORT_FORMAT(REPORT_FOLDED) |
						 REPORT_FORMAT(REPORT_SVG) |
						 REPORT_FORMAT(REPORT_HTML), &format))
				return MS_EXIT_FAILURE;
			break;
		case 'm':
			if (!report_metric_parse("diff", optarg, &metric))
				return MS_EXIT_FAILURE;
			break;
		case 'g':
			debug_dir = optarg;
			break;
		case 'F':
			full_names = true;
			break;
		case 's':
			strict = true;
			break;
		case 'p':
			if (!report_pid_parse("diff", optarg, &filter))
				return MS_EXIT_FAILURE;
			break;
		case 'c':
			if (!report_command_parse("diff", optarg, &filter))
				return MS_EXIT_FAILURE;
			break;
		case 'b':
			if (!report_by_parse("diff", optarg, &by_chain))
				return MS_EXIT_FAILURE;
			break;
		case 'I':
			if (!increase_gate_parse(optarg, &gate)) {
				error_msg("diff: --fail-on-increase takes a percentage and "
					  "a metric (peak, leaked, allocated, count or "
					  "temporary) such as 10 or 2.5,leaked, not '%s'",
					  optarg);
				return MS_EXIT_FAILURE;
			}
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage_hint("diff");
			return MS_EXIT_FAILURE;
		}
	}
	if (argc - optind != 2) {
		error_msg("diff: two capture files are needed, A and B");
		usage_hint("diff");
		return MS_EXIT_FAILURE;
	}
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-")) {
		error_msg("diff: standard input can be A or B, not both");
		usage_hint("diff");
		return MS_EXIT_FAILURE;
	}

	for (i = 0; i < 2 && !ret; i++, read++) {
		ret = replay_read(&p[i], argv[optind + i], debug_dir, strict, &filter,
				  NULL, NULL);
		if (!ret && !report_filter_matched("diff", argv[optind + i], &p[i].heap))
			ret = MS_EXIT_FAILURE;
		p[i].symbolizer.full_names = full_names;
	}
	if (!ret) {
		warn_different_builds(p, argv + optind);
		add_sites(&c, &p[0], 0);
		add_sites(&c, &p[1], 1);
		merge_chains(&c);
		if (c.n)	/* qsort_r may not be given NULL */
			qsort_r(c.v, c.n, sizeof(*c.v), by_change, &metric);
		if (gate.on)
			increase_gate_apply(&gate, p);
		if (format == REPORT_JSON)
			print_json(stdout, &c, p, top, metric, &gate);
		else if (format == REPORT_FOLDED)
			print_folded(stdout, &c, metric);
		else if (format == REPORT_SVG)
			diff_svg(stdout, &c, metric);
		else if (format == REPORT_HTML)
			diff_html(stdout, &c, p, top, metric, by_chain);
		else
			print_text(stdout, &c, p, argv + optind, top, metric, by_chain);
		if (replay_cut(&p[0]) || replay_cut(&p[1]))
			ret = MS_EXIT_CUT;
		if (gate.on)
			ret = gate_verdict(&gate, &c, p, argv + optind);
	} else if (gate.on) {
		/* 1 says the metric grew: a capture that cannot be read is 125. */
		ret = MS_EXIT_FAILURE;
	}
	for (i = 0; i < c.n; i++) {
		free(c.v[i].name);
		free(c.v[i].sources);
		free(c.v[i].point);
	}
	free(c.v);
	for (i = 0; i < read; i++)
		replay_close(&p[i]);
	if (fflush(stdout) && !ret) {
		perror_msg("cannot write the diff");
		ret = MS_EXIT_FAILURE;
	}
	return ret;
}
