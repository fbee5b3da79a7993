// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live-block table: every malloc and free of a traced program goes
 * through it, so a lost or duplicated entry would be a wrong report.
 */
#include "config.h"
#include "u64map.h"
#include "tap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* A fixed generator, so that a failure replays the same on every libc. */
static uint64_t rng_state = 0x1234567890abcdefULL;

static uint64_t
rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t
slot_index(const struct u64map *m, uint64_t key)
{
	const struct u64map_slot *s = u64map_find(m, key);

	return s ? (size_t)(s - m->slots) : (size_t)-1;
}

/*
 * The slot a key hashes to in a table of the initial capacity: where it
 * lands when inserted alone.  Found by asking the map, so the test does
 * not depend on the hash function.
 */
static size_t
home_slot(uint64_t key, size_t *mask)
{
	struct u64map scratch;
	size_t i;

	u64map_init(&scratch);
	u64map_put(&scratch, key, 0);
	i = slot_index(&scratch, key);
	*mask = scratch.mask;
	u64map_free(&scratch);
	return i;
}

/*
 * Linear probing's invariant: no empty slot between a key's home slot
 * and the slot holding it.  Backward-shift deletion must keep it.
 */
static bool
probe_runs_intact(const struct u64map *m)
{
	const struct u64map_slot *s;
	size_t mask;

	u64map_foreach(m, s) {
		size_t i = home_slot(s->key, &mask);

		if (mask != m->mask)
			return false;
		for (; i != (size_t)(s - m->slots); i = (i + 1) & m->mask)
			if (!m->slots[i].key)
				return false;
	}
	return true;
}

static void
test_basic(void)
{
	struct u64map m;
	struct u64map_slot *s;
	uint64_t value = 0;
	unsigned int visits = 0;

	u64map_init(&m);
	tap_eq_u64(m.count, 0, "a new map is empty");
	tap_ok(!u64map_find(&m, 42), "find in a new map finds nothing");
	tap_ok(!u64map_remove(&m, 42, &value), "remove from a new map fails");
	u64map_foreach(&m, s)
		visits++;
	tap_eq_u64(visits, 0, "foreach over a new map visits nothing");

	tap_ok(!u64map_put(&m, 0x1000, 111), "put of a new key returns false");
	tap_ok(!u64map_put(&m, 0x2000, 222), "put of a second key returns false");
	tap_eq_u64(m.count, 2, "two keys counted");
	s = u64map_find(&m, 0x1000);
	tap_ok(s && s->key == 0x1000 && s->value == 111,
	       "find returns the slot of the first key with its value");
	s = u64map_find(&m, 0x2000);
	tap_ok(s && s->key == 0x2000 && s->value == 222,
	       "find returns the slot of the second key with its value");
	tap_ok(!u64map_find(&m, 0x3000), "find of an absent key returns NULL");
	tap_ok(!u64map_find(&m, 0), "find of key 0 (the empty mark) returns NULL");

	tap_ok(u64map_put(&m, 0x1000, 333), "put of a present key returns true");
	s = u64map_find(&m, 0x1000);
	tap_eq_u64(s ? s->value : 0, 333, "put overwrites the value");
	tap_eq_u64(m.count, 2, "overwriting does not change the count");

	tap_ok(u64map_remove(&m, 0x1000, &value),
	       "remove of a present key returns true");
	tap_eq_u64(value, 333, "remove returns the value");
	tap_eq_u64(m.count, 1, "remove decrements the count");
	tap_ok(!u64map_find(&m, 0x1000), "a removed key is not found");
	tap_ok(!u64map_remove(&m, 0x1000, &value),
	       "removing it again returns false");
	tap_ok(u64map_remove(&m, 0x2000, NULL),
	       "remove accepts a NULL value pointer");
	tap_eq_u64(m.count, 0, "the map is empty again");
	u64map_free(&m);
	tap_ok(!m.slots && m.count == 0 && !u64map_find(&m, 0x2000),
	       "u64map_free leaves an empty map");
	tap_ok(!u64map_put(&m, 7, 8) && u64map_find(&m, 7)->value == 8,
	       "a freed map can be used again");
	u64map_free(&m);
}

enum { GROWTH_KEYS = 200000 };

/* Aligned addresses, as malloc returns them. */
static uint64_t
growth_key(uint64_t i)
{
	return 0x7f3a00000000ULL + 16 * i;
}

