/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe attach: memsup's BPF programs on the allocator functions and the
 * region marks of the files a process maps, for that process only.
 */
#ifndef MEMSUP_PROBE_ATTACH_H
#define MEMSUP_PROBE_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "probe-targets.h"

struct bpf_link;
struct link_reaper;
struct bpf_loader;
struct probe_traps;

/* The links of one file in one process. */
struct target_links {
	const struct probe_target *target;
	int fd;				/* the uprobe session link, or -1 */
	struct bpf_link **links;	/* else a perf link per probe; then
					 * the region marks' links */
	size_t nlinks, links_cap;
};

struct process_probes {
	struct target_links *per_target;
	size_t ntargets, per_target_cap;
};

/* The expected attach type that makes alloc_session a session program. */
int probes_session_attach_type(void);

/*
 * Adds to pid's probes, of the programs bpf loaded, the files of it that
 * have none yet.  Links to files it no longer maps are kept, until the
 * process is gone: they cost nothing while nothing maps the file, and a
 * file mapped again (the C library, after an exec of another dynamic
 * program) finds its links still there, so that no call is probed
 * twice.  Each probe's cookie names its function by the id traps gives it.
 * Returns 0 or a negative errno (-ENOSPC: no ids left); on failure the
 * process has no probes.
 */
int process_probes_attach(struct process_probes *pp, const struct bpf_loader *bpf,
			  struct probe_traps *traps, pid_t pid,
			  const struct image_targets *it);
/* The process lives on untraced: its links are gone when this returns. */
void process_probes_detach(struct process_probes *pp);
/* The process is gone: its links are closed in the background, by reaper. */
void process_probes_release(struct process_probes *pp, struct link_reaper *reaper);

#endif
