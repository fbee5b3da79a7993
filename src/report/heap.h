/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The heap model: replays records into live-block tables and the
 * statistics the reports print.  The accounting rules are those of
 * doc/design.md ("What the numbers mean").
 */
#ifndef MEMSUP_HEAP_H
#define MEMSUP_HEAP_H

#include <stdbool.h>
#include <stdint.h>
#include "regions.h"
#include "u64map.h"

struct record;

/*
 * Allocation sizes by class: class 0 is size 0, class k > 0 holds the
 * sizes from 2^(k-1) to 2^k - 1.
 */
#define HEAP_SIZE_CLASSES 65

struct heap_stats {
	uint64_t allocs;
	uint64_t frees;
	uint64_t bytes_allocated;
	uint64_t failed_calls;		/* returned NULL; nothing changed */
	uint64_t unknown_frees;		/* address not live in this process */
	uint64_t live_bytes;
	uint64_t live_blocks;
	uint64_t peak_bytes;
	uint64_t peak_time_ns;
	uint64_t leaked_bytes;		/* live at process exit */
	uint64_t leaked_blocks;
	/* Freed by their thread before it allocated again (heaptrack's rule). */
	uint64_t temporary;
	uint64_t size_classes[HEAP_SIZE_CLASSES];	/* allocations by size */
};

struct heap_process {
	uint32_t pid;
	uint32_t parent;		/* 0 for the root */
	char *image;			/* what it runs; NULL before its exec */
	/*
	 * Its calls arrived with no fork or exec before them: a child that
	 * escaped tracing (CLONE_UNTRACED) in an address space it shares
	 * with a traced process, whose probes see its calls.
	 */
	bool untraced;
	bool exited;
	int wait_status;
	/* The model's filter takes it now: the figures count only what it
	 * did while counted. */
	bool counted;
	/* address -> requested size and site, with HEAP_INHERITED for blocks
	 * copied from the parent at fork (heap.c packs them) */
	struct u64map live;
	/*
	 * Its last block, live but not in live yet (address 0: none): most
	 * blocks are freed before their process allocates again, and then
	 * never go through the table.
	 */
	uint64_t pending_ptr, pending_value;
	struct heap_stats stats;
	struct open_regions regions;
};

/* What the blocks of one allocation site (record.call.site) did. */
struct heap_site {
	uint64_t allocs;
	uint64_t bytes_allocated;
	uint64_t live_bytes;
	uint64_t leaked_bytes;		/* live when their process exited */
	uint64_t leaked_blocks;
	uint64_t live_at_peak;		/* see heap_site_peak_bytes() */
	uint64_t peak_version;
	uint64_t temporary;
	/*
	 * Its leaks are expected (the report's suppressions match it): the
	 * leak figures and rankings leave them out, and count them apart.
	 */
	bool suppressed;
};

/* Which processes the figures count: all, or one pid's, or one command's. */
struct heap_filter {
	uint32_t pid;		/* 0: any */
	const char *command;	/* its image's base name, while it runs it; NULL: any */
};

struct heap_model {
	struct u64map running;		/* pid -> struct heap_process * */
	/*
	 * The process last looked up, until a process starts or exits:
	 * calls come in runs of one process, which then need no lookup.
	 */
	struct heap_process *last_process;
	struct heap_process **procs;	/* every process, in order of appearance */
	size_t nprocs, procs_cap;
	struct heap_stats tree;		/* counts summed; peak of the summed live heap */
	struct heap_site *sites;	/* by site; site 0 is "no stack" */
	size_t nsites;
	uint64_t peak_version;		/* how many times the tree peaked */
	/*
	 * tid -> its last block, until it allocates again or frees it (0:
	 * none).  A thread's entry stays, and only the lookup that keeps
	 * last_thread adds one: so the slot of the last call's thread stays
	 * valid, and the calls of a run of one thread need no lookup.
	 */
	struct u64map last_alloc;
	struct u64map_slot *last_thread;
	struct region_table regions;
	struct heap_filter filter;
	bool exited_counted;		/* the last process to exit was counted */
};

void heap_init(struct heap_model *h);
void heap_free(struct heap_model *h);
/*
 * Counts only the processes f takes, from the first record on: the tree,
 * the sites and the regions are theirs, and the others are left out of
 * procs once heap_finish() is called.
 */
void heap_select(struct heap_model *h, const struct heap_filter *f);
/*
 * After the last record: the processes the filter left out are dropped,
 * those that did nothing while counted and were not counted at the end
 * (a shell's child before its exec) with them.
 */
void heap_finish(struct heap_model *h);
void heap_apply(struct heap_model *h, const struct record *r);
/* Whether the filter counts r's process, r just applied. */
bool heap_counts(const struct heap_model *h, const struct record *r);
/* The size class of an allocation of size bytes. */
unsigned int heap_size_class(uint64_t size);
/* The bytes the blocks of site held when the tree's live heap peaked. */
uint64_t heap_site_peak_bytes(const struct heap_model *h, uint32_t site);

#endif
