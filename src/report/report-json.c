// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "report-json.h"
#include "points.h"
#include "capture.h"
#include "heap.h"
#include "json.h"
#include "report-sites.h"
#include "sites.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/wait.h>

/* The schema's version: doc/report-json.md says what changes it. */
#define REPORT_JSON_VERSION 3

static void
print_sizes(FILE *out, const struct heap_stats *st)
{
	unsigned int k;
	const char *sep = "";

	fputs("\"sizes\": [", out);
	for (k = 0; k < HEAP_SIZE_CLASSES; k++) {
		uint64_t low = k ? UINT64_C(1) << (k - 1) : 0;

		if (!st->size_classes[k])
			continue;
		fprintf(out, "%s{\"min\": %" PRIu64 ", \"max\": %" PRIu64
			", \"allocations\": %" PRIu64 "}", sep, low, k ? low * 2 - 1 : 0,
			st->size_classes[k]);
		sep = ", ";
	}
	fputc(']', out);
}

static void
print_stats(FILE *out, const struct heap_stats *st)
{
	fprintf(out, "{\"allocations\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64
		", \"frees\": %" PRIu64 ", \"temporary\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 ", \"peak_time_s\": %.9f"
		", \"leaked_bytes\": %" PRIu64 ", \"leaked_blocks\": %" PRIu64
		", \"unknown_frees\": %" PRIu64 ", \"failed_calls\": %" PRIu64 ", ",
		st->allocs, st->bytes_allocated, st->frees, st->temporary,
		st->peak_bytes, (double)st->peak_time_ns / 1e9, st->leaked_bytes,
		st->leaked_blocks, st->unknown_frees, st->failed_calls);
	print_sizes(out, st);
	fputc('}', out);
}

static void
print_process(FILE *out, const struct heap_process *p)
{
	fprintf(out, "{\"pid\": %" PRIu32 ", \"parent\": %" PRIu32 ", \"image\": ",
		p->pid, p->parent);
	json_string(out, p->image);
	if (!p->exited)
		fprintf(out, ", \"state\": \"%s\"", p->untraced ? "untraced" : "running");
	else if (WIFSIGNALED(p->wait_status))
		fprintf(out, ", \"state\": \"killed\", \"signal\": %d",
			WTERMSIG(p->wait_status));
	else
		fprintf(out, ", \"state\": \"exited\", \"exit_code\": %d",
			WEXITSTATUS(p->wait_status));
	fputs(", \"stats\": ", out);
	print_stats(out, &p->stats);
	fputc('}', out);
}

/* The functions of one frame, innermost first, each a frame object. */
static void
print_frame(FILE *out, const struct sites *s, struct symbolizer *z, uint64_t frame,
	    const char *sep)
{
	uint32_t module = SITE_FRAME_MODULE(frame);
	struct frame_name f;
	size_t k, nk;
	uint8_t i;

	for (k = 0, nk = 1; k < nk; k++, sep = ", ") {
		nk = frame_describe(z, s, frame, k, &f);
		fprintf(out, "%s{\"function\": ", sep);
		json_string(out, f.function);
		if (f.inlined)
			fputs(", \"inlined\": true, \"offset\": null", out);
		else
			fprintf(out, ", \"inlined\": false, \"offset\": %" PRIu64, f.offset);
		fputs(", \"source\": ", out);
		json_string(out, f.where[0] ? f.where : NULL);
		fputs(", \"file\": ", out);
		json_string(out, module ? f.path : NULL);
		fprintf(out, ", \"file_offset\": %" PRIu64 ", \"build_id\": ",
			SITE_FRAME_OFFSET(frame));
		if (module && s->spaces.modules[module - 1].build_id_len) {
			const struct space_module *m = &s->spaces.modules[module - 1];

			fputc('"', out);
			for (i = 0; i < m->build_id_len; i++)
				fprintf(out, "%02x", m->build_id[i]);
			fputc('"', out);
		} else {
			fputs("null", out);
		}
		fputc('}', out);
	}
}

