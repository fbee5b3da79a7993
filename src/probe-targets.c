// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "probe-targets.h"
#include "allocator-functions.h"
#include "elf-functions.h"
#include "error.h"
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Resolved files, kept for the whole run: a shell tree execs the same few. */
static struct probe_target **cache;
static size_t ncache;

/* An allocator function found in the symbol tables. */
struct found_function {
	uint64_t vaddr;
	uint64_t shape;
	size_t rank;		/* among names of one address, the lowest wins */
};

struct elf_scan {
	bool dynamic;			/* has PT_INTERP */
	bool regions;
	struct found_function *found;
	size_t nfound;
	GElf_Phdr *loads;
	size_t nloads;
};

/* Keeps one name per address: .symtab and .dynsym repeat each other. */
static void
found(struct elf_scan *scan, uint64_t vaddr, uint64_t shape, size_t rank)
{
	size_t i;

	for (i = 0; i < scan->nfound; i++) {
		if (scan->found[i].vaddr != vaddr)
			continue;
		if (rank < scan->found[i].rank) {
			scan->found[i].shape = shape;
			scan->found[i].rank = rank;
		}
		return;
	}
	scan->found = xreallocarray(scan->found, scan->nfound + 1, sizeof(*scan->found));
	scan->found[scan->nfound++] = (struct found_function){ vaddr, shape, rank };
}

static void
on_function(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	uint64_t shape;
	size_t rank;

	if ((shape = allocator_function(name, &rank)))
		found(ctx, vaddr, shape, rank);
}

static int
scan_segments(Elf *elf, struct elf_scan *scan)
{
	size_t i, nphdrs;

	if (elf_getphdrnum(elf, &nphdrs))
		return -ENOEXEC;
	scan->loads = xcalloc(nphdrs, sizeof(*scan->loads));
	for (i = 0; i < nphdrs; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr))
			return -ENOEXEC;
		if (phdr.p_type == PT_INTERP)
			scan->dynamic = true;
		else if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X))
			scan->loads[scan->nloads++] = phdr;
	}
	return 0;
}

static int
scan_elf(int fd, struct elf_scan *scan)
{
	Elf *elf;
	int err;

	memset(scan, 0, sizeof(*scan));
	elf = elf_open_fd(fd);
	if (!elf)
		return -ENOEXEC;
	err = scan_segments(elf, scan);
	if (!err) {
		elf_foreach_function(elf, on_function, scan);
		scan->regions = elf_has_usdt_provider(elf, REGION_PROVIDER);
	}
	elf_end(elf);
	return err;
}

/*
 * uprobes take a file offset, symbols give a virtual address.  A hostile
 * file can map an address past its own end; such an offset is no probe.
 */
static bool
file_offset(const struct elf_scan *scan, uint64_t vaddr, uint64_t file_size,
	    uint64_t *offset)
{
	size_t i;

	for (i = 0; i < scan->nloads; i++) {
		const GElf_Phdr *p = &scan->loads[i];

		if (vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz) {
			*offset = vaddr - p->p_vaddr + p->p_offset;
			return *offset >= p->p_offset && *offset < file_size;
		}
	}
	return false;
}

static void
fill_target(struct probe_target *t, const struct elf_scan *scan, uint64_t file_size)
{
	size_t i;

	t->calls = xcalloc(scan->nfound, sizeof(*t->calls));
	for (i = 0; i < scan->nfound; i++) {
		uint64_t offset;

		if (!file_offset(scan, scan->found[i].vaddr, file_size, &offset))
			continue;
		t->calls[t->ncalls].shape = scan->found[i].shape;
		t->calls[t->ncalls].offset = offset;
		t->ncalls++;
	}
}

int
probe_target_read(int fd, struct probe_target *t)
{
	struct elf_scan scan;
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	err = scan_elf(fd, &scan);
	if (!err) {
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		t->dynamic = scan.dynamic;
		t->regions = scan.regions;
		t->ncalls = 0;
		fill_target(t, &scan, (uint64_t)st.st_size);
	}
	free(scan.found);
	free(scan.loads);
	return err;
}

static struct probe_target *
cached_target(const struct stat *st)
{
	size_t i;

	for (i = 0; i < ncache; i++)
		if (cache[i]->dev == st->st_dev && cache[i]->ino == st->st_ino)
			return cache[i];
	return NULL;
}

/*
 * Resolves one file, once per inode.  scan_path is what is opened (for
 * the executable, /proc/PID/exe, which names the very inode the process
 * runs even if its path was replaced since).
 */
