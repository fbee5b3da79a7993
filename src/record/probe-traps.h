/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probed functions of a session, numbered: each file's allocator
 * functions get their ids the first time probes are attached to the
 * file, their shapes go to BPF (probe_shapes) under those ids, and the
 * traps each function took (probe_traps) are read back at the end.
 */
#ifndef MEMSUP_PROBE_TRAPS_H
#define MEMSUP_PROBE_TRAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_loader;
struct probe_target;

struct probe_traps {
	int shapes_fd, traps_fd;
	/* The files with ids, in the order they got them: the first's start at 0. */
	const struct probe_target **targets;
	size_t ntargets, targets_cap;
	uint32_t next_id;
};

/* A probed function and the traps it took, summed over the CPUs. */
struct function_traps {
	const char *name;
	const char *path;	/* of its file */
	uint64_t entries;
	uint64_t returns;
};

/* The maps are bpf's, which must outlive pt. */
void probe_traps_init(struct probe_traps *pt, const struct bpf_loader *bpf);
void probe_traps_free(struct probe_traps *pt);

/*
 * The id of t's first allocator function, the others following in
 * t->calls' order; given, and their shapes sent to BPF, the first time t
 * is asked for.  Returns the id, or a negative errno: -ENOSPC when
 * MS_PROBES_MAX functions have ids already.
 */
int64_t probe_traps_first_id(struct probe_traps *pt, const struct probe_target *t);

/*
 * Every function that took a trap, the most entries first, into *out
 * (which the caller frees; names and paths are the targets').  Returns
 * how many, or a negative errno.
 */
ssize_t probe_traps_read(const struct probe_traps *pt, struct function_traps **out);

#endif
