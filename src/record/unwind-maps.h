/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unwind tables in the maps of the BPF walker (bpf/unwind-walk.bpf.h):
 * each file's table built once (src/record/unwind-table.c), whatever path it is
 * mapped from (one a build-id), its pages and rows put in the arrays all
 * files share and its rules among the shared rules; each process's
 * space, its mappings that have a table, written again whenever what it
 * maps changes, while the process is stopped; and the room of a table no
 * process maps any more given to the next table that needs it.
 */
#ifndef MEMSUP_UNWIND_MAPS_H
#define MEMSUP_UNWIND_MAPS_H

#include "address-spaces.h"
#include "free-runs.h"
#include "memsup.h"
#include "record.h"
#include "u64map.h"

#include <stddef.h>
#include <stdint.h>

struct bpf_map;
struct unwind_file;

struct unwind_maps {
	const struct bpf_map *spaces;
	struct ms_unwind_page *pages;	/* the pages array, mapped */
	size_t pages_cap;
	struct ms_unwind_row *rows;	/* the rows array, mapped */
	size_t rows_cap;
	struct free_runs free_pages, free_rows;
	struct ms_unwind_rule *rules;	/* the rules array, mapped */
	size_t nrules, rules_cap;
	struct u64map rule_index;	/* unwind_rule_key -> index + 1 */
	struct unwind_file *files;	/* one a build-id */
	size_t nfiles, files_cap;
	uint32_t *module_file;		/* module index - 1 -> file index + 1 */
	size_t nmodules, module_file_cap;
	struct u64map space_files;	/* pid -> the files its space has */
	uint64_t clock;			/* counts the times a file fell out of use */
	uint64_t files_without_room;	/* tables the arrays could not hold */
};

/* Maps the arrays; returns 0 or -errno. */
int unwind_maps_open(struct unwind_maps *u, const struct bpf_map *pages,
		     const struct bpf_map *rows, const struct bpf_map *rules,
		     const struct bpf_map *spaces);
/* Follows a record that a has just applied: the spaces it changes. */
void unwind_maps_follow(struct unwind_maps *u, const struct address_spaces *a,
			const struct record *r);
void unwind_maps_close(struct unwind_maps *u);

#endif
