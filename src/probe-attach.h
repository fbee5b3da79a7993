/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe attach: memsup's BPF programs on the allocator functions of the
 * files a process maps, for that process only.
 */
#ifndef MEMSUP_PROBE_ATTACH_H
#define MEMSUP_PROBE_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "probe-targets.h"

struct memsup_bpf;
struct bpf_link;

/* The links of one file in one process. */
struct target_links {
	const struct probe_target *target;
	int fd;				/* the uprobe session link, or -1 */
	struct bpf_link **links;	/* else a perf link per probe */
	size_t nlinks;
};

struct process_probes {
	struct target_links per_target[2];
	size_t ntargets;
};

/* The expected attach type that makes alloc_session a session program. */
int probes_session_attach_type(void);

/*
 * Makes pid's probes those of its image: links to files it still maps
 * are kept (an exec of another program on the same C library keeps
 * them), the others detached before this returns, and the missing ones
 * attached, with session links or a perf link per probe.  Returns 0 or a
 * negative errno; on failure the process has no probes.
 */
int process_probes_attach(struct process_probes *pp, const struct memsup_bpf *skel,
			  bool session_links, pid_t pid, const struct image_targets *it);
/* The process lives on untraced: its links are gone when this returns. */
void process_probes_detach(struct process_probes *pp);
/* The process is gone: its links are closed in the background. */
void process_probes_release(struct process_probes *pp);

#endif
