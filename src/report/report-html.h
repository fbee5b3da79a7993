/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --format=html: the report as one self-contained page. */
#ifndef MEMSUP_REPORT_HTML_H
#define MEMSUP_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct capture_end;
struct heap_model;
struct sites;
struct symbolizer;
struct timeline;

/* The pages' style sheet, shared with memsup diff's. */
extern const char report_html_style[];

/*
 * The summary, the live heap over time (t) with the peak marked, the
 * flame graph by bytes live at the peak, and the top n allocation
 * points (or with by_chain sites) of each ranking.
 */
void report_html(FILE *out, const char *command, const struct heap_model *h,
		 const struct capture_end *end, const struct timeline *t,
		 const struct sites *s, struct symbolizer *z, size_t n, bool by_chain);

#endif
