/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report's allocation sites: the top ones, with their call chains. */
#ifndef MEMSUP_REPORT_SITES_H
#define MEMSUP_REPORT_SITES_H

#include <stddef.h>
#include <stdio.h>

struct heap_model;
struct sites;
struct symbolizer;

/*
 * The top n sites by their bytes live at the tree's peak, by leaked
 * bytes and by allocations, each with its symbolized call chain.
 */
void sites_print(FILE *out, const struct heap_model *h, const struct sites *s,
		 struct symbolizer *z, size_t n);

#endif
