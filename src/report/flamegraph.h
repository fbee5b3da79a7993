/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The flame graph of a capture's sites, or of a diff, as self-contained SVG. */
#ifndef MEMSUP_FLAMEGRAPH_H
#define MEMSUP_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report-sites.h"

struct heap_model;
struct sites;
struct symbolizer;

/*
 * The sites' chains by metric m, merged by frame name, outermost at the
 * bottom, as an SVG document with its own script (hover shows a frame's
 * value, click zooms).  Embeddable in HTML as it is.
 */
void flamegraph_svg(FILE *out, const struct heap_model *h, const struct sites *s,
		    struct symbolizer *z, enum site_metric m, const char *title);

/* A chain of a diff: frame names outermost first, joined by ';'. */
struct flame_chain {
	const char *name;
	uint64_t a, b;		/* its value by the metric in A and in B */
};

/*
 * The differential flame graph of two captures: each chain as wide as the
 * larger of its values, each frame red as it grew from A to B and blue as
 * it shrank; hover shows both values and the change.
 */
void flamegraph_diff_svg(FILE *out, const struct flame_chain *chains, size_t n,
			 enum site_metric m, const char *title);

#endif
