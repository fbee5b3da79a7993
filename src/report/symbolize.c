// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "symbolize.h"
#ifdef HAVE_LIBDEBUGINFOD
#include "debug-fetch.h"
#endif
#include "debug-file.h"
#include "elf-functions.h"
#include "error.h"
#include "frame-names.h"
#include "human-numbers.h"
#include "names.h"
#include "sites.h"
#include "sorted.h"
#include "u64map.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>
#include "inline-frames.h"
#endif

struct symbol {
	uint64_t addr, size;
	char *name;
	bool demangled;
};

/* A frame's functions, as symbolize returns them, owning their strings. */
struct named_frame {
	struct symbol_name *v;
	size_t n, cap;
	uint64_t offset;
};

struct symbol_file {
	const struct frame_names_file *captured;	/* the capture's names */
	bool read;		/* the file on disk was read */
	uint64_t named_here;	/* frames named from it */
	const char *why;	/* NULL when symbols were found */
	GElf_Phdr *loads;	/* of the file mapped, for offsets to addresses */
	size_t nloads;
	struct symbol *syms;	/* sorted by address */
	size_t nsyms, syms_cap;
	bool full;		/* a .symtab was read: not exported names only */
	const char *fetch_why;	/* why debuginfod had no debug file, or NULL */
	uint64_t unnamed;	/* frames asked for that fell in no function */
	struct u64map named;	/* file offset + 1 -> index + 1 in frames */
	struct named_frame *frames;
	size_t nframes, frames_cap;
#ifdef HAVE_LIBDW
	Dwarf *dwarf;		/* of the first file read with line tables */
	Elf *dwarf_elf;
	int dwarf_fd;
#endif
};

void
symbolizer_init(struct symbolizer *z, const char *debug_dir)
{
	z->files = NULL;
	z->nfiles = 0;
	z->files_cap = 0;
	z->debug_dir = debug_dir ? debug_dir : DEBUG_DIR_DEFAULT;
	z->full_names = false;
	z->names = NULL;
	z->files_unread = false;
	z->give_up = NULL;
	z->fetch = NULL;
	z->fetch_tried = false;
}

static void
file_free(struct symbol_file *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nsyms; i++)
		free(f->syms[i].name);
	free(f->syms);
	free(f->loads);
	for (i = 0; i < f->nframes; i++) {
		size_t k;

		for (k = 0; k < f->frames[i].n; k++) {
			free((char *)f->frames[i].v[k].function);
			free((char *)f->frames[i].v[k].where);
		}
		free(f->frames[i].v);
	}
	free(f->frames);
	u64map_free(&f->named);
#ifdef HAVE_LIBDW
	if (f->dwarf) {
		dwarf_end(f->dwarf);
		elf_end(f->dwarf_elf);
		close(f->dwarf_fd);
	}
#endif
	free(f);
}

void
symbolizer_free(struct symbolizer *z)
{
	uint32_t i;

	for (i = 0; i < z->nfiles; i++)
		file_free(z->files[i]);
	free(z->files);
	z->files = NULL;
	z->nfiles = 0;
	z->files_cap = 0;
#ifdef HAVE_LIBDEBUGINFOD
	debug_fetch_end(z->fetch);
#endif
	z->fetch = NULL;
	z->fetch_tried = false;
}

static void
add_symbol(void *ctx, const char *name, uint64_t vaddr, uint64_t size)
{
	struct symbol_file *f = ctx;

	f->syms = xgrow(f->syms, &f->syms_cap, f->nsyms + 1, sizeof(*f->syms));
	f->syms[f->nsyms++] = (struct symbol){ .addr = vaddr, .size = size,
					       .name = xstrdup(name) };
}

static int
by_address(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool
has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/*
 * Reads the symbols of path, if it is the build m names, and its load
 * segments if f has none yet.
 */
static bool
read_file(struct symbol_file *f, const char *path, const struct space_module *m)
{
	size_t before = f->nsyms;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_open_fd(fd);
	if (!elf || !elf_build_id_is(elf, m->build_id, m->build_id_len)) {
		if (elf)
			f->why = "a different build of the file is installed";
		elf_end(elf);
		close(fd);
		return false;
	}
	if (!f->loads)
		f->loads = elf_loads(elf, &f->nloads);
	elf_foreach_function(elf, add_symbol, f);
	f->full |= has_symtab(elf);
#ifdef HAVE_LIBDW
	/* The file stays open for its line tables. */
	if (!f->dwarf && (f->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL))) {
		f->dwarf_elf = elf;
		f->dwarf_fd = fd;
		return f->nsyms > before;
	}
#endif
	elf_end(elf);
	close(fd);
	return f->nsyms > before;
}

