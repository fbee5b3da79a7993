// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "u64map.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

enum { U64MAP_MIN_CAPACITY = 16 };

/*
 * Fibonacci hashing: the product's top bits, which every bit of the key
 * moves.  Middle bits would leave out the key's high half, where the
 * report's keys keep their ids (id << 32 | generation): all in one slot.
 * The capacity is a power of two, so its bits are mask's trailing zeros of
 * mask + 1: one instruction, where a popcount is a call into libgcc
 * without -mpopcnt, on every lookup.
 */
static size_t
slot_of(const struct u64map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - __builtin_ctzll(m->mask + 1)));
}

void
u64map_init(struct u64map *m)
{
	m->slots = NULL;
	m->mask = 0;
	m->count = 0;
}

void
u64map_free(struct u64map *m)
{
	free(m->slots);
	u64map_init(m);
}

void
u64map_clear(struct u64map *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->count = 0;
}

struct u64map_slot *
u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->slots || !key)
		return NULL;
	for (i = slot_of(m, key); m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return &m->slots[i];
	return NULL;
}

static void
insert_new(struct u64map *m, uint64_t key, uint64_t value)
{
	size_t i = slot_of(m, key);

	while (m->slots[i].key)
		i = (i + 1) & m->mask;
	m->slots[i].key = key;
	m->slots[i].value = value;
	m->count++;
}

static void
grow(struct u64map *m)
{
	struct u64map_slot *old = m->slots;
	size_t old_capacity = old ? m->mask + 1 : 0;
	size_t capacity = old ? old_capacity * 2 : U64MAP_MIN_CAPACITY;
	size_t i;

	m->slots = xcalloc(capacity, sizeof(*m->slots));
	m->mask = capacity - 1;
	m->count = 0;
	for (i = 0; i < old_capacity; i++)
		if (old[i].key)
			insert_new(m, old[i].key, old[i].value);
	free(old);
}

/*
 * One walk of the probe run: the key's slot, or the empty slot that ends
 * the run, where insert_new() would put it too.
 */
bool
u64map_put(struct u64map *m, uint64_t key, uint64_t value)
{
	size_t i;

	if (m->slots) {
		for (i = slot_of(m, key); m->slots[i].key; i = (i + 1) & m->mask)
			if (m->slots[i].key == key) {
				m->slots[i].value = value;
				return true;
			}
		/* Keep the load factor at or below 3/4. */
		if ((m->count + 1) * 4 <= (m->mask + 1) * 3) {
			m->slots[i].key = key;
			m->slots[i].value = value;
			m->count++;
			return false;
		}
	}
	grow(m);
	insert_new(m, key, value);
	return false;
}

bool
u64map_remove(struct u64map *m, uint64_t key, uint64_t *value)
{
	struct u64map_slot *s = u64map_find(m, key);
	size_t hole, i;

	if (!s)
		return false;
	if (value)
		*value = s->value;
	hole = (size_t)(s - m->slots);
	/*
	 * Backward-shift deletion: move each following entry of the probe
	 * run into the hole unless its home slot lies cyclically after
	 * the hole.
	 */
	for (i = (hole + 1) & m->mask; m->slots[i].key; i = (i + 1) & m->mask) {
		size_t home = slot_of(m, m->slots[i].key);

		if (((i - home) & m->mask) >= ((i - hole) & m->mask)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->slots[hole].key = 0;
	m->slots[hole].value = 0;
	m->count--;
	return true;
}

void
u64map_copy(struct u64map *dst, const struct u64map *src)
{
	const struct u64map_slot *s;

	u64map_foreach(src, s)
		u64map_put(dst, s->key, s->value);
}
