// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "probe-attach.h"
#include "bpf-loader.h"
#include "error.h"
#include "link-reaper.h"
#include "probe-traps.h"
#include "memsup.skel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * BPF_LINK_CREATE for a uprobe session link (Linux 6.10+).  libbpf 1.1
 * knows neither the attach type nor its attributes, so the call is made
 * here; the layout is the kernel's link_create.uprobe_multi, a stable ABI.
 */
enum {
	MS_BPF_LINK_CREATE = 28,
	MS_BPF_TRACE_UPROBE_SESSION = 57,
};

struct uprobe_session_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad;
};

int
probes_session_attach_type(void)
{
	return MS_BPF_TRACE_UPROBE_SESSION;
}

/* Where the probes of one file go, and the cookies that name their functions. */
struct call_probes {
	const char *path;
	uint32_t first_id;
	bool in_exe;
};

static uint64_t
probe_cookie(const struct call_probes *cp, size_t i)
{
	return MS_PROBE_COOKIE(cp->first_id + i, cp->in_exe);
}

static int
attach_session(struct target_links *tl, const struct memsup_bpf *skel,
	       pid_t pid, const struct call_probes *cp)
{
	const struct probe_target *t = tl->target;
	uint64_t *offsets = xcalloc(t->ncalls, sizeof(*offsets));
	uint64_t *cookies = xcalloc(t->ncalls, sizeof(*cookies));
	struct uprobe_session_attr attr;
	size_t i;
	int fd;

	for (i = 0; i < t->ncalls; i++) {
		offsets[i] = t->calls[i].offset;
		cookies[i] = probe_cookie(cp, i);
	}
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)bpf_program__fd(skel->progs.alloc_session);
	attr.attach_type = MS_BPF_TRACE_UPROBE_SESSION;
	attr.path = (uintptr_t)cp->path;
	attr.offsets = (uintptr_t)offsets;
	attr.cookies = (uintptr_t)cookies;
	attr.cnt = (uint32_t)t->ncalls;
	attr.pid = (uint32_t)pid;
	fd = (int)syscall(__NR_bpf, MS_BPF_LINK_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		fd = -errno;
	free(offsets);
	free(cookies);
	if (fd < 0)
		return fd;
	tl->fd = fd;
	return 0;
}

static int
attach_perf(struct target_links *tl, struct bpf_program *prog, pid_t pid,
	    const char *path, uint64_t offset, uint64_t cookie, bool retprobe)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie, .retprobe = retprobe);
	struct bpf_link *link;

	link = bpf_program__attach_uprobe_opts(prog, pid, path, offset, &opts);
	if (!link)
		return -errno;
	tl->links[tl->nlinks++] = link;
	return 0;
}

/*
 * A perf link for each entry and each return: a free's return ends the
 * time in which the frees it makes are nested in it.  A free that makes
 * none has no return link.
 */
static int
attach_perf_links(struct target_links *tl, const struct memsup_bpf *skel,
		  pid_t pid, const struct call_probes *cp)
{
	const struct probe_target *t = tl->target;
	size_t i;
	int err = 0;

	tl->links = xcalloc(2 * t->ncalls, sizeof(*tl->links));
	tl->links_cap = 2 * t->ncalls;
	for (i = 0; i < t->ncalls && !err; i++) {
		uint64_t cookie = probe_cookie(cp, i);
		uint64_t off = t->calls[i].offset;

		err = attach_perf(tl, skel->progs.alloc_enter, pid, cp->path, off,
				  cookie, false);
		if (!err && !(MS_SHAPE_FLAGS(t->calls[i].shape) & MS_SHAPE_ENTRY_ONLY))
			err = attach_perf(tl, skel->progs.alloc_exit, pid, cp->path,
					  off, cookie, true);
	}
	return err;
}

static int
attach_region_mark(struct target_links *tl, const struct memsup_bpf *skel, pid_t pid,
		   const char *path, const char *probe, enum ms_region_mark mark)
{
	LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = mark);
	struct bpf_link *link;

	link = bpf_program__attach_usdt(skel->progs.region_mark, pid, path,
					REGION_PROVIDER, probe, &opts);
	if (!link)
		return -errno;
	tl->links[tl->nlinks++] = link;
	return 0;
}