static void
print_site(FILE *out, const struct heap_model *h, const struct sites *s,
	   struct symbolizer *z, uint32_t site)
{
	const struct heap_site *st = &h->sites[site];
	const uint64_t *frames;
	uint32_t n = 0, i;

	fprintf(out, "{\"allocations\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 ", \"leaked_bytes\": %" PRIu64
		", \"leaked_blocks\": %" PRIu64 ", \"temporary\": %" PRIu64
		", \"suppressed\": %s, \"frames\": [", st->allocs, st->bytes_allocated,
		heap_site_peak_bytes(h, site), st->leaked_bytes, st->leaked_blocks,
		st->temporary, st->suppressed ? "true" : "false");
	frames = sites_frames(s, site, &n);
	for (i = 0; frames && i < n; i++)
		print_frame(out, s, z, frames[i], i ? ", " : "");
	fputs("]}", out);
}

/* The first n of the count sites of order (freed), as a named array. */
static void
print_sites(FILE *out, const char *name, const struct heap_model *h,
	    const struct sites *s, struct symbolizer *z, size_t n, uint32_t *order,
	    size_t count)
{
	size_t i;

	fprintf(out, "\"%s\": [", name);
	for (i = 0; i < count && i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		print_site(out, h, s, z, order[i]);
	}
	fputs(count && n ? "\n  ]" : "]", out);
	free(order);
}

static void
print_ranking(FILE *out, const char *name, const struct heap_model *h,
	      const struct sites *s, struct symbolizer *z, size_t n, enum site_metric m)
{
	size_t count;
	uint32_t *order = sites_ranked(h, m, &count);

	print_sites(out, name, h, s, z, n, order, count);
}

/* A point: its figures, its frame's functions, its n largest chains. */
static void
print_point(FILE *out, const struct heap_model *h, const struct sites *s,
	    struct symbolizer *z, size_t n, const struct point *p)
{
	struct site_totals t;
	size_t i;

	point_totals(&t, h, p);
	fprintf(out, "{\"allocations\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 ", \"leaked_bytes\": %" PRIu64
		", \"leaked_blocks\": %" PRIu64 ", \"temporary\": %" PRIu64
		", \"chains_in_all\": %zu, \"frames\": [", t.allocs, t.bytes_allocated,
		t.peak_bytes, t.leaked_bytes, t.leaked_blocks, t.temporary, p->nsites);
	if (p->stack)
		print_frame(out, s, z, p->frame, "");
	fputs("], \"chains\": [", out);
	for (i = 0; i < p->nvalued && i < n; i++) {
		fputs(i ? ",\n      " : "\n      ", out);
		print_site(out, h, s, z, p->sites[i]);
	}
	fputs(i ? "\n    ]}" : "]}", out);
}

static void
print_points(FILE *out, const char *name, const struct heap_model *h,
	     const struct sites *s, struct symbolizer *z, size_t n, enum site_metric m)
{
	size_t i, count;
	struct point *v = points_ranked(h, s, m, &count);

	fprintf(out, "\"%s\": [", name);
	for (i = 0; i < count && i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		print_point(out, h, s, z, n, &v[i]);
	}
	fputs(i ? "\n  ]" : "]", out);
	points_free(v, count);
}

/* The tree's leaks, the program's apart from the suppressed ones. */
static void
print_leaks(FILE *out, const struct heap_model *h, const struct suppressed_leaks *t)
{
	fprintf(out, "\"leaks\": {\"bytes\": %" PRIu64 ", \"blocks\": %" PRIu64
		", \"suppressed_bytes\": %" PRIu64 ", \"suppressed_blocks\": %" PRIu64
		", \"suppressed_sites\": %" PRIu64 "},\n", h->tree.leaked_bytes - t->bytes,
		h->tree.leaked_blocks - t->blocks, t->bytes, t->blocks, t->sites);
}

