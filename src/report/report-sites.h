/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's allocation sites: ranked by what they did, and their call
 * chains, symbolized; the text report of the top ones.
 */
#ifndef MEMSUP_REPORT_SITES_H
#define MEMSUP_REPORT_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct heap_model;
struct sites;
struct symbolizer;

/* What a site is ranked by. */
enum site_metric {
	METRIC_PEAK,		/* bytes live at the tree's peak */
	METRIC_LEAKED,		/* bytes live when their process exited */
	METRIC_ALLOCATED,	/* bytes allocated */
	METRIC_COUNT,		/* allocations */
	METRIC_TEMPORARY,	/* temporary allocations */
};

/* What a site's blocks did: what the metrics read. */
struct site_figures {
	uint64_t allocs;
	uint64_t bytes_allocated;
	uint64_t peak_bytes;		/* live at the tree's peak */
	uint64_t leaked_bytes;		/* 0 for a suppressed site */
	uint64_t temporary;
};

/* The rankings the reports list, in their order. */
#define SITE_RANKINGS 4
extern const enum site_metric site_rankings[SITE_RANKINGS];

/* What a ranking by m is called: "bytes live at the peak", "leaked bytes"... */
const char *site_metric_title(enum site_metric m);
/* What --metric calls m: "peak", "leaked", "allocated", "count", "temporary". */
const char *site_metric_name(enum site_metric m);
/* The metric --metric=name asks for; false for other names. */
bool site_metric_parse(const char *name, enum site_metric *m);
void site_figures_of(const struct heap_model *h, uint32_t site, struct site_figures *f);
/* The figure of f that metric m reads. */
uint64_t site_figure(const struct site_figures *f, enum site_metric m);
uint64_t site_metric_value(const struct heap_model *h, uint32_t site, enum site_metric m);
/* The sites whose value is not 0, largest first (to free), and how many. */
uint32_t *sites_ranked(const struct heap_model *h, enum site_metric m, size_t *count);

/* What the suppressed sites (heap_site.suppressed) leaked. */
struct suppressed_leaks {
	uint64_t bytes;
	uint64_t blocks;
	uint64_t sites;
};
/* The suppressed sites, largest leak first (to free), and what they leaked. */
uint32_t *sites_suppressed(const struct heap_model *h, struct suppressed_leaks *total,
			   size_t *count);
#define SUPPRESSED_DESCRIBE_MAX 160
/*
 * What the suppressed sites leaked, "71.0 KiB (72,704 bytes) in 1 block
 * from 1 site", into buf; NULL when no site is suppressed.
 */
const char *suppressed_describe(char *buf, size_t size, const struct heap_model *h);

/* One function of a frame, as the reports show it. */
struct frame_name {
	const char *function;	/* NULL when unknown */
	uint64_t offset;	/* into the function, else into the file */
	const char *path;	/* the file; "?" when outside every file */
	const char *why;	/* with no function: why not */
	const char *where;	/* "file:line" of the call in it, or "" */
	bool inlined;		/* into the next one out: no offset of its own */
};

/*
 * Names the k-th function of frame (SITE_FRAME_*), innermost first:
 * those inlined at its call, then the one it returns into.  Returns how
 * many the frame has, at least 1.  Valid until the symbolizer is freed.
 */
size_t frame_describe(struct symbolizer *z, const struct sites *s, uint64_t frame,
		      size_t k, struct frame_name *out);
/*
 * The k-th function of frame as folded stacks and flame graphs label
 * it: its name, or its file's base name and offset.  Returns as
 * frame_describe.
 */
size_t frame_label(char *buf, size_t size, struct symbolizer *z, const struct sites *s,
		   uint64_t frame, size_t k);

/*
 * The top n allocation points (points.h), or with by_chain sites, by
 * their bytes live at the tree's peak, by leaked bytes, by allocations
 * and by temporary allocations, each with its symbolized call chains.
 * The leak ranking leaves out the suppressed sites, and says what they
 * leaked.
 */
void sites_print(FILE *out, const struct heap_model *h, const struct sites *s,
		 struct symbolizer *z, size_t n, bool by_chain);

#endif
