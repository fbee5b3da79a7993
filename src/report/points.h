/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Allocation points: the sites grouped by the innermost frame of their
 * chain outside the C and C++ runtimes, the code that asked for the
 * memory, whatever wrapper of the allocator it went through and
 * whoever called it.  The reports rank points, their chains beneath,
 * as heaptrack does; --by=chain ranks the chains.
 */
#ifndef MEMSUP_POINTS_H
#define MEMSUP_POINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report-sites.h"

struct heap_model;
struct sites;

struct point {
	bool stack;			/* false: the sites without a stack */
	uint64_t frame;			/* the point's frame (SITE_FRAME_*) */
	uint64_t value;			/* its sites' values by the metric, summed */
	/*
	 * Every site that reaches it: the nvalued with a value by the
	 * metric first, largest first, then those without.
	 */
	uint32_t *sites;
	uint32_t *depths;		/* the point's frame's index in each site's chain */
	size_t nsites, nvalued;
};

/* Finds sites' points, asking once a module whether it is a runtime's. */
struct point_finder {
	const struct sites *s;
	signed char *known;	/* by module index: -1 not asked, else 0 or 1 */
};

void point_finder_init(struct point_finder *r, const struct sites *s);
void point_finder_free(struct point_finder *r);
/*
 * The point of site: its frame in *frame, and that frame's index in the
 * chain in *depth; false for a site without a stack.
 */
bool point_of(struct point_finder *r, uint32_t site, uint64_t *frame, uint32_t *depth);

/* What sites' blocks did, summed: the figures a report shows of a point. */
struct site_totals {
	uint64_t allocs, bytes_allocated, peak_bytes, leaked_bytes, leaked_blocks, temporary;
};

void site_totals_add(struct site_totals *t, const struct heap_model *h, uint32_t site);
/* A point's sites' figures, summed. */
void point_totals(struct site_totals *t, const struct heap_model *h, const struct point *p);

/*
 * The points whose sites have a value by m, largest first, ties in the
 * order their first site came; how many in *count.  Free with
 * points_free().
 */
struct point *points_ranked(const struct heap_model *h, const struct sites *s,
			    enum site_metric m, size_t *count);
void points_free(struct point *v, size_t n);

#endif
