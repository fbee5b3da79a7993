/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stack table: each distinct stack once, by content, under an id
 * from 1 up, so that a capture holds a stack once however many calls
 * share it.
 */
#ifndef MEMSUP_STACK_TABLE_H
#define MEMSUP_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "u64map.h"

struct stack_table {
	struct u64map by_hash;	/* content hash (probed linearly) -> id */
	uint64_t *frames;	/* every stack's frames, one after another */
	size_t nframes, frames_cap;
	struct {
		size_t at;
		uint32_t n;
	} *stacks;		/* by id - 1 */
	uint32_t count;
	size_t stacks_cap;
};

void stack_table_init(struct stack_table *t);
void stack_table_free(struct stack_table *t);
/* The id of the stack frames[0..n), added if new (*added). */
uint32_t stack_table_intern(struct stack_table *t, const uint64_t *frames,
			    uint32_t n, bool *added);
/* A content hash of words, from seed, in four lanes, mixed down; never 0. */
uint64_t stack_hash_words(uint64_t seed, const uint64_t *words, size_t n);
/* Stack id's frames and their number; NULL for an unknown id. */
const uint64_t *stack_table_get(const struct stack_table *t, uint32_t id, uint32_t *n);

#endif
