/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The functions a compiler inlined at an address, from DWARF's inlined
 * subroutine entries (libdw): the allocation a C++ or Rust user looks
 * for is often inside inlined library code, and only the inline chain
 * leads back to the user's own line.
 */
#ifndef MEMSUP_INLINE_FRAMES_H
#define MEMSUP_INLINE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct Dwarf Dwarf;

/* One function inlined at the address. */
struct inline_frame {
	char *function;	/* demangled; NULL when DWARF names none */
	char *where;	/* "file:line" in it of the next call in, or NULL */
};

/*
 * The functions inlined at addr (an address of dw's file), innermost
 * first, into *v (to free with inline_frames_free), and their count.
 * *where is the "file:line" (to free) in the function that holds them:
 * where the outermost was inlined, or addr's own line without any; NULL
 * when DWARF does not say.
 */
size_t inline_frames(Dwarf *dw, uint64_t addr, struct inline_frame **v, char **where);
void inline_frames_free(struct inline_frame *v, size_t n);

#endif
