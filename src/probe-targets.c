// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "probe-targets.h"
#include "error.h"
#include "procfs.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <gnu/lib-names.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The names probed, in order of preference: where two names share an
 * address (glibc 2.36 makes memalign an alias of aligned_alloc) the first
 * one wins, so that each call traps and is recorded once.
 */
static const struct {
	const char *name;
	uint32_t call;
} allocator_functions[] = {
	{ "malloc", MS_CALL_MALLOC },
	{ "calloc", MS_CALL_CALLOC },
	{ "realloc", MS_CALL_REALLOC },
	{ "reallocarray", MS_CALL_REALLOCARRAY },
	{ "free", MS_CALL_FREE },
	{ "aligned_alloc", MS_CALL_ALIGNED_ALLOC },
	{ "memalign", MS_CALL_MEMALIGN },
	{ "posix_memalign", MS_CALL_POSIX_MEMALIGN },
	{ "valloc", MS_CALL_VALLOC },
	{ "pvalloc", MS_CALL_PVALLOC },
};
#define N_ALLOCATOR_FUNCTIONS (sizeof(allocator_functions) / sizeof(allocator_functions[0]))

/* Resolved files, kept for the whole run: a shell tree execs the same few. */
static struct probe_target **cache;
static size_t ncache;

struct elf_scan {
	bool dynamic;				/* has PT_INTERP */
	uint64_t vaddr[N_ALLOCATOR_FUNCTIONS];	/* 0: not defined */
	GElf_Phdr *loads;
	size_t nloads;
};

static void
scan_symbols(Elf *elf, struct elf_scan *scan)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, nsyms;

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		/* The data read, not the header's claim, bounds the loop. */
		nsyms = data->d_size / shdr.sh_entsize;
		for (i = 0; i < nsyms; i++) {
			GElf_Sym sym;
			const char *name;
			size_t f;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name)
				continue;
			for (f = 0; f < N_ALLOCATOR_FUNCTIONS; f++)
				if (!strcmp(name, allocator_functions[f].name))
					scan->vaddr[f] = sym.st_value;
		}
	}
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
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		err = -ENOEXEC;
		goto out;
	}
	err = scan_segments(elf, scan);
	if (!err)
		scan_symbols(elf, scan);
out:
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
	size_t f, g;

	for (f = 0; f < N_ALLOCATOR_FUNCTIONS; f++) {
		uint64_t offset;
		bool alias = false;

		if (!scan->vaddr[f] ||
		    !file_offset(scan, scan->vaddr[f], file_size, &offset))
			continue;
		for (g = 0; g < f; g++)
			alias |= scan->vaddr[g] == scan->vaddr[f];
		if (alias)
			continue;
		t->calls[t->ncalls].call = allocator_functions[f].call;
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
		t->ncalls = 0;
		fill_target(t, &scan, (uint64_t)st.st_size);
	}
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
resolve_target(const char *scan_path, const char *display_path,
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
	close(fd);
	if (err) {
		free(t);
		return err;
	}
	t->path = xstrdup(display_path);
	cache = xreallocarray(cache, ncache + 1, sizeof(*cache));
	cache[ncache++] = t;
	*out = t;
	return 0;
}

/* The C library memsup itself runs with: the one a dynamic workload maps. */
static const char *
libc_path(void)
{
	struct link_map *map = NULL;
	void *libc;

	/*
	 * By its soname, not by where malloc resolves: a sanitizer or an
	 * LD_PRELOADed allocator in memsup would take malloc's place.
	 */
	libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
	if (!libc)
		return NULL;
	if (dlinfo(libc, RTLD_DI_LINKMAP, &map) || !map || !map->l_name[0])
		map = NULL;
	/* memsup links the C library: it stays loaded after dlclose. */
	dlclose(libc);
	return map ? map->l_name : NULL;
}

int
image_targets_find(pid_t pid, struct image_targets *out, const char **why)
{
	static char exe[64], exe_path[4096];
	struct probe_target *t;
	const char *libc;
	int err;

	out->ntargets = 0;
	out->exe = NULL;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	err = proc_exe_path(pid, exe_path, sizeof(exe_path));
	if (err) {
		*why = exe;
		return err;
	}
	*why = exe_path;
	err = resolve_target(exe, exe_path, &t);
	if (err)
		return err;
	if (t->ncalls) {
		out->exe = t;
		out->targets[out->ntargets++] = t;
	}
	if (!t->dynamic)
		return 0;

	libc = libc_path();
	*why = libc ? libc : "the C library";
	if (!libc)
		return -ENOENT;
	err = resolve_target(libc, libc, &t);
	if (err)
		return err;
	out->targets[out->ntargets++] = t;
	return 0;
}

void
probe_targets_release(void)
{
	size_t i;

	for (i = 0; i < ncache; i++) {
		free(cache[i]->path);
		free(cache[i]);
	}
	free(cache);
	cache = NULL;
	ncache = 0;
}
