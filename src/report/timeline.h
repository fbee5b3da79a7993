/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live heap over time, for the HTML report's chart: the tree's and
 * each process's, as the largest value in each of a fixed number of
 * equal time slots.  The slots double in width when time outgrows them,
 * so memory is fixed per process, however long the capture.
 */
#ifndef MEMSUP_TIMELINE_H
#define MEMSUP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include "u64map.h"

struct heap_model;
struct record;

#define TIMELINE_SLOTS 512
#define TIMELINE_EMPTY UINT64_MAX	/* a slot nothing happened in */

struct timeline_series {
	uint32_t pid;		/* 0: the whole tree */
	uint64_t max[TIMELINE_SLOTS];
};

struct timeline {
	uint64_t slot_ns;	/* each slot's width */
	struct timeline_series **series;	/* the tree's first, then by process */
	size_t n, cap;
	struct u64map by_pid;	/* pid -> index in series */
};

void timeline_init(struct timeline *t);
void timeline_free(struct timeline *t);
/* Notes the live heaps after h applied r. */
void timeline_apply(struct timeline *t, const struct heap_model *h, const struct record *r);

#endif
