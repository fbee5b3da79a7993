// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The free runs of the unwind tables' arrays: first fit, runs given back
 * merged with their neighbours, and, over many random takes and gives,
 * the free runs always exactly the entries not taken.
 */
#include "config.h"
#include "free-runs.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static void
test_first_fit(void)
{
	struct free_runs f;
	uint32_t a, b, c;

	free_runs_init(&f, 100);
	tap_ok(free_runs_take(&f, 30, &a) && free_runs_take(&f, 30, &b) && a == 0 && b == 30,
	       "runs are taken from the start");
	tap_ok(!free_runs_take(&f, 41, &c), "41 entries do not fit in the 40 left");
	free_runs_give(&f, a, 30);
	tap_ok(f.nruns == 2, "a run given back not next to a free one stands alone");
	tap_ok(free_runs_take(&f, 35, &c) && c == 60, "first fit: 35 skip the 30 given back");
	free_runs_give(&f, b, 30);
	tap_ok(f.nruns == 2 && f.runs[0].start == 0 && f.runs[0].n == 60,
	       "a run given back merges with the free run before it");
	free_runs_give(&f, c, 35);
	tap_ok(f.nruns == 1 && f.runs[0].start == 0 && f.runs[0].n == 100,
	       "one between two free runs merges with both: the array is whole again");
	tap_ok(free_runs_take(&f, 100, &a) && a == 0 && f.nruns == 0, "all of it in one run");
	tap_ok(!free_runs_take(&f, 1, &a), "then nothing more");
	free_runs_free(&f);
}

/* The free runs are sorted, apart, and free exactly what the model has free. */
static bool
matches(const struct free_runs *f, const bool *taken, uint32_t n)
{
	uint32_t at = 0;
	size_t i;

	for (i = 0; i < f->nruns; i++) {
		const struct free_run *r = &f->runs[i];

		if (!r->n || r->start < at || (i && r->start == at) || r->start + r->n > n)
			return false;
		for (; at < r->start; at++)
			if (!taken[at])
				return false;
		for (; at < r->start + r->n; at++)
			if (taken[at])
				return false;
	}
	for (; at < n; at++)
		if (!taken[at])
			return false;
	return true;
}

static void
test_against_model(void)
{
	enum { N = 1000, STEPS = 20000 };
	struct { uint32_t start, n; } held[N];
	bool taken[N] = { false };
	size_t nheld = 0, step, bad = 0;
	struct free_runs f;

	srand(31);
	free_runs_init(&f, N);
	for (step = 0; step < STEPS; step++) {
		if (nheld && rand() % 2) {
			size_t k = (size_t)rand() % nheld;

			free_runs_give(&f, held[k].start, held[k].n);
			memset(taken + held[k].start, 0, held[k].n);
			held[k] = held[--nheld];
		} else {
			uint32_t n = 1 + (uint32_t)rand() % 60, start;

			if (free_runs_take(&f, n, &start)) {
				bad += start + n > N || memchr(taken + start, true, n) != NULL;
				memset(taken + start, true, n);
				held[nheld].start = start;
				held[nheld++].n = n;
			}
		}
		bad += !matches(&f, taken, N);
	}
	tap_eq_u64(bad, 0, "%d random takes and gives: the free runs are what is not taken", STEPS);
	free_runs_free(&f);
}

int
main(void)
{
	tap_plan(9);
	test_first_fit();
	test_against_model();
	return tap_done();
}
