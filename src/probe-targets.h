/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe discovery: which files a process's image needs probed, and where
 * their allocator functions are (ELF symbols to file offsets).
 */
#ifndef MEMSUP_PROBE_TARGETS_H
#define MEMSUP_PROBE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "memsup.h"

/* The allocator functions one ELF file defines, by file offset. */
struct probe_target {
	char *path;
	dev_t dev;
	ino_t ino;
	bool dynamic;		/* has an ELF interpreter */
	size_t ncalls;
	struct {
		uint32_t call;		/* enum ms_call */
		uint64_t offset;
	} calls[MS_CALL_MAX];
};

/* The targets to probe in the image a process runs now. */
struct image_targets {
	const struct probe_target *targets[2];
	size_t ntargets;
	const struct probe_target *exe;	/* attached through /proc/PID/exe */
};

/*
 * Reads the allocator functions of the ELF file open as fd into t, all but
 * its path.  Returns 0, or a negative errno (-ENOEXEC: not a 64-bit ELF
 * file).  Offsets are checked against the file's size: a hostile file
 * yields fewer probes, never bad ones.
 */
int probe_target_read(int fd, struct probe_target *t);

/*
 * Works out what to probe for the image pid runs (read through
 * /proc/pid/exe): the executable itself when it defines allocator
 * functions (static binaries), and the C library when it is dynamically
 * linked.  Returns 0 or a negative errno; *why names the file at fault.
 */
int image_targets_find(pid_t pid, struct image_targets *out, const char **why);

/* Frees the cache of resolved targets. */
void probe_targets_release(void);

#endif