static int
resolve_target(const char *scan_path, const char *display_path, bool keep_open,
	       struct probe_target **out)
{
	struct probe_target *t;
	struct stat st;
	int fd, err;

	if (stat(scan_path, &st))
		return -errno;
	t = cached_target(&st);
	if (t) {
		*out = t;
		return 0;
	}
	fd = open(scan_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t = xcalloc(1, sizeof(*t));
	err = probe_target_read(fd, t);
	if (err) {
		close(fd);
		free(t->calls);
		free(t);
		return err;
	}
	t->fd = keep_open ? fd : -1;
	if (!keep_open)
		close(fd);
	t->path = xstrdup(display_path);
	cache = xreallocarray(cache, ncache + 1, sizeof(*cache));
	cache[ncache++] = t;
	*out = t;
	return 0;
}

struct maps_scan {
	pid_t pid;
	struct image_targets *out;
	struct stat exe;
	const char *exe_path;
	int err;
	char *why;		/* the file that failed, kept past the scan */
	size_t why_size;
};

static bool
listed(const struct image_targets *it, const struct probe_target *t)
{
	size_t i;

	for (i = 0; i < it->ntargets; i++)
		if (it->targets[i] == t)
			return true;
	return false;
}

/* One mapping of the process: a file to probe if it has allocators. */
static int
scan_mapping(void *ctx, const struct proc_mapping *m)
{
	struct maps_scan *ms = ctx;
	struct image_targets *out = ms->out;
	struct probe_target *t;
	char exe[64];
	struct stat st;
	int err;

	if (!m->exec)
		return 0;
	/* m->path lives only as long as the callback. */
	snprintf(ms->why, ms->why_size, "%s", m->path);
	if (stat(m->open_path, &st)) {
		/* Replaced or removed on disk since it was mapped. */
		ms->err = -errno;
		return 1;
	}
	if (st.st_dev == ms->exe.st_dev && st.st_ino == ms->exe.st_ino) {
		/* Through /proc/PID/exe, which names the very inode it runs. */
		snprintf(exe, sizeof(exe), "/proc/%d/exe", ms->pid);
		err = resolve_target(exe, ms->exe_path, false, &t);
		if (!err)
			out->exe = t;
	} else {
		err = resolve_target(m->open_path, m->path, m->open_path != m->path, &t);
	}
	if (err) {
		ms->err = err;
		return 1;
	}
	if ((t->ncalls || t->regions) && !listed(out, t)) {
		out->targets = xreallocarray(out->targets, out->ntargets + 1,
					     sizeof(*out->targets));
		out->targets[out->ntargets++] = t;
	}
	return 0;
}

int
image_targets_find(pid_t pid, struct image_targets *out, const char **why)
{
	/* What *why points to must outlive the call. */
	static char exe_path[4096], failed_path[4096], exe[64];
	struct maps_scan ms = { .pid = pid, .out = out, .exe_path = exe_path,
				.why = failed_path, .why_size = sizeof(failed_path) };
	int err;

	out->ntargets = 0;
	out->exe = NULL;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	*why = exe;
	err = proc_exe_path(pid, exe_path, sizeof(exe_path));
	if (!err && stat(exe, &ms.exe))
		err = -errno;
	if (err)
		return err;
	err = proc_maps_foreach(pid, scan_mapping, &ms);
	if (err < 0)
		return err;
	*why = ms.why;
	if (ms.err)
		return ms.err;
	*why = exe_path;
	return out->exe ? 0 : -ENOENT;
}

void
image_targets_copy(struct image_targets *to, const struct image_targets *from)
{
	to->targets = xcalloc(from->ntargets, sizeof(*to->targets));
	if (from->ntargets)
		memcpy(to->targets, from->targets, from->ntargets * sizeof(*to->targets));
	to->ntargets = from->ntargets;
	to->exe = from->exe;
}

void
image_targets_free(struct image_targets *it)
{
	free(it->targets);
	it->targets = NULL;
	it->ntargets = 0;
	it->exe = NULL;
}

void
probe_targets_release(void)
{
	size_t i;

	for (i = 0; i < ncache; i++) {
		if (cache[i]->fd >= 0)
			close(cache[i]->fd);
		free(cache[i]->calls);
		free(cache[i]->path);
		free(cache[i]);
	}
	free(cache);
	cache = NULL;
	ncache = 0;
}
