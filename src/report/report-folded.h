/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folded stacks, as flamegraph.pl, inferno and speedscope read them: one
 * line per site, its frames outermost first joined by ";", a space, and
 * the site's value by a metric.
 */
#ifndef MEMSUP_REPORT_FOLDED_H
#define MEMSUP_REPORT_FOLDED_H

#include <stdio.h>
#include "report-sites.h"

struct heap_model;
struct sites;
struct symbolizer;

void report_folded(FILE *out, const struct heap_model *h, const struct sites *s,
		   struct symbolizer *z, enum site_metric m);
/* A frame's functions, the inlined ones last, joined by ";" (no newline). */
void folded_frame(FILE *out, const struct sites *s, struct symbolizer *z, uint64_t frame);
/* A site's frames, outermost first, joined by ";" (no newline). */
void folded_chain(FILE *out, const struct sites *s, struct symbolizer *z,
		  uint32_t site);

#endif
