// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "stack-table.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

void
stack_table_init(struct stack_table *t)
{
	memset(t, 0, sizeof(*t));
	u64map_init(&t->by_hash);
}

void
stack_table_free(struct stack_table *t)
{
	u64map_free(&t->by_hash);
	free(t->frames);
	free(t->stacks);
	memset(t, 0, sizeof(*t));
}

static uint64_t
rotl(uint64_t x, unsigned int k)
{
	return x << k | x >> (64 - k);
}

/*
 * The consumer hashes every stack it records: four lanes let a stack's
 * multiplications overlap, where one chain of them was its costliest step.
 */
uint64_t
stack_hash_words(uint64_t seed, const uint64_t *w, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t a = seed, b = 0x243f6a8885a308d3ULL, c = 0x13198a2e03707344ULL,
		 d = 0xa4093822299f31d0ULL, h;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		a = (a ^ w[i]) * k;
		b = (b ^ w[i + 1]) * k;
		c = (c ^ w[i + 2]) * k;
		d = (d ^ w[i + 3]) * k;
		a ^= a >> 29;
		b ^= b >> 29;
		c ^= c >> 29;
		d ^= d >> 29;
	}
	for (; i < n; i++) {
		a = (a ^ w[i]) * k;
		a ^= a >> 29;
	}
	h = a ^ rotl(b, 16) ^ rotl(c, 32) ^ rotl(d, 48);
	/* Mixed down, so that the low bits depend on the high bits of words. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h ? h : 1;
}

const uint64_t *
stack_table_get(const struct stack_table *t, uint32_t id, uint32_t *n)
{
	if (!id || id > t->count)
		return NULL;
	*n = t->stacks[id - 1].n;
	return t->frames + t->stacks[id - 1].at;
}

static bool
same_stack(const struct stack_table *t, uint32_t id, const uint64_t *frames, uint32_t n)
{
	uint32_t have;
	const uint64_t *f = stack_table_get(t, id, &have);

	return f && have == n && (!n || !memcmp(f, frames, n * sizeof(*frames)));
}

uint32_t
stack_table_intern(struct stack_table *t, const uint64_t *frames, uint32_t n,
		   bool *added)
{
	/* The hash is by_hash's key only: ids come in order, whatever it is. */
	uint64_t h = stack_hash_words(n, frames, n);
	struct u64map_slot *s;
	size_t need;

	/* Another stack with the same hash takes the next key. */
	while ((s = u64map_find(&t->by_hash, h))) {
		if (same_stack(t, (uint32_t)s->value, frames, n)) {
			*added = false;
			return (uint32_t)s->value;
		}
		h = h + 1 ? h + 1 : 1;
	}
	/* Room for one frame even for an empty stack: no arithmetic on NULL. */
	need = t->nframes + n;
	t->frames = xgrow(t->frames, &t->frames_cap, need ? need : 1, sizeof(*t->frames));
	if (n)
		memcpy(t->frames + t->nframes, frames, n * sizeof(*frames));
	t->stacks = xgrow(t->stacks, &t->stacks_cap, t->count + 1, sizeof(*t->stacks));
	t->stacks[t->count].at = t->nframes;
	t->stacks[t->count].n = n;
	t->nframes += n;
	t->count++;
	u64map_put(&t->by_hash, h, t->count);
	*added = true;
	return t->count;
}
