/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe discovery and attach: find the allocator entry points in an ELF
 * file and attach memsup's BPF programs to them for one process.
 */
#ifndef MEMSUP_PROBES_H
#define MEMSUP_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "memsup.h"

struct memsup_bpf;
struct bpf_link;

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

/* The links attached to one process. */
struct process_probes {
	struct bpf_link **links;	/* perf links (fallback) */
	size_t nlinks;
	int *fds;			/* uprobe session links */
	size_t nfds;
};

/*
 * Works out what to probe for the image pid runs (read through
 * /proc/pid/exe): the executable itself when it defines allocator
 * functions (static binaries), and the C library when it is dynamically
 * linked.  Returns 0 or a negative errno; *why names the file at fault.
 */
int image_targets_find(pid_t pid, struct image_targets *out, const char **why);

/* The expected attach type that makes alloc_session a session program. */
int probes_session_attach_type(void);

/*
 * Attaches every probe of the targets to pid, with session links or else
 * a perf link per probe; on failure attaches none.
 */
int process_probes_attach(struct process_probes *pp, const struct memsup_bpf *skel,
			  bool session_links, pid_t pid, const struct image_targets *it);
void process_probes_detach(struct process_probes *pp);

/* Frees the cache of resolved targets. */
void probe_targets_release(void);

#endif
