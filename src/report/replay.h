/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A capture replayed, for the reports: its records through the heap
 * model and the site resolution, with a symbolizer for its frames.
 */
#ifndef MEMSUP_REPLAY_H
#define MEMSUP_REPLAY_H

#include <stdbool.h>

#include "heap.h"
#include "sites.h"
#include "symbolize.h"

struct capture_reader;
struct record;

struct replay {
	struct capture_reader *rd;
	struct heap_model heap;
	struct sites sites;
	struct symbolizer symbolizer;
};

/*
 * Reads the capture at path to its end, handing each record to each too
 * (when not NULL), once the models have it.  The heap model counts the
 * processes filter takes (all when NULL).  A capture cut short is read
 * up to the cut with a warning (see replay_cut), unless strict.  Returns
 * 0, or the exit status after saying what is wrong with the file; either
 * way replay_close() frees what it took.
 */
int replay_read(struct replay *p, const char *path, const char *debug_dir, bool strict,
		const struct heap_filter *filter,
		void (*each)(void *ctx, const struct heap_model *h, const struct record *r),
		void *ctx);
/* Whether the capture read was cut short: its report covers only a part. */
bool replay_cut(const struct replay *p);
/*
 * Whether the capture says records or calls were lost, or processes went
 * untraced: its figures are not the run's, more or less.
 */
bool replay_incomplete(const struct replay *p);
const char *replay_command(const struct replay *p);
const struct capture_end *replay_totals(const struct replay *p);
void replay_close(struct replay *p);

#endif