#ifdef HAVE_LIBDEBUGINFOD
/* The debug file from a debuginfod server, for what the files here lack. */
static void
fetch_debug_file(struct symbolizer *z, struct symbol_file *f, const struct space_module *m)
{
#ifdef HAVE_LIBDW
	bool lacking = !f->full || !f->dwarf;
#else
	bool lacking = !f->full;
#endif
	char *fetched;

	/* A fetch can take long: none for a file whose own symbols do. */
	if (!m->build_id_len || !lacking)
		return;
	if (!z->fetch_tried) {
		z->fetch = debug_fetch_begin(z->give_up);
		z->fetch_tried = true;
	}
	if (!z->fetch)
		return;
	fetched = debug_fetch(z->fetch, m->build_id, m->build_id_len, &f->fetch_why);
	if (fetched)
		read_file(f, fetched, m);
	free(fetched);
}
#endif

struct symbol_file_lookup {
	struct symbol_file *f;
	const struct space_module *m;
};

static bool
take_debug_file(const char *path, void *ctx)
{
	struct symbol_file_lookup *l = ctx;

	return read_file(l->f, path, l->m);
}

/*
 * The separate debug file (src/common/debug-file.h); else, by build-id, from the
 * debuginfod servers of DEBUGINFOD_URLS.
 */
static void
read_debug_file(struct symbolizer *z, struct symbol_file *f, const struct space_module *m)
{
	struct symbol_file_lookup l = { .f = f, .m = m };

	if (debug_file_find(m, m->path, z->debug_dir, take_debug_file, &l))
		return;
#ifdef HAVE_LIBDEBUGINFOD
	fetch_debug_file(z, f, m);
#endif
}

/*
 * One symbol per address (.symtab and .dynsym repeat each other); one
 * without a size reaches the next.  An address past a function's size is
 * in none: with only .dynsym, the nearest exported function below an
 * address is often not the one it is in.
 */
static void
sort_symbols(struct symbol_file *f)
{
	size_t i, kept = 0;

	if (f->nsyms)	/* qsort may not be given NULL */
		qsort(f->syms, f->nsyms, sizeof(*f->syms), by_address);
	for (i = 0; i < f->nsyms; i++) {
		if (kept && f->syms[kept - 1].addr == f->syms[i].addr) {
			free(f->syms[i].name);
			continue;
		}
		f->syms[kept++] = f->syms[i];
	}
	f->nsyms = kept;
	for (i = 0; i < f->nsyms; i++)
		if (!f->syms[i].size)
			f->syms[i].size = i + 1 < f->nsyms ? f->syms[i + 1].addr - f->syms[i].addr
							   : 1;
}

/* The file on disk and its debug file, for what the capture does not name. */
static void
read_files(struct symbolizer *z, struct symbol_file *f, const struct space_module *m)
{
	f->read = true;
	if (z->files_unread) {
		f->why = "not named";
		return;
	}
	read_file(f, m->path, m);
	read_debug_file(z, f, m);
	if (f->nsyms) {
		f->why = NULL;
		sort_symbols(f);
	} else if (!f->why) {
		f->why = access(m->path, R_OK) ? "the file is not here" : "no symbols";
	}
}

static struct symbol_file *
load(struct symbolizer *z, const struct space_module *m)
{
	struct symbol_file *f = xcalloc(1, sizeof(*f));

	u64map_init(&f->named);
	f->captured = z->names ? frame_names_find(z->names, m) : NULL;
	if (f->captured)
		f->full = !f->captured->exported_only;
	else
		read_files(z, f, m);
	return f;
}

static uint64_t
symbol_addr(const void *syms, size_t i)
{
	return ((const struct symbol *)syms)[i].addr;
}

static const struct symbol *
find_symbol(const struct symbol_file *f, uint64_t addr)
{
	size_t end = sorted_first_above(f->syms, 0, f->nsyms, symbol_addr, addr);

	if (!end || addr - f->syms[end - 1].addr >= f->syms[end - 1].size)
		return NULL;
	return &f->syms[end - 1];
}

static void
demangle(struct symbol *sym)
{
	char *plain = name_demangle(sym->name);

	if (plain) {
		free(sym->name);
		sym->name = plain;
	}
	sym->demangled = true;
}

/* A name as the symbolizer gives it out: its own copy, shortened or not. */
static char *
given_name(const struct symbolizer *z, const char *name)
{
	if (!name)
		return NULL;
	return z->full_names ? xstrdup(name) : name_shorten(name);
}

