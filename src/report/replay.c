// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "replay.h"
#include "capture.h"
#include "error.h"
#include "human-numbers.h"
#include "record.h"

#include <string.h>

/* What a capture cut short holds, said once its records are in. */
static void
warn_cut(const char *name, const struct capture_reader *rd)
{
	const struct capture_end *end = capture_totals(rd);

	/* Counted as the reader's message counts, without separators. */
	warning_msg("%s: %s; reporting the %llu record%s before it (%.3f s of the run)",
		    name, capture_error(rd), (unsigned long long)end->records,
		    plural(end->records), (double)end->last_ns / 1e9);
}

int
replay_read(struct replay *p, const char *path, const char *debug_dir, bool strict,
	    const struct heap_filter *filter,
	    void (*each)(void *ctx, const struct heap_model *h, const struct record *r),
	    void *ctx)
{
	const char *name = strcmp(path, "-") ? path : "standard input";
	struct record r;
	int n;

	heap_init(&p->heap);
	if (filter)
		heap_select(&p->heap, filter);
	sites_init(&p->sites);
	symbolizer_init(&p->symbolizer, debug_dir);
	p->rd = capture_open(path);
	if (!p->rd) {
		/* A file named wrong is a bad invocation, as no file is. */
		perror_msg("cannot open %s", name);
		return MS_EXIT_FAILURE;
	}
	/* Names come at the end: symbolize is for once the capture is read. */
	p->symbolizer.names = capture_names(p->rd);
	while ((n = capture_next(p->rd, &r)) > 0) {
		sites_apply(&p->sites, &r);
		heap_apply(&p->heap, &r);
		if (each)
			each(ctx, &p->heap, &r);
	}
	if (n < 0 && (strict || !capture_cut(p->rd))) {
		error_msg("%s: %s", name, capture_error(p->rd));
		return MS_EXIT_READ_ERROR;
	}
	if (n < 0)
		warn_cut(name, p->rd);
	heap_finish(&p->heap);
	return 0;
}

bool
replay_cut(const struct replay *p)
{
	return capture_cut(p->rd);
}

bool
replay_incomplete(const struct replay *p)
{
	const struct capture_end *end = capture_totals(p->rd);

	return end->lost_records || end->lost_calls || end->untraced_processes;
}

const char *
replay_command(const struct replay *p)
{
	return capture_command(p->rd);
}

const struct capture_end *
replay_totals(const struct replay *p)
{
	return capture_totals(p->rd);
}

void
replay_close(struct replay *p)
{
	symbolizer_free(&p->symbolizer);
	sites_free(&p->sites);
	heap_free(&p->heap);
	if (p->rd)
		capture_close(p->rd);
	p->rd = NULL;
}
