/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unwinder of copied stacks: from the registers and stack bytes a
 * BPF program copied at an allocation's return, the call chain, found
 * through the DWARF call-frame information (.eh_frame) of the files the
 * process mapped, read from disk.  The model is perf's --call-graph dwarf.
 *
 * One backend per build: libunwind's remote unwinder, or none.
 */
#ifndef MEMSUP_UNWIND_H
#define MEMSUP_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "address-spaces.h"
#include "memsup.h"

struct unwinder;

/* The backend's name, for --version; NULL when this build has none. */
extern const char *const unwind_backend;

/*
 * An unwinder over the files that spaces says each process maps, or NULL
 * with errno set (ENOTSUP in a build without one).
 */
struct unwinder *unwinder_new(struct address_spaces *spaces);
void unwinder_free(struct unwinder *u);

/*
 * The return addresses of a copy of len bytes (the record as the ring
 * carried it), innermost first, at most max of them: how many.
 */
uint32_t unwinder_unwind(struct unwinder *u, const struct ms_stack_copy *copy,
			 size_t len, uint64_t *frames, uint32_t max);
/*
 * What unwinding took so far.  A copy is not unwound when the places an
 * earlier unwind read hold the same values in it: it gets that unwind's
 * frames.
 */
struct unwind_stats {
	uint64_t copies;	/* handed to unwinder_unwind() */
	uint64_t copy_bytes;	/* their stack bytes */
	uint64_t unwound;	/* of them, unwound by libunwind */
	uint64_t unwind_ns;	/* the time that took */
};
void unwinder_stats(const struct unwinder *u, struct unwind_stats *out);

#endif
