// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "unwind-maps.h"
#include "debug-file.h"
#include "elf-functions.h"
#include "error.h"
#include "unwind-pages.h"
#include "unwind-table.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A file, as the walker needs it: one for all the modules of its build-id. */
struct unwind_file {
	uint32_t module;	/* the first module of the file: where to read it */
	enum { FILE_UNREAD, FILE_TABLED, FILE_UNTABLED } state;
	GElf_Phdr *loads;
	size_t nloads;
	uint64_t lowest;	/* the lowest address of its loads: pages count from it */
	uint32_t first_page, npages, first_row, nrows;
	uint32_t users;		/* processes whose space has its table */
	uint64_t unused_since;	/* when users fell to 0: the longest unused goes first */
};

/* The files a process's space has, by index + 1. */
struct space_files {
	size_t n;
	uint32_t file[MS_UNWIND_MAPPINGS];
};

/* The array map, mapped, as entries of the given size. */
static void *
map_array(const struct bpf_map *map, size_t entry_size, size_t *entries)
{
	size_t bytes = (size_t)bpf_map__max_entries(map) * bpf_map__value_size(map);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(map), 0);

	*entries = bytes / entry_size;
	return p == MAP_FAILED ? NULL : p;
}

int
unwind_maps_open(struct unwind_maps *u, const struct bpf_map *pages,
		 const struct bpf_map *rows, const struct bpf_map *rules,
		 const struct bpf_map *spaces)
{
	int err;

	memset(u, 0, sizeof(*u));
	u64map_init(&u->rule_index);
	u64map_init(&u->space_files);
	u->spaces = spaces;
	u->pages = map_array(pages, sizeof(*u->pages), &u->pages_cap);
	u->rows = map_array(rows, sizeof(*u->rows), &u->rows_cap);
	u->rules = map_array(rules, sizeof(*u->rules), &u->rules_cap);
	if (!u->pages || !u->rows || !u->rules) {
		err = -errno;
		unwind_maps_close(u);
		return err;
	}
	free_runs_init(&u->free_pages, (uint32_t)u->pages_cap);
	free_runs_init(&u->free_rows, (uint32_t)u->rows_cap);
	return 0;
}

/* The file's rules among the shared ones: their indexes in *global. */
static bool
share_rules(struct unwind_maps *u, const struct unwind_table *t, uint32_t *global)
{
	size_t i;

	for (i = 0; i < t->nrules; i++) {
		uint64_t key = unwind_rule_key(&t->rules[i]);
		struct u64map_slot *slot = u64map_find(&u->rule_index, key);

		if (slot) {
			global[i] = (uint32_t)(slot->value - 1);
			continue;
		}
		if (u->nrules == u->rules_cap)
			return false;
		u->rules[u->nrules] = t->rules[i];
		global[i] = (uint32_t)u->nrules++;
		u64map_put(&u->rule_index, key, global[i] + 1);
	}
	return true;
}

/*
 * Gives the room of the file that no process has mapped for the longest
 * back to the arrays; false when every table is in use.  No space names
 * the file, so no walk reads it; a later mapping builds it again.
 */
static bool
release_unused(struct unwind_maps *u)
{
	struct unwind_file *oldest = NULL;
	size_t i;

	for (i = 0; i < u->nfiles; i++) {
		struct unwind_file *f = &u->files[i];

		if (f->state == FILE_TABLED && !f->users &&
		    (!oldest || f->unused_since < oldest->unused_since))
			oldest = f;
	}
	if (!oldest)
		return false;
	free_runs_give(&u->free_pages, oldest->first_page, oldest->npages);
	free_runs_give(&u->free_rows, oldest->first_row, oldest->nrows);
	free(oldest->loads);
	oldest->loads = NULL;
	oldest->state = FILE_UNREAD;
	return true;
}

/* Room for p's pages and rows, from tables no process uses if need be. */
static bool
take_room(struct unwind_maps *u, struct unwind_file *f, const struct unwind_pages *p)
{
	do {
		if (free_runs_take(&u->free_pages, (uint32_t)p->npages, &f->first_page)) {
			if (free_runs_take(&u->free_rows, (uint32_t)p->nrows, &f->first_row))
				return true;
			free_runs_give(&u->free_pages, f->first_page, (uint32_t)p->npages);
		}
	} while (release_unused(u));
	return false;
}