static void
add_name(struct named_frame *nf, const struct symbolizer *z, const char *function,
	 const char *where)
{
	nf->v = xgrow(nf->v, &nf->cap, nf->n + 1, sizeof(*nf->v));
	nf->v[nf->n++] = (struct symbol_name){
		.function = given_name(z, function),
		.where = xstrdup(where ? where : ""),
	};
}

static struct named_frame *
new_frame(struct symbol_file *f, uint64_t offset, uint64_t function_offset)
{
	f->frames = xgrow(f->frames, &f->frames_cap, f->nframes + 1, sizeof(*f->frames));
	f->frames[f->nframes] = (struct named_frame){ .offset = function_offset };
	u64map_put(&f->named, offset + 1, f->nframes + 1);
	return &f->frames[f->nframes++];
}

/* The functions at addr, in sym: those inlined there, then sym's own. */
static struct named_frame *
name_frame(const struct symbolizer *z, struct symbol_file *f, const struct symbol *sym,
	   uint64_t offset, uint64_t addr)
{
	struct named_frame *nf = new_frame(f, offset, addr + 1 - sym->addr);
	char *where = NULL;

#ifdef HAVE_LIBDW
	if (f->dwarf) {
		struct inline_frame *in;
		size_t n = inline_frames(f->dwarf, addr, &in, &where), i;

		for (i = 0; i < n; i++)
			add_name(nf, z, in[i].function, in[i].where);
		inline_frames_free(in, n);
	}
#endif
	add_name(nf, z, sym->name, where);
	free(where);
	return nf;
}

/* The functions of the return address at offset, from the file's symbols. */
static const struct named_frame *
named_from_file(const struct symbolizer *z, struct symbol_file *f, uint64_t offset)
{
	struct symbol *sym;
	uint64_t addr;

	/* A return address: the call is the instruction before it. */
	if (!elf_load_address(f->loads, f->nloads, offset, &addr) ||
	    !(sym = (struct symbol *)find_symbol(f, addr - 1)))
		return NULL;
	if (!sym->demangled)
		demangle(sym);
	f->named_here++;
	return name_frame(z, f, sym, offset, addr - 1);
}

/* The functions the capture names at a frame. */
static const struct named_frame *
named_from_capture(const struct symbolizer *z, struct symbol_file *f,
		   const struct frame_names_frame *cf)
{
	const struct frame_names_function *fu = z->names->functions + cf->first;
	struct named_frame *nf = new_frame(f, cf->offset, cf->function_offset);
	uint8_t k;

	for (k = 0; k < cf->n; k++)
		add_name(nf, z, frame_names_text(z->names, fu[k].name),
			 frame_names_text(z->names, fu[k].where));
	return nf;
}

const char symbol_in_no_function[] = "in no function";

const struct symbol_name *
symbolize(struct symbolizer *z, const struct sites *s, uint64_t frame,
	  uint64_t *offset, const char **why, size_t *n)
{
	uint32_t module = SITE_FRAME_MODULE(frame);
	const struct frame_names_frame *cf;
	const struct named_frame *nf;
	struct u64map_slot *slot;
	struct symbol_file *f;
	uint64_t at;

	*n = 0;
	if (!module || module > s->spaces.nmodules) {
		*why = "in no file mapped";
		return NULL;
	}
	if (z->nfiles < s->spaces.nmodules) {
		z->files = xgrow(z->files, &z->files_cap, s->spaces.nmodules,
				 sizeof(*z->files));
		memset(z->files + z->nfiles, 0, (s->spaces.nmodules - z->nfiles) * sizeof(*z->files));
		z->nfiles = s->spaces.nmodules;
	}
	if (!z->files[module - 1])
		z->files[module - 1] = load(z, &s->spaces.modules[module - 1]);
	f = z->files[module - 1];
	at = SITE_FRAME_OFFSET(frame);
	if ((slot = u64map_find(&f->named, at + 1))) {
		nf = &f->frames[slot->value - 1];
	} else if (f->captured && (cf = frame_names_at(f->captured, at))) {
		nf = cf->n ? named_from_capture(z, f, cf) : NULL;
	} else {
		if (!f->read)
			read_files(z, f, &s->spaces.modules[module - 1]);
		*why = f->why;
		if (f->why)
			return NULL;
		nf = named_from_file(z, f, at);
	}
	if (!nf) {
		*why = symbol_in_no_function;
		f->unnamed++;
		return NULL;
	}
	*offset = nf->offset;
	*n = nf->n;
	return nf->v;
}

