/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An open-addressing hash map from a non-zero 64-bit key to a 64-bit value:
 * the live-block table (address -> size) and the pid and tid tables.
 * Deletion shifts entries back instead of leaving tombstones, so a table
 * that sees millions of malloc/free pairs never degrades.
 */
#ifndef MEMSUP_U64MAP_H
#define MEMSUP_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key;		/* 0: empty */
	uint64_t value;
};

struct u64map {
	struct u64map_slot *slots;
	size_t mask;		/* capacity - 1; capacity is a power of two */
	size_t count;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
void u64map_clear(struct u64map *m);

/* Returns the slot of key, or NULL. */
struct u64map_slot *u64map_find(const struct u64map *m, uint64_t key);
/* Inserts or overwrites.  Returns true if key was already present. */
bool u64map_put(struct u64map *m, uint64_t key, uint64_t value);
/* Removes key; returns true and its value in *value if it was present. */
bool u64map_remove(struct u64map *m, uint64_t key, uint64_t *value);
/* Copies every entry of src into dst. */
void u64map_copy(struct u64map *dst, const struct u64map *src);

#define u64map_foreach(m, s)						\
	for ((s) = (m)->slots; (m)->slots && (s) <= (m)->slots + (m)->mask; (s)++) \
		if ((s)->key)

#endif