/* Puts the table's pages and rows in the shared arrays. */
static bool
add_table(struct unwind_maps *u, struct unwind_file *f, const struct unwind_table *t)
{
	uint32_t *global = xreallocarray(NULL, t->nrules ? t->nrules : 1, sizeof(*global));
	struct unwind_pages p;
	size_t i;
	bool fits = share_rules(u, t, global) && unwind_pages_pack(t, f->lowest, global, &p);

	free(global);
	if (!fits)
		return false;
	fits = take_room(u, f, &p);
	if (fits) {
		for (i = 0; i < p.npages; i++)
			u->pages[f->first_page + i] = (struct ms_unwind_page){
				.first_row = p.pages[i].first_row + f->first_row,
				.nrows = p.pages[i].nrows,
			};
		memcpy(u->rows + f->first_row, p.rows, p.nrows * sizeof(*p.rows));
		f->npages = (uint32_t)p.npages;
		f->nrows = (uint32_t)p.nrows;
	}
	unwind_pages_free(&p);
	return fits;
}

/* An ELF file of a module, opened. */
struct opened_elf {
	const struct space_module *m;
	int fd;
	Elf *elf;
};

static void
close_elf(struct opened_elf *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	o->elf = NULL;
	o->fd = -1;
}

/* Opens path, if it is the module's file, or its debug file: its build-id says. */
static bool
open_elf(struct opened_elf *o, const char *path)
{
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	o->elf = o->fd >= 0 ? elf_open_fd(o->fd) : NULL;
	if (o->elf && elf_build_id_is(o->elf, o->m->build_id, o->m->build_id_len))
		return true;
	close_elf(o);
	return false;
}

/* A separate debug file with .debug_frame, for code .eh_frame does not describe. */
static bool
take_debug_frame(const char *path, void *ctx)
{
	struct opened_elf *o = ctx;
	GElf_Shdr sh;

	if (!open_elf(o, path))
		return false;
	if (elf_section_named(o->elf, ".debug_frame", &sh))
		return true;
	close_elf(o);
	return false;
}

static void
load_file(struct unwind_maps *u, struct unwind_file *f, const struct space_module *m)
{
	const char *path = m->open_path ? m->open_path : m->path;
	struct opened_elf file = { .m = m }, debug = { .m = m, .fd = -1 };
	struct unwind_table t;
	GElf_Shdr sh;

	f->state = FILE_UNTABLED;
	if (!open_elf(&file, path))
		return;
	if (!elf_section_named(file.elf, ".debug_frame", &sh))
		debug_file_find(m, path, DEBUG_DIR_DEFAULT, take_debug_frame, &debug);
	if ((f->loads = elf_loads(file.elf, &f->nloads)) && f->nloads &&
	    !unwind_table_build(file.elf, debug.elf ? debug.elf : file.elf, &t)) {
		f->lowest = elf_loads_lowest(f->loads, f->nloads);
		if (t.nrows && add_table(u, f, &t))
			f->state = FILE_TABLED;
		else if (t.nrows)
			u->files_without_room++;
		unwind_table_free(&t);
	}
	close_elf(&debug);
	close_elf(&file);
}

/* The file of the module: that of an earlier module of the same build-id, or a new one. */
static uint32_t
file_index(struct unwind_maps *u, const struct address_spaces *a, uint32_t module)
{
	const struct space_module *m = &a->modules[module - 1];
	size_t i;

	for (i = 0; m->build_id_len && i < u->nfiles; i++)
		if (space_modules_same_build(&a->modules[u->files[i].module - 1], m))
			return (uint32_t)i + 1;
	u->files = xgrow(u->files, &u->files_cap, u->nfiles + 1, sizeof(*u->files));
	u->files[u->nfiles] = (struct unwind_file){ .module = module };
	return (uint32_t)++u->nfiles;
}

/* The module's file, its table loaded, or 0 when it has none. */
static uint32_t
file_of(struct unwind_maps *u, const struct address_spaces *a, uint32_t module)
{
	struct unwind_file *f;

	if (!module || module > a->nmodules)
		return 0;
	if (u->nmodules < a->nmodules) {
		u->module_file = xgrow(u->module_file, &u->module_file_cap, a->nmodules,
				       sizeof(*u->module_file));
		memset(u->module_file + u->nmodules, 0,
		       (a->nmodules - u->nmodules) * sizeof(*u->module_file));
		u->nmodules = a->nmodules;
	}
	if (!u->module_file[module - 1])
		u->module_file[module - 1] = file_index(u, a, module);
	f = &u->files[u->module_file[module - 1] - 1];
	if (f->state == FILE_UNREAD)
		load_file(u, f, &a->modules[f->module - 1]);
	return f->state == FILE_TABLED ? u->module_file[module - 1] : 0;
}

