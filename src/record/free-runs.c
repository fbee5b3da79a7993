// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "free-runs.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

void
free_runs_init(struct free_runs *f, uint32_t n)
{
	memset(f, 0, sizeof(*f));
	if (n)
		free_runs_give(f, 0, n);
}

bool
free_runs_take(struct free_runs *f, uint32_t n, uint32_t *start)
{
	size_t i;

	for (i = 0; i < f->nruns; i++) {
		struct free_run *r = &f->runs[i];

		if (r->n < n)
			continue;
		*start = r->start;
		r->start += n;
		r->n -= n;
		if (!r->n) {
			f->nruns--;
			memmove(r, r + 1, (f->nruns - i) * sizeof(*r));
		}
		return true;
	}
	return false;
}

void
free_runs_give(struct free_runs *f, uint32_t start, uint32_t n)
{
	size_t i = 0;
	bool joins_before, joins_after;

	if (!n)
		return;
	while (i < f->nruns && f->runs[i].start < start)
		i++;
	joins_before = i && f->runs[i - 1].start + f->runs[i - 1].n == start;
	joins_after = i < f->nruns && start + n == f->runs[i].start;
	if (joins_before && joins_after) {
		f->runs[i - 1].n += n + f->runs[i].n;
		f->nruns--;
		memmove(&f->runs[i], &f->runs[i + 1], (f->nruns - i) * sizeof(f->runs[0]));
	} else if (joins_before) {
		f->runs[i - 1].n += n;
	} else if (joins_after) {
		f->runs[i].start = start;
		f->runs[i].n += n;
	} else {
		f->runs = xgrow(f->runs, &f->cap, f->nruns + 1, sizeof(f->runs[0]));
		memmove(&f->runs[i + 1], &f->runs[i], (f->nruns - i) * sizeof(f->runs[0]));
		f->runs[i] = (struct free_run){ .start = start, .n = n };
		f->nruns++;
	}
}

void
free_runs_free(struct free_runs *f)
{
	free(f->runs);
	memset(f, 0, sizeof(*f));
}
