/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The free runs of an array whose entries are given out in runs and
 * taken back: the unwind tables' pages and rows (src/record/unwind-maps.c).
 * First fit; a run given back merges with its free neighbours.
 */
#ifndef MEMSUP_FREE_RUNS_H
#define MEMSUP_FREE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct free_run {
	uint32_t start, n;
};

struct free_runs {
	struct free_run *runs;	/* sorted by start, none adjacent */
	size_t nruns, cap;
};

/* All of an array of n entries free. */
void free_runs_init(struct free_runs *f, uint32_t n);
/* Takes n entries in a run; returns false when no free run holds them. */
bool free_runs_take(struct free_runs *f, uint32_t n, uint32_t *start);
/* Gives back the run of n entries from start, taken before. */
void free_runs_give(struct free_runs *f, uint32_t start, uint32_t n);
void free_runs_free(struct free_runs *f);

#endif
