// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "timeline.h"
#include "error.h"
#include "heap.h"
#include "record.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SLOT_NS 1000000ULL	/* 1 ms */

static struct timeline_series *
series_new(struct timeline *t, uint32_t pid)
{
	struct timeline_series *s = xmalloc(sizeof(*s));
	size_t i;

	s->pid = pid;
	for (i = 0; i < TIMELINE_SLOTS; i++)
		s->max[i] = TIMELINE_EMPTY;
	t->series = xgrow(t->series, &t->cap, t->n + 1, sizeof(*t->series));
	t->series[t->n++] = s;
	return s;
}

void
timeline_init(struct timeline *t)
{
	t->slot_ns = FIRST_SLOT_NS;
	t->series = NULL;
	t->n = 0;
	t->cap = 0;
	u64map_init(&t->by_pid);
	series_new(t, 0);
}

void
timeline_free(struct timeline *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->series[i]);
	free(t->series);
	u64map_free(&t->by_pid);
}

static uint64_t
larger(uint64_t a, uint64_t b)
{
	if (a == TIMELINE_EMPTY)
		return b;
	if (b == TIMELINE_EMPTY)
		return a;
	return a > b ? a : b;
}

/* Slots twice as wide: pairs of slots become one. */
static void
widen(struct timeline *t)
{
	size_t i, k;

	for (k = 0; k < t->n; k++) {
		uint64_t *m = t->series[k]->max;

		for (i = 0; i < TIMELINE_SLOTS / 2; i++)
			m[i] = larger(m[2 * i], m[2 * i + 1]);
		for (; i < TIMELINE_SLOTS; i++)
			m[i] = TIMELINE_EMPTY;
	}
	t->slot_ns *= 2;
}

static void
note(struct timeline_series *s, size_t slot, uint64_t live)
{
	s->max[slot] = larger(s->max[slot], live);
}

void
timeline_apply(struct timeline *t, const struct heap_model *h, const struct record *r)
{
	struct u64map_slot *found;
	struct heap_process *p = NULL;
	size_t slot;

	if (r->type != REC_CALL && r->type != REC_EXIT && r->type != REC_EXEC)
		return;
	while (r->time_ns / t->slot_ns >= TIMELINE_SLOTS)
		widen(t);
	slot = r->time_ns / t->slot_ns;
	note(t->series[0], slot, h->tree.live_bytes);
	if (!r->pid)
		return;
	found = u64map_find(&h->running, r->pid);
	if (found) {
		p = (struct heap_process *)(uintptr_t)found->value;
	} else {
		size_t i;

		/* Gone: its last record, an exit. */
		for (i = h->nprocs; i-- > 0 && !p;)
			if (h->procs[i]->pid == r->pid)
				p = h->procs[i];
		if (!p)
			return;
	}
	found = u64map_find(&t->by_pid, r->pid);
	if (!found) {
		series_new(t, r->pid);
		u64map_put(&t->by_pid, r->pid, t->n - 1);
		found = u64map_find(&t->by_pid, r->pid);
	}
	note(t->series[found->value], slot, p->stats.live_bytes);
}
