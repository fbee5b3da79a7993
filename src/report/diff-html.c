// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memsup diff --format=html: one self-contained page with the whole
 * tree's totals, the regions, the differential flame graph and the chains
 * that changed most, each figure as A, B and the change.
 */
#include "config.h"
#include "diff.h"
#include "error.h"
#include "flamegraph.h"
#include "heap.h"
#include "human-numbers.h"
#include "markup.h"
#include "replay.h"
#include "report-html.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * A change from a to b, a != b: "+25%", "-100%", or "new" when A had
 * none; one decimal under 10%.
 */
static void
percent(char *buf, size_t size, uint64_t a, uint64_t b)
{
	double p;

	if (!a) {
		snprintf(buf, size, "new");
		return;
	}
	p = 100.0 * (b > a ? (double)(b - a) : (double)(a - b)) / (double)a;
	snprintf(buf, size, p < 10 ? "%s%.1f%%" : "%s%.0f%%", b > a ? "+" : "-", p);
}

/* "+2,000 (+17%)", "+1.5 KiB (+3.0%)", or "same". */
static const char *
change_text(char *buf, size_t size, enum diff_unit unit, uint64_t a, uint64_t b)
{
	char hd[HUMAN_MAX], pct[32];

	if (a == b)
		return "same";
	percent(pct, sizeof(pct), a, b);
	snprintf(buf, size, "%s%s (%s)", b > a ? "+" : "-",
		 diff_figure(hd, unit, b > a ? b - a : a - b), pct);
	return buf;
}

/* One figure of a chain in one cell: "A -> B" over its change. */
static void
chain_cell(void *out, const char *name, enum diff_unit unit, uint64_t a, uint64_t b)
{
	char ha[HUMAN_MAX], hb[HUMAN_MAX], change[2 * HUMAN_MAX];

	fprintf(out, "<td><span class=\"ab\">%s &rarr; %s</span><br>"
		"<span class=\"change\">%s</span></td>", diff_figure(ha, unit, a),
		diff_figure(hb, unit, b), change_text(change, sizeof(change), unit, a, b));
}

static void
chain_heading(void *out, const char *name, enum diff_unit unit, uint64_t a, uint64_t b)
{
	fprintf(out, "<th>%s<br>A &rarr; B</th>", name);
}

/* A, B and the change, a cell each. */
static void
change_cells(FILE *out, enum diff_unit unit, uint64_t a, uint64_t b)
{
	char ha[HUMAN_MAX], hb[HUMAN_MAX], change[2 * HUMAN_MAX];

	fprintf(out, "<td>%s</td><td>%s</td><td>%s</td>", diff_figure(ha, unit, a),
		diff_figure(hb, unit, b), change_text(change, sizeof(change), unit, a, b));
}

static void
tree_row(void *out, const char *name, enum diff_unit unit, uint64_t a, uint64_t b)
{
	fprintf(out, "<tr><td class=\"l\">%s</td>", name);
	change_cells(out, unit, a, b);
	fputs("</tr>\n", out);
}

static void
print_tree(FILE *out, const struct heap_stats *a, const struct heap_stats *b)
{
	fputs("<h2>Whole tree</h2>\n<table id=\"tree\">\n<tr><th class=\"l\">figure</th>"
	      "<th>A</th><th>B</th><th>change</th></tr>\n", out);
	diff_foreach_tree_figure(a, b, tree_row, out);
	fputs("</table>\n", out);
}

static void
region_row(void *out, const char *name, const struct region_stats *a,
	   const struct region_stats *b)
{
	fputs("<tr><td class=\"l\">", out);
	markup_text(out, name, SIZE_MAX);
	fputs("</td>", out);
	change_cells(out, DIFF_COUNT, a->entries, b->entries);
	change_cells(out, DIFF_COUNT, a->allocs, b->allocs);
	change_cells(out, DIFF_BYTES, a->bytes_allocated, b->bytes_allocated);
	change_cells(out, DIFF_BYTES, a->peak_bytes, b->peak_bytes);
	fputs("</tr>\n", out);
}

static void
print_regions(FILE *out, const struct replay *p)
{
	static const char *const figures[] = { "entries", "allocations", "bytes", "peak" };
	size_t i;

	if (!p[0].heap.regions.nregions && !p[1].heap.regions.nregions)
		return;
	fputs("<h2>Regions</h2>\n<table id=\"regions\">\n<tr><th class=\"l\">region</th>", out);
	for (i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
		fprintf(out, "<th>%s A</th><th>B</th><th>change</th>", figures[i]);
	fputs("</tr>\n", out);
	diff_foreach_region(p, region_row, out);
	fputs("</table>\n", out);
}

/*
 * The chain comes second, after its rank, and each figure takes one cell:
 * with three cells a figure the table was 16 columns, and the chain was
 * off the right of a 1400-pixel screen.
 */
/* The names of ch from the from-th to before the to-th, innermost first, a line each. */
static void
print_names(FILE *out, const struct chain *ch, size_t from, size_t to)
{
	const char *frame, *end = NULL, *where, *where_end = NULL;
	char name[1024];
	size_t len, where_len, i;

	for (i = 0; i < to && (frame = diff_prev_frame(ch->name, &end, &len)); i++) {
		where = diff_prev_frame(ch->sources, &where_end, &where_len);
		if (i < from)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)len, frame);
		fputs(i > from ? "<br>" : "", out);
		markup_text(out, name, SIZE_MAX);
		if (where && where_len) {
			snprintf(name, sizeof(name), " (%.*s)", (int)where_len, where);
			markup_text(out, name, SIZE_MAX);
		}
	}
}