static void
test_growth(void)
{
	struct u64map m;
	uint64_t i, bad;
	size_t capacity;

	u64map_init(&m);
	for (i = 0; i < GROWTH_KEYS; i++)
		u64map_put(&m, growth_key(i), i * 3 + 1);
	tap_eq_u64(m.count, GROWTH_KEYS, "count after %d insertions", GROWTH_KEYS);
	capacity = m.mask + 1;
	tap_ok((capacity & (capacity - 1)) == 0 && m.count * 4 <= capacity * 3,
	       "capacity %zu is a power of two, load at most 3/4", capacity);
	for (bad = 0, i = 0; i < GROWTH_KEYS; i++) {
		struct u64map_slot *s = u64map_find(&m, growth_key(i));

		if (!s || s->value != i * 3 + 1)
			bad++;
	}
	tap_eq_u64(bad, 0, "every key found with its value after growing");
	for (bad = 0, i = 0; i < GROWTH_KEYS; i++)
		if (u64map_find(&m, growth_key(i) + 8))
			bad++;
	tap_eq_u64(bad, 0, "no key in between is found");

	for (bad = 0, i = 0; i < GROWTH_KEYS; i += 2)
		if (!u64map_remove(&m, growth_key(i), NULL))
			bad++;
	tap_eq_u64(bad, 0, "removing every other key succeeds");
	tap_eq_u64(m.count, GROWTH_KEYS / 2, "count after removing half");
	for (bad = 0, i = 0; i < GROWTH_KEYS; i++) {
		struct u64map_slot *s = u64map_find(&m, growth_key(i));

		if (i % 2 ? !s || s->value != i * 3 + 1 : s != NULL)
			bad++;
	}
	tap_eq_u64(bad, 0, "exactly the remaining keys are found");
	u64map_free(&m);
}

/*
 * Builds one probe run in a table of the initial capacity that wraps
 * around its end: four keys with home mask - 1, one with home mask, two
 * with home 0.  Inserted in that order they fill slots mask - 1, mask,
 * 0, 1 (the first four), 2, 3, 4: keys of three different homes, some
 * displaced past their home, the run crossing the end of the table.
 */
enum { RUN_KEYS = 7 };

static bool
find_run_keys(uint64_t keys[RUN_KEYS], size_t *mask)
{
	size_t want[RUN_KEYS], n = 0, m, i;
	uint64_t k;

	home_slot(1, mask);
	for (i = 0; i < RUN_KEYS; i++)
		want[i] = i < 4 ? *mask - 1 : i < 5 ? *mask : 0;
	for (k = 0x1000; n < RUN_KEYS && k < 0x1000 + 16 * 1000000; k += 16)
		if (home_slot(k, &m) == want[n])
			keys[n++] = k;
	return n == RUN_KEYS;
}

static void
insert_run(struct u64map *m, const uint64_t keys[RUN_KEYS])
{
	size_t i;

	u64map_init(m);
	for (i = 0; i < RUN_KEYS; i++)
		u64map_put(m, keys[i], keys[i] ^ 0xabcdef);
}

static void
test_collisions(void)
{
	uint64_t keys[RUN_KEYS];
	struct u64map m;
	size_t mask, i, j;
	bool laid_out = true;

	if (!find_run_keys(keys, &mask))
		tap_bail("cannot find keys that collide");
	insert_run(&m, keys);
	for (i = 0; i < RUN_KEYS; i++) {
		size_t at = slot_index(&m, keys[i]);
		size_t want = i < 2 ? mask - 1 + i : i - 2;

		if (at != want) {
			tap_diag("key %zu at slot %zu, expected %zu", i, at, want);
			laid_out = false;
		}
	}
	tap_ok(laid_out && m.mask == mask,
	       "colliding keys form one probe run wrapping around the table");
	u64map_free(&m);

	/* Remove each key of the run in turn from a fresh copy of it. */
	for (j = 0; j < RUN_KEYS; j++) {
		uint64_t value = 0;
		size_t found = 0;
		bool removed, intact;

		insert_run(&m, keys);
		removed = u64map_remove(&m, keys[j], &value);
		for (i = 0; i < RUN_KEYS; i++) {
			struct u64map_slot *s = u64map_find(&m, keys[i]);

			if (i != j && s && s->value == (keys[i] ^ 0xabcdef))
				found++;
			if (i == j && s)
				tap_diag("removed key %zu still found", j);
		}
		intact = probe_runs_intact(&m);
		if (!tap_ok(removed && value == (keys[j] ^ 0xabcdef) &&
			    found == RUN_KEYS - 1 &&
			    m.count == RUN_KEYS - 1 && intact,
			    "removing run key %zu keeps the %d others findable",
			    j, RUN_KEYS - 1))
			tap_diag("removed %d, value %s, %zu others found, "
				 "count %zu, probe runs %s", removed,
				 value == (keys[j] ^ 0xabcdef) ? "right" : "wrong",
				 found, m.count, intact ? "intact" : "broken");
		u64map_free(&m);
	}

	/* Empty the run from its middle outwards. */
	insert_run(&m, keys);
	{
		static const size_t order[RUN_KEYS] = { 3, 2, 4, 1, 5, 0, 6 };
		bool ok = true;

		for (j = 0; j < RUN_KEYS; j++) {
			ok &= u64map_remove(&m, keys[order[j]], NULL);
			for (i = j + 1; i < RUN_KEYS; i++)
				ok &= u64map_find(&m, keys[order[i]]) != NULL;
			ok &= probe_runs_intact(&m);
		}
		tap_ok(ok && m.count == 0,
		       "emptying the run from the middle finds every key left");
	}
	u64map_free(&m);
}

