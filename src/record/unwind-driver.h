/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The consumer's unwinding: its own view of what each process maps,
 * followed through the MAPPING, FORK, EXEC, ATTACH and EXIT records it is
 * handed; the unwinder of stack copies, which reads that view; and the
 * BPF walker's unwind tables, kept to it.
 */
#ifndef MEMSUP_UNWIND_DRIVER_H
#define MEMSUP_UNWIND_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include "address-spaces.h"
#include "record.h"

struct bpf_loader;
struct unwind_maps;
struct unwind_stats;
struct unwinder;

struct unwind_driver {
	/* Followed only when something reads it: an unwinder or tables. */
	struct address_spaces spaces;
	struct unwinder *unwinder;	/* of stack copies, when the programs copy */
	/* The walker's tables, with auto stacks and libdw; else NULL. */
	struct unwind_maps *tables;
};

/*
 * Sets up what the loaded programs need: an unwinder for their copies,
 * tables for their walker.  Returns 0 or a negative errno, with *why
 * saying which step failed.
 */
int unwind_driver_open(struct unwind_driver *u, const struct bpf_loader *bpf,
		       const char **why);
void unwind_driver_close(struct unwind_driver *u);
/*
 * Follows a record handed to the sink.  Call it for every record, in the
 * order the capture has them, while the process is stopped: a copy is
 * then unwound, and the walker's tables cover, what the process mapped
 * at the time.
 */
void unwind_driver_follow(struct unwind_driver *u, const struct record *r);
/* Tables the BPF arrays could not hold; false when no table is walked. */
bool unwind_driver_files_without_room(const struct unwind_driver *u, uint64_t *n);
/* What unwinding the stack copies took: unwinder_stats(). */
void unwind_driver_stats(const struct unwind_driver *u, struct unwind_stats *out);

#endif