/* The table's head: what a row's names are, then each figure. */
static void
print_head(FILE *out, const char *id, const char *names)
{
	static const struct site_figures none;

	fprintf(out, "<table id=\"%s\" class=\"sites\">\n<tr><th>#</th>"
		"<th class=\"l\">%s, innermost first</th>", id, names);
	diff_foreach_chain_figure(&none, &none, chain_heading, out);
	fputs("</tr>\n", out);
}

/* --by=chain: a row per chain that changed. */
static void
print_chains(FILE *out, const struct chains *c, size_t top, enum site_metric m)
{
	size_t i;

	fprintf(out, "<h2>Chains by change in %s</h2>\n", site_metric_title(m));
	print_head(out, "chains", "call chain");
	for (i = 0; i < c->n && i < top && diff_change(&c->v[i], m); i++) {
		fprintf(out, "<tr><td>%zu</td><td class=\"chain\">", i + 1);
		print_names(out, &c->v[i], 0, SIZE_MAX);
		fputs("</td>", out);
		diff_foreach_chain_figure(&c->v[i].side[0], &c->v[i].side[1], chain_cell, out);
		fputs("</tr>\n", out);
	}
	fputs(i ? "</table>\n" : "</table>\n<p>None changed.</p>\n", out);
}

/*
 * A row per allocation point that changed: its frame, then each of its
 * chains that changed, its rank and callers, as the text diff lists them.
 */
static void
print_points(FILE *out, const struct chains *c, size_t top, enum site_metric m)
{
	size_t i, j, count, listed, from;
	struct diff_point *v = diff_points(c, m, &count);

	fprintf(out, "<h2>Allocation points by change in %s</h2>\n", site_metric_title(m));
	print_head(out, "points", "allocation point and its callers");
	for (i = 0; i < count && i < top && diff_point_change(&v[i], m); i++) {
		const struct chain *first = &c->v[v[i].chains[0]];

		from = first->inner - diff_names_in(v[i].name);
		fprintf(out, "<tr><td>%zu</td><td class=\"chain\">", i + 1);
		print_names(out, first, from, v[i].nchains == 1 ? SIZE_MAX : first->inner);
		for (j = 0, listed = 0; v[i].nchains > 1 && j < v[i].nchains && listed < top; j++) {
			const struct chain *ch = &c->v[v[i].chains[j]];

			if (!diff_change(ch, m))
				continue;
			fprintf(out, "<br><i>from %zu.%zu</i><br>", i + 1, ++listed);
			print_names(out, ch, ch->inner, SIZE_MAX);
		}
		fputs("</td>", out);
		diff_foreach_chain_figure(&v[i].side[0], &v[i].side[1], chain_cell, out);
		fputs("</tr>\n", out);
	}
	fputs(i ? "</table>\n" : "</table>\n<p>None changed.</p>\n", out);
	diff_points_free(v, count);
}

static void
print_no_stack(FILE *out, const struct chains *c)
{
	const struct site_figures *a = &c->no_stack[0], *b = &c->no_stack[1];

	if (!a->allocs && !b->allocs)
		return;
	fputs("<h2>Without a call stack, so in no chain</h2>\n<table id=\"no-stack\">\n"
	      "<tr><th class=\"l\">figure</th><th>A</th><th>B</th><th>change</th></tr>\n", out);
	diff_foreach_chain_figure(a, b, tree_row, out);
	fputs("</table>\n", out);
}

void
diff_html(FILE *out, const struct chains *c, const struct replay *p, size_t top,
	  enum site_metric m, bool by_chain)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>memsup diff</title>\n<style>\n", out);
	fputs(report_html_style, out);
	fputs("</style>\n</head>\n<body>\n<h1>memsup diff</h1>\n<p class=\"command\">A: ", out);
	markup_text(out, replay_command(&p[0]), SIZE_MAX);
	fputs("</p>\n<p class=\"command\">B: ", out);
	markup_text(out, replay_command(&p[1]), SIZE_MAX);
	fputs("</p>\n", out);
	print_tree(out, &p[0].heap.tree, &p[1].heap.tree);
	print_regions(out, p);
	fputs("<h2>Flame graph</h2>\n", out);
	diff_svg(out, c, m);
	if (by_chain)
		print_chains(out, c, top, m);
	else
		print_points(out, c, top, m);
	print_no_stack(out, c);
	fputs("</body>\n</html>\n", out);
}