enum { REF_KEYS = 3000, RANDOM_OPS = 100000 };

static bool
entry_agrees(const struct u64map *m, uint64_t key, bool present,
	     uint64_t value)
{
	const struct u64map_slot *s = u64map_find(m, key);

	return present ? s && s->value == value : !s;
}

/*
 * Random puts, removes and finds against a plain array.  Few keys for
 * many operations keep the table small and its probe runs long.
 */
static bool
random_against_reference(const uint64_t *keys)
{
	static bool present[REF_KEYS];
	static uint64_t values[REF_KEYS];
	struct u64map m;
	uint64_t count = 0;
	unsigned int op;
	bool ok = true;

	memset(present, 0, sizeof(present));
	u64map_init(&m);
	for (op = 0; op < RANDOM_OPS && ok; op++) {
		uint64_t r = rng_next();
		size_t k = (size_t)(r % REF_KEYS);
		unsigned int what = (unsigned int)(r >> 32) % 100;
		uint64_t v = r >> 8, got = 0;

		if (what < 50) {
			bool was = u64map_put(&m, keys[k], v);

			if (was != present[k]) {
				tap_diag("op %u: put of key %zu returned %d",
					 op, k, was);
				ok = false;
			}
			count += !present[k];
			present[k] = true;
			values[k] = v;
		} else if (what < 90) {
			bool was = u64map_remove(&m, keys[k], &got);

			if (was != present[k] || (was && got != values[k])) {
				tap_diag("op %u: remove of key %zu returned %d",
					 op, k, was);
				ok = false;
			}
			count -= present[k];
			present[k] = false;
		} else {
			if (!entry_agrees(&m, keys[k], present[k], values[k])) {
				tap_diag("op %u: find of key %zu is wrong", op, k);
				ok = false;
			}
		}
		if (m.count != count) {
			tap_diag("op %u: count %zu, expected %" PRIu64,
				 op, m.count, count);
			ok = false;
		}
		if (op % 1000 == 999) {
			size_t i;

			for (i = 0; i < REF_KEYS; i++) {
				if (!entry_agrees(&m, keys[i], present[i],
						  values[i])) {
					tap_diag("op %u: key %zu is wrong", op, i);
					ok = false;
					break;
				}
			}
		}
	}
	u64map_free(&m);
	return ok;
}

static void
test_random(void)
{
	static uint64_t keys[REF_KEYS];
	size_t i;

	for (i = 0; i < REF_KEYS; i++)
		keys[i] = i + 1;
	tap_ok(random_against_reference(keys),
	       "%d random operations on small integer keys agree with the reference",
	       RANDOM_OPS);
	for (i = 0; i < REF_KEYS; i++)
		keys[i] = 0x55d4c0000000ULL + 32 * i;
	tap_ok(random_against_reference(keys),
	       "%d random operations on address keys agree with the reference",
	       RANDOM_OPS);
}

static void
test_copy_clear(void)
{
	struct u64map src, dst;
	struct u64map_slot *s;
	uint64_t i, bad;
	size_t mask;

	u64map_init(&src);
	u64map_init(&dst);
	for (i = 1; i <= 1000; i++)
		u64map_put(&src, i * 64, i);
	u64map_copy(&dst, &src);
	tap_eq_u64(dst.count, 1000,
		   "u64map_copy into an empty map copies 1000 entries");
	for (bad = 0, i = 1; i <= 1000; i++) {
		s = u64map_find(&dst, i * 64);
		if (!s || s->value != i)
			bad++;
	}
	tap_eq_u64(bad, 0, "every copied key has its value");
	u64map_put(&dst, 64, 999);
	u64map_remove(&dst, 128, NULL);
	tap_ok(src.count == 1000 && u64map_find(&src, 64)->value == 1 &&
	       u64map_find(&src, 128), "changing the copy leaves the source alone");
	u64map_free(&dst);

	/* Into a map holding some of the keys and others. */
	u64map_put(&dst, 64, 7777);
	u64map_put(&dst, 5, 55);
	u64map_copy(&dst, &src);
	tap_ok(dst.count == 1001 && u64map_find(&dst, 64)->value == 1 &&
	       u64map_find(&dst, 5)->value == 55,
	       "copying into a non-empty map merges, the source's values win");
	u64map_free(&dst);

	u64map_init(&dst);
	u64map_put(&dst, 9, 9);
	{
		struct u64map empty;

		u64map_init(&empty);
		u64map_copy(&dst, &empty);
	}
	tap_ok(dst.count == 1 && u64map_find(&dst, 9)->value == 9,
	       "copying an empty map changes nothing");
	u64map_free(&dst);

	mask = src.mask;
	u64map_clear(&src);
	tap_eq_u64(src.count, 0, "u64map_clear empties the count");
	for (bad = 0, i = 1; i <= 1000; i++)
		if (u64map_find(&src, i * 64))
			bad++;
	tap_eq_u64(bad, 0, "no key is found after u64map_clear");
	{
		unsigned int visits = 0;

		u64map_foreach(&src, s)
			visits++;
		tap_eq_u64(visits, 0, "foreach visits nothing after u64map_clear");
	}
	tap_ok(src.mask == mask && !u64map_put(&src, 64, 3) &&
	       u64map_find(&src, 64)->value == 3 && src.count == 1,
	       "a cleared map keeps its capacity and takes new keys");
	u64map_free(&src);
	u64map_clear(&src);
	tap_eq_u64(src.count, 0, "u64map_clear of a map without slots");
}