void
symbolizer_print_missing(FILE *out, const struct symbolizer *z, const struct sites *s)
{
	char count[HUMAN_MAX], path[4096];
	bool header = false;
	uint32_t i;
	uint8_t b;

	for (i = 0; i < z->nfiles; i++) {
		const struct space_module *m = &s->spaces.modules[i];

		const struct symbol_file *f = z->files[i];

		/* Exported names only, and frames left unnamed: a debug file would help. */
		if (!f || (!f->why && (f->full || !f->unnamed)))
			continue;
		if (!header)
			fprintf(out, "files whose frames could not all be named here, and "
				"the debug file each needs\n(from the file's package: "
				"PACKAGE-dbgsym on Debian and Ubuntu, -debuginfo on\n"
				"Fedora; or from a debuginfod server named in "
				"DEBUGINFOD_URLS):\n");
		header = true;
		fprintf(out, "  %s (build-id ", m->path);
		for (b = 0; b < m->build_id_len; b++)
			fprintf(out, "%02x", m->build_id[b]);
		if (f->why)
			fprintf(out, "%s): %s\n", m->build_id_len ? "" : "none", f->why);
		else
			fprintf(out, "%s): exported names only, %s frame%s in none of "
				"them\n", m->build_id_len ? "" : "none",
				human_count(count, f->unnamed), plural(f->unnamed));
		/* Where the debug file goes: what a package or a copy must put there. */
		if (!m->build_id_len)
			continue;
		debug_file_build_id_path(path, sizeof(path), z->debug_dir, m);
		fprintf(out, "    debug file: %s%s%s\n", path, f->fetch_why ? "; debuginfod: " : "",
			f->fetch_why ? f->fetch_why : "");
	}
}

/* The frame's functions, as the capture stores them. */
static void
store_frame(struct frame_names *fn, struct frame_names_file *file, uint64_t offset,
	    uint64_t function_offset, const struct symbol_name *names, size_t n)
{
	struct frame_names_function fu[FRAME_NAMES_MAX_FUNCTIONS];
	size_t k;

	/* The outermost function is the last: a frame cut short keeps it. */
	if (n > FRAME_NAMES_MAX_FUNCTIONS) {
		names += n - FRAME_NAMES_MAX_FUNCTIONS;
		n = FRAME_NAMES_MAX_FUNCTIONS;
	}
	for (k = 0; k < n; k++)
		fu[k] = (struct frame_names_function){
			.name = frame_names_intern(fn, names[k].function),
			.where = frame_names_intern(fn, names[k].where),
		};
	frame_names_add(fn, file, offset, function_offset, fu, n);
}

void
symbolizer_name_all(struct symbolizer *z, const struct sites *s, struct frame_names *fn)
{
	/* By module: the index of its file in fn, + 1. */
	size_t *files = xcalloc(s->spaces.nmodules + 1, sizeof(*files));
	const struct symbol_name *names;
	struct frame_names_file *file;
	const uint64_t *frames;
	struct u64map seen;
	uint32_t site, i, nframes;
	uint64_t offset;
	const char *why;
	size_t n;

	u64map_init(&seen);
	for (site = 1; site <= s->resolved.count; site++) {
		frames = sites_frames(s, site, &nframes);
		for (i = 0; frames && i < nframes; i++) {
			uint32_t module = SITE_FRAME_MODULE(frames[i]);
			const struct space_module *m;

			if (!module || u64map_put(&seen, frames[i], 0))
				continue;
			/* Reading a file may wait on debuginfod: ask first. */
			if ((module > z->nfiles || !z->files[module - 1]) && z->give_up &&
			    z->give_up())
				continue;
			offset = 0;	/* none for a frame in no function */
			names = symbolize(z, s, frames[i], &offset, &why, &n);
			if (!names && why != symbol_in_no_function)
				continue;	/* the file could not be read */
			m = &s->spaces.modules[module - 1];
			if (!files[module]) {
				file = frame_names_file(fn, frame_names_intern(fn, m->path),
							m->build_id, m->build_id_len);
				files[module] = (size_t)(file - fn->files) + 1;
			}
			file = &fn->files[files[module] - 1];
			file->exported_only = !z->files[module - 1]->full;
			store_frame(fn, file, SITE_FRAME_OFFSET(frames[i]), offset, names, n);
		}
	}
	u64map_free(&seen);
	free(files);
}

void
symbolizer_print_sources(FILE *out, const struct symbolizer *z, const struct sites *s)
{
	const char *sep = "";
	uint32_t i;

	for (i = 0; i < z->nfiles; i++) {
		const struct symbol_file *f = z->files[i];
		const char *path = s->spaces.modules[i].path, *base = strrchr(path, '/');

		if (!f || !f->named_here)
			continue;
		if (!*sep)
			fprintf(out, "frames named from the files here, not from names in "
				"the capture: ");
		fprintf(out, "%s%s", sep, base ? base + 1 : path);
		sep = ", ";
	}
	if (*sep)
		fputc('\n', out);
}
