/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An unwind table (src/record/unwind-table.h) in the form the BPF walker reads:
 * the file's addresses cut in pages of 64 KiB, each page with its own
 * rows of 4 bytes (the address's low 16 bits and a rule number).  A page
 * that starts inside a rule's range begins with a row for it, so a search
 * never leaves its page; the page is found by arithmetic, not searched.
 */
#ifndef MEMSUP_UNWIND_PAGES_H
#define MEMSUP_UNWIND_PAGES_H

#include "memsup.h"
#include "unwind-table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwind_pages {
	struct ms_unwind_page *pages;	/* page i holds lowest + (i << 16) on */
	size_t npages;
	struct ms_unwind_row *rows;	/* first_row counts from rows[0] */
	size_t nrows;
};

/*
 * Packs t, whose addresses count from lowest, with rule number
 * rules[r] for its rule r (r itself without rules).  Returns false when
 * an address lies below lowest or 4 GiB above it, or a rule number does
 * not take 16 bits.
 */
bool unwind_pages_pack(const struct unwind_table *t, uint64_t lowest,
		       const uint32_t *rules, struct unwind_pages *p);
/*
 * The rule number for the address lowest + rel, as the walker finds it,
 * or -ENOENT when no row covers it.
 */
int64_t unwind_pages_find(const struct unwind_pages *p, uint32_t rel);
/* The bytes p takes in the walker's maps. */
size_t unwind_pages_bytes(const struct unwind_pages *p);
void unwind_pages_free(struct unwind_pages *p);

#endif
