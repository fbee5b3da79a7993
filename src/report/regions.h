/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Named regions of a workload (memsup/region.h): what was allocated while
 * each was open, and how far its process's heap rose above where it stood
 * when the region began.  A region belongs to its process, not to the
 * thread that began it: every thread's allocations count while it is open.
 */
#ifndef MEMSUP_REGIONS_H
#define MEMSUP_REGIONS_H

#include <stddef.h>
#include <stdint.h>

struct region_stats {
	char *name;
	uint64_t entries;		/* begun while not open */
	uint64_t allocs;		/* made while open */
	uint64_t bytes_allocated;
	/* The most the process's live heap rose above its level at a begin. */
	uint64_t peak_bytes;
	uint64_t unmatched_ends;	/* ends of a region not open */
	uint64_t left_open;		/* still open when their process exited or exec'd */
};

/* Every region of the tree, by name, in order of first use. */
struct region_table {
	struct region_stats *regions;
	size_t nregions, regions_cap;
};

/* The regions open in one process. */
struct open_regions {
	struct open_region {
		size_t region;		/* in the table */
		uint32_t depth;		/* begun again before it ended */
		uint64_t live_at_begin;
	} *open;
	size_t nopen, open_cap;
};

void region_table_free(struct region_table *t);
/* The region of that name, or NULL. */
const struct region_stats *region_find(const struct region_table *t, const char *name);

/* live_bytes: the process's live heap at the mark. */
void regions_begin(struct region_table *t, struct open_regions *o, const char *name,
		   uint64_t live_bytes);
void regions_end(struct region_table *t, struct open_regions *o, const char *name);
/* An allocation of size bytes made the process's live heap live_bytes. */
void regions_allocated(struct region_table *t, const struct open_regions *o,
		       uint64_t size, uint64_t live_bytes);
/* A forked child is inside its parent's open regions, from a heap of 0. */
void regions_inherit(struct open_regions *child, const struct open_regions *parent);
/* The process exited or exec'd: its regions end, counted as left open. */
void regions_close(struct region_table *t, struct open_regions *o);

#endif
