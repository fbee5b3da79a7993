/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=massif: the heap over time in the file format valgrind's
 * massif writes, for ms_print and massif-visualizer.
 */
#ifndef MEMSUP_REPORT_MASSIF_H
#define MEMSUP_REPORT_MASSIF_H

#include <stdio.h>

struct heap_model;
struct sites;
struct symbolizer;
struct timeline;

/*
 * Writes the whole tree's live heap as massif's snapshots: one at time
 * 0, then one per slot of t anything happened in, in milliseconds, with
 * the slot's largest value.  The slot of the tree's peak is the peak
 * snapshot, with the tree of the sites' bytes live at that peak, callers
 * below callees, cut at main and at massif's default threshold (1%).
 */
void report_massif(FILE *out, const char *command, const struct heap_model *h,
		   const struct timeline *t, const struct sites *s, struct symbolizer *z);

#endif
