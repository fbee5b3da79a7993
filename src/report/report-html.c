// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --format=html: one self-contained page: the summary, the live heap
 * over time for the tree and its largest processes with the peak marked,
 * the flame graph, the processes, and the top sites.  The chart is SVG
 * drawn here; the only script is the flame graph's.
 */
#include "config.h"
#include "report-html.h"
#include "points.h"
#include "capture.h"
#include "error.h"
#include "flamegraph.h"
#include "heap.h"
#include "human-numbers.h"
#include "markup.h"
#include "report-sites.h"
#include "report-text.h"
#include "sites.h"
#include "timeline.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CHART_WIDTH	1200
#define CHART_HEIGHT	320
#define CHART_LEFT	90	/* room for the byte labels */
#define CHART_BOTTOM	30	/* room for the time labels */
#define CHART_PROCESSES	8	/* drawn besides the tree: the largest peaks */
#define PROCESSES_LISTED	50	/* in all, the others behind a <details> */

const char report_html_style[] =
	"body { font-family: sans-serif; margin: 20px; color: #222; }\n"
	"table { border-collapse: collapse; margin-bottom: 1em; }\n"
	"th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }\n"
	"th { background: #eee; } td.l, th.l { text-align: left; }\n"
	"td.chain { font-family: monospace; font-size: 12px; text-align: left; }\n"
	"p.command { font-family: monospace; }\n";

static const char *const colours[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
};

static void
stats_cells(FILE *out, const struct heap_stats *st)
{
	char a[HUMAN_MAX], b[HUMAN_MAX], c[HUMAN_MAX], d[HUMAN_MAX], e[HUMAN_MAX],
	     f[HUMAN_MAX], g[HUMAN_MAX];

	fprintf(out, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.6f</td>"
		"<td>%s</td><td>%s</td>", human_count(a, st->allocs),
		human_bytes(b, st->bytes_allocated), human_count(c, st->frees),
		human_count(d, st->temporary), human_bytes(e, st->peak_bytes),
		(double)st->peak_time_ns / 1e9, human_bytes(f, st->leaked_bytes),
		human_count(g, st->leaked_blocks));
}

static void
process_header(FILE *out, const char *id)
{
	fprintf(out, "<table id=\"%s\">\n<tr><th class=\"l\">process</th>"
		"<th class=\"l\">program</th><th class=\"l\">ended</th><th>allocations</th>"
		"<th>bytes allocated</th><th>frees</th><th>temporary</th><th>peak live heap</th>"
		"<th>peak at (s)</th><th>leaked bytes</th><th>leaked blocks</th></tr>\n", id);
}

static void
process_row(FILE *out, const struct heap_process *p)
{
	char state[64];

	fprintf(out, "<tr><td class=\"l\">%" PRIu32 "</td><td class=\"l\">", p->pid);
	markup_text(out, p->image ? p->image : "?", SIZE_MAX);
	fputs("</td><td class=\"l\">", out);
	markup_text(out, p->exited ? describe_wait_status(p->wait_status, state, sizeof(state))
		    : p->untraced ? "not traced" : "still running", SIZE_MAX);
	fputs("</td>", out);
	stats_cells(out, &p->stats);
	fputs("</tr>\n", out);
}

/* The tree's figures, or its one process's, and what the capture lost. */
static void
print_summary(FILE *out, const struct heap_model *h, const struct capture_end *end)
{
	char n[6][HUMAN_MAX];

	fputs("<h2>Summary</h2>\n", out);
	process_header(out, "summary");
	if (h->nprocs == 1) {
		process_row(out, h->procs[0]);
	} else {
		fputs("<tr><td class=\"l\">whole tree</td><td class=\"l\"></td>"
		      "<td class=\"l\"></td>", out);
		stats_cells(out, &h->tree);
		fputs("</tr>\n", out);
	}
	if (end->cut) {
		fprintf(out, "</table>\n<p id=\"losses\">Cut short: the capture ends after "
			"record %s, %.3f s into the run; what came later, losses included, "
			"is unknown.</p>\n", human_count(n[0], end->records),
			(double)end->last_ns / 1e9);
		return;
	}
	fprintf(out, "</table>\n<p id=\"losses\">%s record%s lost, %s call%s lost, %s "
		"process%s untraced, %s process%s unstoppable, %s stack%s left out, %s "
		"pressure stop%s.</p>\n", human_count(n[0], end->lost_records),
		plural(end->lost_records), human_count(n[1], end->lost_calls),
		plural(end->lost_calls), human_count(n[2], end->untraced_processes),
		end->untraced_processes == 1 ? "" : "es",
		human_count(n[3], end->unstoppable_processes),
		end->unstoppable_processes == 1 ? "" : "es",
		human_count(n[4], end->dropped_stacks), plural(end->dropped_stacks),
		human_count(n[5], end->pressure_stops), plural(end->pressure_stops));
}

