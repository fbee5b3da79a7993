/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The flame graph of a capture's sites, as self-contained SVG. */
#ifndef MEMSUP_FLAMEGRAPH_H
#define MEMSUP_FLAMEGRAPH_H

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

#endif