static void
print_regions(FILE *out, const struct region_table *t)
{
	size_t i;

	fputs("\"regions\": [", out);
	for (i = 0; i < t->nregions; i++) {
		const struct region_stats *r = &t->regions[i];

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		json_string(out, r->name);
		fprintf(out, ", \"entries\": %" PRIu64 ", \"allocations\": %" PRIu64
			", \"bytes_allocated\": %" PRIu64 ", \"peak_bytes\": %" PRIu64
			", \"unmatched_ends\": %" PRIu64 ", \"left_open\": %" PRIu64 "}",
			r->entries, r->allocs, r->bytes_allocated, r->peak_bytes,
			r->unmatched_ends, r->left_open);
	}
	fputs(t->nregions ? "\n],\n" : "],\n", out);
}

void
report_json(FILE *out, const char *command, const struct heap_model *h,
	    const struct capture_end *end, const struct sites *s,
	    struct symbolizer *z, size_t n)
{
	struct suppressed_leaks hidden;
	size_t i, nsuppressed;
	uint32_t *suppressed;

	fprintf(out, "{\"memsup_report\": %d,\n\"command\": ", REPORT_JSON_VERSION);
	json_string(out, command);
	fputs(",\n\"filter\": {\"pid\": ", out);
	if (h->filter.pid)
		fprintf(out, "%" PRIu32, h->filter.pid);
	else
		fputs("null", out);
	fputs(", \"command\": ", out);
	json_string(out, h->filter.command);
	fputs("},\n\"tree\": ", out);
	print_stats(out, &h->tree);
	fputs(",\n\"processes\": [", out);
	for (i = 0; i < h->nprocs; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		print_process(out, h->procs[i]);
	}
	fprintf(out, "%s],\n\"loss\": {\"lost_records\": %" PRIu64
		", \"lost_calls\": %" PRIu64 ", \"untraced_processes\": %" PRIu64
		", \"unstoppable_processes\": %" PRIu64 ", \"stacks_left_out\": %" PRIu64
		", \"pressure_stops\": %" PRIu64 ", \"pressure_timeout\": %s"
		", \"vanished_threads\": %" PRIu64 ", \"interrupted\": %s},\n",
		h->nprocs ? "\n" : "", end->lost_records, end->lost_calls,
		end->untraced_processes, end->unstoppable_processes,
		end->dropped_stacks, end->pressure_stops,
		end->flags & CAPTURE_END_PRESSURE_TIMEOUT ? "true" : "false",
		end->vanished_threads,
		end->flags & CAPTURE_END_INTERRUPTED ? "true" : "false");
	if (end->cut)
		fprintf(out, "\"cut\": {\"records\": %" PRIu64 ", \"covered_s\": %.6f},\n",
			end->records, (double)end->last_ns / 1e9);
	else
		fputs("\"cut\": null,\n", out);
	suppressed = sites_suppressed(h, &hidden, &nsuppressed);
	print_leaks(out, h, &hidden);
	print_regions(out, &h->regions);
	fputs("\"top_sites\": {\n  ", out);
	print_ranking(out, "peak", h, s, z, n, METRIC_PEAK);
	fputs(",\n  ", out);
	print_ranking(out, "leaked", h, s, z, n, METRIC_LEAKED);
	fputs(",\n  ", out);
	print_sites(out, "leaked_suppressed", h, s, z, n, suppressed, nsuppressed);
	fputs(",\n  ", out);
	print_ranking(out, "allocations", h, s, z, n, METRIC_COUNT);
	fputs(",\n  ", out);
	print_ranking(out, "temporary", h, s, z, n, METRIC_TEMPORARY);
	fputs("\n},\n\"top_points\": {\n  ", out);
	print_points(out, "peak", h, s, z, n, METRIC_PEAK);
	fputs(",\n  ", out);
	print_points(out, "leaked", h, s, z, n, METRIC_LEAKED);
	fputs(",\n  ", out);
	print_points(out, "allocations", h, s, z, n, METRIC_COUNT);
	fputs(",\n  ", out);
	print_points(out, "temporary", h, s, z, n, METRIC_TEMPORARY);
	fputs("\n}}\n", out);
}