/*
 * A tree's processes, after the charts, which a large tree's table would
 * push off the first screen: the largest peaks in view, as many as the
 * text summary lists, the others behind a <details> that needs no script.
 */
static void
print_processes(FILE *out, const struct heap_model *h, const struct heap_process **order)
{
	char n[HUMAN_MAX];
	size_t i;

	if (h->nprocs < 2)
		return;
	fputs("<h2>Processes, largest peak first</h2>\n", out);
	process_header(out, "processes");
	for (i = 0; i < h->nprocs && i < SUMMARY_PROCESSES; i++)
		process_row(out, order[i]);
	fputs("</table>\n", out);
	if (h->nprocs <= SUMMARY_PROCESSES)
		return;
	fprintf(out, "<details id=\"more-processes\">\n<summary>%s more processes</summary>\n",
		human_count(n, h->nprocs - SUMMARY_PROCESSES));
	process_header(out, "other-processes");
	for (; i < h->nprocs && i < PROCESSES_LISTED; i++)
		process_row(out, order[i]);
	if (h->nprocs > PROCESSES_LISTED)
		fprintf(out, "<tr><td class=\"l\" colspan=\"11\">%s more processes with "
			"smaller peaks</td></tr>\n", human_count(n, h->nprocs - PROCESSES_LISTED));
	fputs("</table>\n</details>\n", out);
}

/* Only when the workload marked regions (memsup/region.h). */
static void
print_regions(FILE *out, const struct region_table *t)
{
	char n[6][HUMAN_MAX];
	size_t i;

	if (!t->nregions)
		return;
	fputs("<h2>Regions</h2>\n<table id=\"regions\">\n<tr><th class=\"l\">region</th>"
	      "<th>entries</th><th>allocations</th><th>bytes allocated</th>"
	      "<th>peak rise</th><th>ends without a begin</th><th>left open</th></tr>\n",
	      out);
	for (i = 0; i < t->nregions; i++) {
		const struct region_stats *r = &t->regions[i];

		fputs("<tr><td class=\"l\">", out);
		markup_text(out, r->name, SIZE_MAX);
		fprintf(out, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
			"<td>%s</td></tr>\n", human_count(n[0], r->entries),
			human_count(n[1], r->allocs), human_bytes(n[2], r->bytes_allocated),
			human_bytes(n[3], r->peak_bytes), human_count(n[4], r->unmatched_ends),
			human_count(n[5], r->left_open));
	}
	fputs("</table>\n", out);
}

/* The last slot anything happened in, + 1. */
static size_t
slots_used(const struct timeline *t)
{
	size_t n = TIMELINE_SLOTS;

	while (n > 0 && t->series[0]->max[n - 1] == TIMELINE_EMPTY)
		n--;
	return n;
}

static void
polyline(FILE *out, const struct timeline_series *s, size_t used, uint64_t top,
	 const char *colour, double width, const char *id)
{
	double plot_w = CHART_WIDTH - CHART_LEFT - 10, plot_h = CHART_HEIGHT - CHART_BOTTOM - 10;
	uint64_t last = TIMELINE_EMPTY;
	size_t i;

	fprintf(out, "<polyline id=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
		"points=\"", id, colour, width);
	for (i = 0; i < used; i++) {
		double x0 = CHART_LEFT + plot_w * (double)i / (double)used;
		double x1 = CHART_LEFT + plot_w * (double)(i + 1) / (double)used;

		if (s->max[i] != TIMELINE_EMPTY)
			last = s->max[i];
		if (last == TIMELINE_EMPTY)
			continue;
		/* A step: the slot's largest value across the slot. */
		fprintf(out, "%.1f,%.1f %.1f,%.1f ", x0,
			10 + plot_h * (1 - (double)last / (double)top), x1,
			10 + plot_h * (1 - (double)last / (double)top));
	}
	fputs("\"/>\n", out);
}

