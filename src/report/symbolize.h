/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbolization at report time: a (file, offset) frame to the function it
 * falls in, demangled, from the file's .symtab and .dynsym or from its
 * separate debug file (/usr/lib/debug/.build-id/, .gnu_debuglink, or a
 * debuginfod server: src/report/debug-fetch.c), and the
 * source line from its DWARF line tables when memsup has libdw, with the
 * functions inlined at it (src/report/inline-frames.c).  A file
 * whose build-id is not the one captured is not trusted; a debug file is
 * taken only if its build-id is.
 */
#ifndef MEMSUP_SYMBOLIZE_H
#define MEMSUP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct debug_fetch;
struct frame_names;
struct sites;
struct symbol_file;

struct symbolizer {
	struct symbol_file **files;	/* by module index, loaded when first asked */
	uint32_t nfiles;
	size_t files_cap;
	const char *debug_dir;		/* /usr/lib/debug, or --debug-dir */
	bool full_names;		/* --full-names: set before the first symbolize */
	const struct frame_names *names;	/* the capture's, read first; or NULL */
	bool files_unread;		/* name only what names holds */
	bool (*give_up)(void);		/* or NULL: asked before each file is
					 * read and while a debuginfod server
					 * is waited for; true stops both */
	struct debug_fetch *fetch;	/* debuginfod's client, begun when first needed */
	bool fetch_tried;
};

/* One function of a frame. */
struct symbol_name {
	const char *function;	/* NULL: an inlined one DWARF does not name */
	const char *where;	/* "file:line" of the call in it, or "" */
};

/* symbolize's why for an address in no function of its file. */
extern const char symbol_in_no_function[];

/* debug_dir NULL: /usr/lib/debug. */
void symbolizer_init(struct symbolizer *z, const char *debug_dir);
void symbolizer_free(struct symbolizer *z);
/*
 * The functions of a site frame (SITE_FRAME_*), *n of them, innermost
 * first: those the compiler inlined at its call, then the one it returns
 * into, the offset in which is *offset.  Names are shortened
 * (src/report/names.h) unless full_names.  NULL, with *why saying why, when no
 * function is known.  Valid until symbolizer_free.
 */
const struct symbol_name *symbolize(struct symbolizer *z, const struct sites *s,
				    uint64_t frame, uint64_t *offset, const char **why,
				    size_t *n);

/*
 * Names every frame of s's sites into fn, as a capture carries them:
 * with z->full_names, so that a report can shorten them or not.  A file
 * that cannot be read gets no names: a report may find it later.  Once
 * z->give_up says so, files not read yet are left to the reports.
 */
void symbolizer_name_all(struct symbolizer *z, const struct sites *s,
			 struct frame_names *fn);
/*
 * Says, on out, which files' frames were named from the files here, not
 * from the names in the capture; nothing when none were.
 */
void symbolizer_print_sources(FILE *out, const struct symbolizer *z,
			      const struct sites *s);
/*
 * Lists, on out, the files whose frames could not be named, with their
 * build-ids and why: what a report on another machine needs installed.
 */
void symbolizer_print_missing(FILE *out, const struct symbolizer *z,
			      const struct sites *s);

#endif