/* libbpf reads the probes' notes and arguments: a link for each mark. */
static int
attach_regions(struct target_links *tl, const struct memsup_bpf *skel, pid_t pid,
	       const char *path)
{
	int err;

	tl->links = xgrow(tl->links, &tl->links_cap, tl->nlinks + 2, sizeof(*tl->links));
	err = attach_region_mark(tl, skel, pid, path, "region_begin", MS_REGION_BEGIN);
	if (!err)
		err = attach_region_mark(tl, skel, pid, path, "region_end", MS_REGION_END);
	return err;
}

static int
attach_calls(struct target_links *tl, const struct bpf_loader *bpf,
	     struct probe_traps *traps, pid_t pid, const char *path, bool in_exe)
{
	struct call_probes cp = { .path = path, .in_exe = in_exe };
	int64_t first_id;

	if (!tl->target->ncalls)
		return 0;
	first_id = probe_traps_first_id(traps, tl->target);
	if (first_id < 0)
		return (int)first_id;
	cp.first_id = (uint32_t)first_id;
	if (bpf->session_links)
		return attach_session(tl, bpf->skel, pid, &cp);
	return attach_perf_links(tl, bpf->skel, pid, &cp);
}

static int
attach_target(struct target_links *tl, const struct bpf_loader *bpf,
	      struct probe_traps *traps, pid_t pid, const struct image_targets *it)
{
	char link[64];
	const char *path = tl->target->path;
	int err;

	/* The executable's path may name another file by now. */
	if (tl->target == it->exe) {
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		path = link;
	} else if (tl->target->fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", tl->target->fd);
		path = link;
	}
	tl->fd = -1;
	tl->links = NULL;
	tl->nlinks = 0;
	tl->links_cap = 0;
	err = attach_calls(tl, bpf, traps, pid, path, tl->target == it->exe);
	if (!err && tl->target->regions)
		err = attach_regions(tl, bpf->skel, pid, path);
	return err;
}

/* Synchronous: once this returns, no probe of tl fires. */
static void
detach_target(struct target_links *tl)
{
	size_t i;

	if (tl->fd >= 0)
		close(tl->fd);
	for (i = 0; i < tl->nlinks; i++)
		bpf_link__destroy(tl->links[i]);
	free(tl->links);
}

static struct target_links *
new_links(struct process_probes *pp)
{
	pp->per_target = xgrow(pp->per_target, &pp->per_target_cap, pp->ntargets + 1,
			       sizeof(*pp->per_target));
	return &pp->per_target[pp->ntargets];
}

static struct target_links *
links_of(struct process_probes *pp, const struct probe_target *t)
{
	size_t i;

	for (i = 0; i < pp->ntargets; i++)
		if (pp->per_target[i].target == t)
			return &pp->per_target[i];
	return NULL;
}

int
process_probes_attach(struct process_probes *pp, const struct bpf_loader *bpf,
		      struct probe_traps *traps, pid_t pid,
		      const struct image_targets *it)
{
	size_t i;
	int err = 0;

	for (i = 0; i < it->ntargets && !err; i++) {
		struct target_links *tl;

		if (links_of(pp, it->targets[i]))
			continue;
		tl = new_links(pp);
		tl->target = it->targets[i];
		err = attach_target(tl, bpf, traps, pid, it);
		if (err)
			detach_target(tl);
		else
			pp->ntargets++;
	}
	if (err)
		process_probes_detach(pp);
	return err;
}

void
process_probes_release(struct process_probes *pp, struct link_reaper *reaper)
{
	size_t i;

	/* One link a reaper: closes at once share their grace periods. */
	for (i = 0; i < pp->ntargets; i++) {
		struct target_links *tl = &pp->per_target[i];
		size_t j;

		if (tl->fd >= 0) {
			int *fd = xmalloc(sizeof(*fd));

			*fd = tl->fd;
			link_reaper_close(reaper, fd, 1, NULL, 0);
		}
		for (j = 0; j < tl->nlinks; j++) {
			struct bpf_link **link = xmalloc(sizeof(*link));

			*link = tl->links[j];
			link_reaper_close(reaper, NULL, 0, link, 1);
		}
		free(tl->links);
	}
	free(pp->per_target);
	pp->per_target = NULL;
	pp->ntargets = 0;
	pp->per_target_cap = 0;
}

void
process_probes_detach(struct process_probes *pp)
{
	size_t i;

	for (i = 0; i < pp->ntargets; i++)
		detach_target(&pp->per_target[i]);
	free(pp->per_target);
	pp->per_target = NULL;
	pp->ntargets = 0;
	pp->per_target_cap = 0;
}
