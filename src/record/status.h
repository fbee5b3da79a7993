/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live status line: while a capture runs, once a second, on a
 * terminal, what it has seen so far.  Rewritten in place with a carriage
 * return, and cleared before the summary.  Shown unasked only on a
 * terminal the workload does not write to.
 */
#ifndef MEMSUP_STATUS_H
#define MEMSUP_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum status_mode {
	STATUS_AUTO,	/* on a terminal that is not the workload's stdout or stderr */
	STATUS_ON,	/* --status: on any terminal */
	STATUS_OFF,	/* --quiet */
};

struct status_figures {
	uint64_t events;	/* allocator calls recorded */
	uint64_t live_bytes;	/* the tree's live heap */
	uint64_t pressure_stops;
	uint64_t lost;		/* records and calls */
};

struct live_status {
	FILE *out;		/* NULL: off */
	uint64_t shown_ns;	/* when the line was last written; 0: never */
	uint64_t shown_events;
};

/* The line on out, as mode says, for the tree whose first process is workload. */
void status_init(struct live_status *st, FILE *out, enum status_mode mode, pid_t workload);
/* Rewrites the line if a second has passed since it last did. */
void status_update(struct live_status *st, uint64_t now_ns, const struct status_figures *f);
/* Leaves the terminal's line empty for what comes next. */
void status_clear(struct live_status *st);

#endif