static void
print_chart(FILE *out, const struct heap_model *h, const struct timeline *t,
	    const struct heap_process **order)
{
	double plot_w = CHART_WIDTH - CHART_LEFT - 10, plot_h = CHART_HEIGHT - CHART_BOTTOM - 10;
	size_t used = slots_used(t), i, k, drawn = 0;
	uint64_t top = h->tree.peak_bytes ? h->tree.peak_bytes : 1;
	double span_s = (double)used * (double)t->slot_ns / 1e9, px, py;
	char id[32], size[HUMAN_MAX];
	bool label_end;

	fputs("<h2>Heap over time</h2>\n", out);
	if (!used) {
		fputs("<p>No allocation.</p>\n", out);
		return;
	}
	fprintf(out, "<svg id=\"heap-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#fff\"/>\n<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n",
		CHART_WIDTH, CHART_HEIGHT, CHART_LEFT, CHART_LEFT, CHART_HEIGHT - CHART_BOTTOM,
		CHART_LEFT, CHART_HEIGHT - CHART_BOTTOM, CHART_WIDTH - 10,
		CHART_HEIGHT - CHART_BOTTOM);
	for (i = 0; i <= 4; i++) {
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			CHART_LEFT - 4, 14 + plot_h * (1 - (double)i / 4),
			human_size(size, top * i / 4));
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.3f s</text>\n",
			CHART_LEFT + plot_w * (double)i / 4, CHART_HEIGHT - 10,
			i == 4 ? "end" : "middle", span_s * (double)i / 4);
	}
	/* The largest processes, then the tree over them. */
	for (i = 0; i < h->nprocs && drawn < CHART_PROCESSES && h->nprocs > 1; i++) {
		for (k = 1; k < t->n; k++) {
			if (t->series[k]->pid != order[i]->pid)
				continue;
			snprintf(id, sizeof(id), "heap-%" PRIu32, order[i]->pid);
			polyline(out, t->series[k], used, top, colours[1 + drawn], 1.2, id);
			drawn++;
			break;
		}
	}
	polyline(out, t->series[0], used, top, colours[0], 2.2, "heap-tree");
	px = CHART_LEFT + plot_w * ((double)h->tree.peak_time_ns / 1e9) / span_s;
	py = 10 + plot_h * (1 - (double)h->tree.peak_bytes / (double)top);
	/*
	 * The label goes on the side of the marker with more room: half the
	 * plot is wider than the longest label, so it never leaves the chart.
	 */
	label_end = px > CHART_LEFT + plot_w / 2;
	fprintf(out, "<circle id=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"none\" "
		"stroke=\"#d62728\" stroke-width=\"2\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"%s\" fill=\"#d62728\">peak: %s at %.6f s</text>\n</svg>\n", px, py,
		label_end ? px - 8 : px + 8, py + 14, label_end ? "end" : "start",
		human_bytes(size, h->tree.peak_bytes), (double)h->tree.peak_time_ns / 1e9);
	fprintf(out, "<p><span style=\"color: %s\">&#9632;</span> whole tree", colours[0]);
	drawn = 0;
	for (i = 0; i < h->nprocs && drawn < CHART_PROCESSES && h->nprocs > 1; i++) {
		fprintf(out, " &#160; <span style=\"color: %s\">&#9632;</span> %" PRIu32 " ",
			colours[1 + drawn++], order[i]->pid);
		markup_text(out, order[i]->image ? order[i]->image : "?", SIZE_MAX);
	}
	fputs("</p>\n", out);
}

/* The frames of site's chain from the from-th to the to-th, innermost first. */
static void
print_frames(FILE *out, const struct sites *s, struct symbolizer *z, uint32_t site,
	     uint32_t from, uint32_t to)
{
	const uint64_t *frames;
	uint32_t nframes = 0, f;

	frames = sites_frames(s, site, &nframes);
	if (!frames)
		fputs("(no stack)", out);
	for (f = from; frames && f < nframes && f <= to; f++) {
		struct frame_name fn;
		size_t k, nk;

		for (k = 0, nk = 1; k < nk; k++) {
			nk = frame_describe(z, s, frames[f], k, &fn);
			if (f > from || k)
				fputs("<br>", out);
			markup_text(out, fn.function ? fn.function
				    : fn.inlined ? "?" : fn.path, SIZE_MAX);
			if (fn.inlined)
				fputs(" (inlined)", out);
			else
				fprintf(out, "+0x%" PRIx64, fn.offset);
			if (fn.where[0]) {
				fputs(" (", out);
				markup_text(out, fn.where, SIZE_MAX);
				fputc(')', out);
			}
		}
	}
}

/* A row's rank and figures, up to its chain's cell. */
static void
print_row_start(FILE *out, size_t rank, const struct site_totals *t)
{
	char v[5][HUMAN_MAX];

	fprintf(out, "<tr><td>%zu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		"<td>%s</td><td class=\"chain\">", rank, human_count(v[0], t->allocs),
		human_bytes(v[1], t->bytes_allocated), human_bytes(v[2], t->peak_bytes),
		human_bytes(v[3], t->leaked_bytes), human_count(v[4], t->temporary));
}

