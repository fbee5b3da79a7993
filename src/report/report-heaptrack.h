/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=heaptrack: the capture as heaptrack's own data file, the one
 * heaptrack_interpret writes and heaptrack_print and heaptrack_gui read,
 * compressed with zstd.
 */
#ifndef MEMSUP_REPORT_HEAPTRACK_H
#define MEMSUP_REPORT_HEAPTRACK_H

#include <stdint.h>
#include <stdio.h>

#include "stack-table.h"
#include "u64map.h"

struct heap_model;
struct record;
struct replay;

/*
 * The events of the file, gathered while the capture is replayed: the
 * names of the frames come at the capture's end, so the file is written
 * once it is read.
 */
struct heaptrack_export {
	struct u64map live;		/* pid -> its blocks (struct u64map *) */
	struct stack_table infos;	/* (size, site) -> allocation info + 1 */
	uint64_t *events;		/* HT_EVENT_* << 62 | index or milliseconds */
	size_t nevents, events_cap;
	uint64_t last_ms;		/* of the last timestamp event */
};

void heaptrack_init(struct heaptrack_export *x);
void heaptrack_free(struct heaptrack_export *x);
/*
 * Takes record r, which the heap model h has applied: replay_read's each.
 * The calls of the processes h's filter leaves out are left out.
 */
void heaptrack_record(void *x, const struct heap_model *h, const struct record *r);
/*
 * Writes the file of capture p, replayed, to out: its command, the frames
 * of the sites that allocated, named, then the events in their order.
 * Returns 0, or a negative errno when it could not be written.
 */
int heaptrack_write(FILE *out, const struct heaptrack_export *x, struct replay *p);

#endif