static int
by_start(const void *a, const void *b)
{
	uint64_t x = ((const struct ms_unwind_mapping *)a)->start;
	uint64_t y = ((const struct ms_unwind_mapping *)b)->start;

	return (x > y) - (x < y);
}

/* Counts the file as used by the space, once however many mappings. */
static void
hold(struct unwind_maps *u, struct space_files *held, uint32_t file)
{
	size_t i;

	for (i = 0; i < held->n; i++)
		if (held->file[i] == file)
			return;
	held->file[held->n++] = file;
	u->files[file - 1].users++;
}

/* Ends a space's uses of its files, which become free to release once unused. */
static void
let_go(struct unwind_maps *u, struct space_files *held)
{
	size_t i;

	for (i = 0; i < held->n; i++) {
		struct unwind_file *f = &u->files[held->file[i] - 1];

		if (!--f->users)
			f->unused_since = ++u->clock;
	}
	free(held);
}

/*
 * Writes pid's space from what a knows it maps; none, when nothing has a
 * table.  Its new files are held before its old ones are let go, and the
 * space no longer names a file when it is let go.
 */
static void
write_space(struct unwind_maps *u, const struct address_spaces *a, uint32_t pid)
{
	struct u64map_slot *slot = u64map_find(&a->by_pid, pid);
	const struct address_space *as = slot ? (void *)(uintptr_t)slot->value : NULL;
	struct ms_unwind_space *space = xcalloc(1, sizeof(*space));
	struct space_files *held = xcalloc(1, sizeof(*held));
	uint64_t before;
	size_t i;

	for (i = 0; as && i < as->n && space->n < MS_UNWIND_MAPPINGS; i++) {
		const struct space_mapping *m = &as->maps[i];
		uint32_t file = file_of(u, a, m->module);
		struct unwind_file *f = file ? &u->files[file - 1] : NULL;
		uint64_t bias;

		if (!f || !elf_mapping_bias(f->loads, f->nloads, m->start, m->offset, &bias))
			continue;
		space->m[space->n++] = (struct ms_unwind_mapping){
			.start = m->start, .end = m->end, .base = bias + f->lowest,
			.first_page = f->first_page, .npages = f->npages,
		};
		hold(u, held, file);
	}
	qsort(space->m, space->n, sizeof(space->m[0]), by_start);
	if (space->n)
		bpf_map__update_elem(u->spaces, &pid, sizeof(pid), space, sizeof(*space), BPF_ANY);
	else
		bpf_map__delete_elem(u->spaces, &pid, sizeof(pid), 0);
	free(space);
	if (u64map_remove(&u->space_files, pid, &before))
		let_go(u, (struct space_files *)(uintptr_t)before);
	if (held->n)
		u64map_put(&u->space_files, pid, (uintptr_t)held);
	else
		free(held);
}

void
unwind_maps_follow(struct unwind_maps *u, const struct address_spaces *a,
		   const struct record *r)
{
	switch (r->type) {
	case REC_MAPPING:
	case REC_EXEC:
	case REC_ATTACH:
	case REC_EXIT:
		write_space(u, a, r->pid);
		break;
	case REC_FORK:
		write_space(u, a, r->fork.child);
		break;
	default:
		break;
	}
}

void
unwind_maps_close(struct unwind_maps *u)
{
	struct u64map_slot *slot;
	size_t i;

	if (u->pages)
		munmap(u->pages, u->pages_cap * sizeof(*u->pages));
	if (u->rows)
		munmap(u->rows, u->rows_cap * sizeof(*u->rows));
	if (u->rules)
		munmap(u->rules, u->rules_cap * sizeof(*u->rules));
	u64map_foreach(&u->space_files, slot)
		free((struct space_files *)(uintptr_t)slot->value);
	u64map_free(&u->space_files);
	for (i = 0; i < u->nfiles; i++)
		free(u->files[i].loads);
	free(u->files);
	free(u->module_file);
	free_runs_free(&u->free_pages);
	free_runs_free(&u->free_rows);
	u64map_free(&u->rule_index);
	memset(u, 0, sizeof(*u));
}