enum { FOREACH_KEYS = 5000 };

static bool
foreach_visits_once(const struct u64map *m, const bool *present)
{
	static unsigned int seen[FOREACH_KEYS + 1];
	struct u64map_slot *s;
	size_t visits = 0, i;
	bool ok = true;

	memset(seen, 0, sizeof(seen));
	u64map_foreach(m, s) {
		uint64_t k = s->key / 8;

		visits++;
		if (s->key % 8 || k < 1 || k > FOREACH_KEYS || s->value != k * 2) {
			tap_diag("foreach visited key %" PRIu64
				 " with value %" PRIu64, s->key, s->value);
			ok = false;
			continue;
		}
		seen[k]++;
	}
	for (i = 1; i <= FOREACH_KEYS; i++) {
		if (seen[i] != (present[i] ? 1U : 0U)) {
			tap_diag("key %zu visited %u times", i * 8, seen[i]);
			ok = false;
		}
	}
	return ok && visits == m->count;
}

static void
test_foreach(void)
{
	static bool present[FOREACH_KEYS + 1];
	struct u64map m;
	size_t i;

	u64map_init(&m);
	for (i = 1; i <= FOREACH_KEYS; i++) {
		u64map_put(&m, i * 8, i * 2);
		present[i] = true;
	}
	tap_ok(foreach_visits_once(&m, present),
	       "foreach visits each of %d keys exactly once", FOREACH_KEYS);
	for (i = 1; i <= FOREACH_KEYS; i++) {
		if (rng_next() % 3 == 0) {
			u64map_remove(&m, i * 8, NULL);
			present[i] = false;
		}
	}
	tap_ok(foreach_visits_once(&m, present),
	       "after random removals foreach visits each remaining key once");
	u64map_free(&m);
}

/* The longest run of occupied slots: how far a lookup may have to probe. */
static size_t
longest_run(const struct u64map *m)
{
	size_t i, run = 0, longest = 0, start;

	/* Start after an empty slot, so no run wraps around uncounted. */
	for (start = 0; start <= m->mask && m->slots[start].key; start++)
		;
	for (i = 1; i <= m->mask + 1; i++) {
		run = m->slots[(start + i) & m->mask].key ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

/*
 * Keys shaped like the real ones spread over the table: no long runs.
 * At the load of 100,000 keys (0.38) a random hash gives runs of a few
 * dozen; a hash blind to some of the key's bits, runs of thousands.
 */
static void
test_spread(void)
{
	static const char *const shapes[] = {
		"ids 1, 2, 3", "ids shifted into the high half (id << 32 | 7)",
		"16-byte aligned addresses", "page-aligned addresses",
		"pid << 32 | tid",
	};
	size_t shape, i;

	for (shape = 0; shape < sizeof(shapes) / sizeof(shapes[0]); shape++) {
		struct u64map m;
		size_t longest;

		u64map_init(&m);
		for (i = 1; i <= 100000; i++) {
			uint64_t keys[] = {
				i, (uint64_t)i << 32 | 7, 0x555555550000ULL + 16 * i,
				0x7f0000000000ULL + 4096 * i, (uint64_t)(1000 + i % 64) << 32 | i,
			};

			u64map_put(&m, keys[shape], i);
		}
		longest = longest_run(&m);
		tap_ok(longest < 200, "%s: the longest probe run is %zu slots", shapes[shape],
		       longest);
		u64map_free(&m);
	}
}

int
main(void)
{
	tap_plan(58);
	test_basic();
	test_growth();
	test_collisions();
	test_random();
	test_copy_clear();
	test_foreach();
	test_spread();
	return tap_done();
}
