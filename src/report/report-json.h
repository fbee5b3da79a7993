/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON report: doc/report-json.md is its schema. */
#ifndef MEMSUP_REPORT_JSON_H
#define MEMSUP_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

struct capture_end;
struct heap_model;
struct sites;
struct symbolizer;

/* The whole report of a capture of command, with the top n sites of each ranking. */
void report_json(FILE *out, const char *command, const struct heap_model *h,
		 const struct capture_end *end, const struct sites *s,
		 struct symbolizer *z, size_t n);

#endif