/* --by=chain: a row per site, its whole chain. */
static void
print_chain_rows(FILE *out, const struct heap_model *h, const struct sites *s,
		 struct symbolizer *z, size_t n, const uint32_t *order, size_t count)
{
	size_t i;

	for (i = 0; i < count && i < n; i++) {
		struct site_totals t = { 0 };

		site_totals_add(&t, h, order[i]);
		print_row_start(out, i + 1, &t);
		print_frames(out, s, z, order[i], 0, UINT32_MAX);
		fputs("</td></tr>\n", out);
	}
}

/*
 * A row per allocation point: its frame, then each of its n largest
 * chains' figures and callers; a point of one chain is that chain.
 */
static void
print_point_rows(FILE *out, const struct heap_model *h, const struct sites *s,
		 struct symbolizer *z, size_t n, const struct point *v, size_t count)
{
	char a[HUMAN_MAX], b[HUMAN_MAX];
	size_t i, j;

	for (i = 0; i < count && i < n; i++) {
		const struct point *p = &v[i];
		struct site_totals t;

		point_totals(&t, h, p);
		print_row_start(out, i + 1, &t);
		print_frames(out, s, z, p->sites[0], p->depths[0],
			     p->nsites == 1 ? UINT32_MAX : p->depths[0]);
		for (j = 0; p->nsites > 1 && j < p->nvalued && j < n; j++) {
			struct site_totals one = { 0 };

			site_totals_add(&one, h, p->sites[j]);
			fprintf(out, "<br><i>from %zu.%zu: %s allocation%s, %s live at the "
				"peak</i><br>", i + 1, j + 1, human_count(a, one.allocs),
				plural(one.allocs), human_bytes(b, one.peak_bytes));
			print_frames(out, s, z, p->sites[j], p->depths[j] + 1, UINT32_MAX);
		}
		if (p->nsites > 1 && j < p->nsites)
			fprintf(out, "<br><i>and %s more chains</i>",
				human_count(a, p->nsites - j));
		fputs("</td></tr>\n", out);
	}
}

static void
print_ranking(FILE *out, const struct heap_model *h, const struct sites *s,
	      struct symbolizer *z, size_t n, enum site_metric m, bool by_chain)
{
	struct point *points = NULL;
	uint32_t *order = NULL;
	size_t count;

	if (by_chain)
		order = sites_ranked(h, m, &count);
	else
		points = points_ranked(h, s, m, &count);
	fprintf(out, "<h3>By %s</h3>\n", site_metric_title(m));
	if (!count) {
		fputs("<p>None.</p>\n", out);
	} else {
		fprintf(out, "<table class=\"sites\">\n<tr><th>#</th><th>allocations</th>"
			"<th>bytes</th><th>live at the peak</th><th>leaked bytes</th>"
			"<th>temporary</th><th class=\"l\">%s, innermost first</th></tr>\n",
			by_chain ? "call chain" : "allocation point and its callers");
		if (by_chain)
			print_chain_rows(out, h, s, z, n, order, count);
		else
			print_point_rows(out, h, s, z, n, points, count);
		fputs("</table>\n", out);
	}
	free(order);
	points_free(points, by_chain ? 0 : count);
}

void
report_html(FILE *out, const char *command, const struct heap_model *h,
	    const struct capture_end *end, const struct timeline *t,
	    const struct sites *s, struct symbolizer *z, size_t n, bool by_chain)
{
	const struct heap_process **order = processes_by_peak(h);
	char suppressed[SUPPRESSED_DESCRIBE_MAX];
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>memsup: ", out);
	markup_text(out, command, SIZE_MAX);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>memsup report</h1>\n"
		"<p class=\"command\">", report_html_style);
	markup_text(out, command, SIZE_MAX);
	fputs("</p>\n", out);
	print_summary(out, h, end);
	print_chart(out, h, t, order);
	print_regions(out, &h->regions);
	fputs("<h2>Flame graph</h2>\n", out);
	flamegraph_svg(out, h, s, z, METRIC_PEAK, command);
	print_processes(out, h, order);
	fputs("<h2>Top sites</h2>\n", out);
	for (i = 0; i < SITE_RANKINGS; i++) {
		print_ranking(out, h, s, z, n, site_rankings[i], by_chain);
		if (site_rankings[i] == METRIC_LEAKED &&
		    suppressed_describe(suppressed, sizeof(suppressed), h))
			fprintf(out, "<p>Suppressed: %s.</p>\n", suppressed);
	}
	fputs("</body>\n</html>\n", out);
	free(order);
}
