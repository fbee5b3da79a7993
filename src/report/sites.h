/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Allocation sites, for the reports: each call's stack, resolved against
 * what its process mapped at the time into (file, offset) frames, so that
 * the same code path is one site across processes, execs and address
 * space randomisation.
 */
#ifndef MEMSUP_SITES_H
#define MEMSUP_SITES_H

#include <stdbool.h>
#include <stdint.h>
#include "address-spaces.h"
#include "record.h"
#include "stack-table.h"
#include "u64map.h"

struct sites {
	struct address_spaces spaces;
	struct u64map stack_ids;	/* capture's stack id -> stacks id */
	struct stack_table stacks;	/* the capture's stacks, as addresses */
	struct stack_table resolved;	/* sites: frames as (module, offset) */
	struct u64map site_of;		/* stack id << 32 | space generation -> site */
	/*
	 * The address space of the last call's process, while only calls
	 * and stacks came after it, which change no space.
	 */
	struct address_space *last_space;
	uint32_t last_pid;
	/*
	 * By the capture's stack id, when ids are dense (the supervisor's
	 * are): site_of's last answer and the generation it holds for, so
	 * that a call's site is one array read, not two lookups in tables
	 * as large as the stacks are many.
	 */
	struct site_memo {
		uint32_t generation;	/* 0: none (generations count from 1) */
		uint32_t site;
	} *memo;
	size_t memo_cap;
};

/* A resolved frame: the module (index + 1, 0 if none) and the offset. */
#define SITE_FRAME_MODULE(f)	((uint32_t)((f) >> 48))
#define SITE_FRAME_OFFSET(f)	((uint64_t)((f) & ((UINT64_C(1) << 48) - 1)))

void sites_init(struct sites *s);
void sites_free(struct sites *s);
/* Follows the mappings and stacks; sets r->call.site of a CALL. */
void sites_apply(struct sites *s, struct record *r);
/* Site id's frames, innermost first. */
const uint64_t *sites_frames(const struct sites *s, uint32_t site, uint32_t *n);

#endif
