/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text reports: the summary and the event list. */
#ifndef MEMSUP_REPORT_TEXT_H
#define MEMSUP_REPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

struct capture_end;
struct heap_model;
struct heap_process;
struct heap_stats;
struct record;
struct region_table;

/* How a wait status reads: "exited 3", "killed by SIGKILL". */
const char *describe_wait_status(int status, char *buf, size_t size);

/*
 * The tree's figures, then its processes one line each: the largest
 * peaks only unless all_processes, with how to list the rest from
 * capture (a path, or NULL when the capture cannot be read again).  A
 * run of one process gets its figures and no table.
 */
void summary_print(FILE *out, const struct heap_model *h, const struct capture_end *end,
		   const char *capture, bool all_processes);
/* Past this many processes the summaries list the largest peaks only. */
#define SUMMARY_PROCESSES 5

/* The processes, largest peak first, then by pid: an array to free. */
const struct heap_process **processes_by_peak(const struct heap_model *h);
/* How many allocations fell in each size class, the empty ones left out. */
void sizes_print(FILE *out, const struct heap_stats *st);
/* The regions of memsup/region.h, if the workload marked any. */
void regions_print(FILE *out, const struct region_table *t);
/* One line per record: time, pid, tid, what happened. */
void event_print(FILE *out, const struct record *r);

#endif
