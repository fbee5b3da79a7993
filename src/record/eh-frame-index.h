/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The .eh_frame_hdr search table of an ELF file: where every frame
 * description (FDE) of .eh_frame starts, sorted by address, as the C
 * library's unwinder and libunwind search it.  Only the layout GNU ld,
 * gold and lld write is taken.
 */
#ifndef MEMSUP_EH_FRAME_INDEX_H
#define MEMSUP_EH_FRAME_INDEX_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/* The table's header is this long; the table follows it. */
#define EH_FRAME_INDEX_TABLE 12

struct eh_frame_index {
	uint64_t hdr_vaddr;	/* the header's address in the file's image */
	uint64_t count;		/* FDEs in the table */
	const unsigned char *table;	/* count pairs of s32, from hdr_vaddr:
					 * an FDE's start and the FDE itself */
};

/* Finds the table through PT_GNU_EH_FRAME; false when there is none. */
bool eh_frame_index_read(Elf *elf, struct eh_frame_index *ix);
/* Where the ith FDE of the table starts. */
uint64_t eh_frame_index_start(const struct eh_frame_index *ix, uint64_t i);

#endif
