/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What each process of a capture maps, followed through its MAPPING,
 * FORK, EXEC and EXIT records: the files, as modules named by path and
 * build-id, and where each is mapped.  The reports resolve stack
 * addresses through it; the supervisor unwinds copied stacks through it.
 */
#ifndef MEMSUP_ADDRESS_SPACES_H
#define MEMSUP_ADDRESS_SPACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record.h"
#include "u64map.h"

/* A file some process mapped, as a MAPPING record named it. */
struct space_module {
	char *path;
	char *open_path;	/* where it opens, if not at path; NULL */
	uint8_t build_id[BUILD_ID_MAX];
	uint8_t build_id_len;
};

struct space_mapping {
	uint64_t start, end, offset;
	uint32_t module;	/* index + 1 */
};

/* What one process maps, and a generation that changes when that does. */
struct address_space {
	uint32_t generation;
	size_t n, cap;
	struct space_mapping *maps;
};

struct address_spaces {
	struct u64map by_pid;		/* pid -> struct address_space * */
	struct space_module *modules;
	uint32_t nmodules;
	size_t modules_cap;
	uint32_t generation;
};

void address_spaces_init(struct address_spaces *a);
void address_spaces_free(struct address_spaces *a);
/* Follows a record; only MAPPING, FORK, EXEC, ATTACH and EXIT matter. */
void address_spaces_apply(struct address_spaces *a, const struct record *r);
/* Process pid's space, empty if nothing is known of it. */
struct address_space *address_spaces_get(struct address_spaces *a, uint32_t pid);
/* The mapping of as that holds addr, or NULL. */
const struct space_mapping *address_space_find(const struct address_space *as,
					       uint64_t addr);
/* Whether a and b are one build of a file: both have a build-id, the same. */
bool space_modules_same_build(const struct space_module *a, const struct space_module *b);

#endif
