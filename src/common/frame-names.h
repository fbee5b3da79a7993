/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names a capture carries for its frames: for each file (path and
 * build-id), each frame offset its stacks use, with the functions at it
 * (those inlined at the call, then the one it returns into) and their
 * source lines.  memsup names them when the run ends, while the files
 * are at hand; reports read them instead of the files, so that a
 * rebuild, a package upgrade or another machine changes nothing.
 * Strings are kept once, by id, as the capture's STRINGS records hold
 * them (doc/capture-format.md).
 */
#ifndef MEMSUP_FRAME_NAMES_H
#define MEMSUP_FRAME_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record.h"
#include "u64map.h"

struct space_module;

/* One function of a frame; string ids, 0 for none. */
struct frame_names_function {
	uint32_t name;		/* 0: one DWARF does not name */
	uint32_t where;		/* "file:line" of the call in it; 0: none */
};

struct frame_names_frame {
	uint64_t offset;	/* the return address's offset in the file */
	uint64_t function_offset;	/* ...and in the function it returns into */
	uint32_t first;		/* its functions are functions[first, first + n) */
	uint8_t n;		/* 0: the address is in no function */
};

struct frame_names_file {
	uint32_t path;		/* string id */
	uint8_t build_id[BUILD_ID_MAX];
	uint8_t build_id_len;
	bool exported_only;	/* named from .dynsym: a debug file names more */
	struct frame_names_frame *frames;
	size_t nframes, frames_cap;
	struct u64map by_offset;	/* offset + 1 -> index + 1 */
};

struct frame_names {
	char **strings;		/* by id - 1 */
	uint32_t nstrings;
	size_t strings_cap;
	struct u64map string_ids;	/* content hash (probed linearly) -> id */
	struct frame_names_function *functions;
	size_t nfunctions, functions_cap;
	struct frame_names_file *files;
	size_t nfiles, files_cap;
};

/* At most this many functions per frame: the count is a byte. */
#define FRAME_NAMES_MAX_FUNCTIONS 255

void frame_names_init(struct frame_names *fn);
void frame_names_free(struct frame_names *fn);
/* The id of s, added if new; 0 for NULL or "". */
uint32_t frame_names_intern(struct frame_names *fn, const char *s);
/* Appends s[0..len) as the next id, as a reader meets them; returns it. */
uint32_t frame_names_append(struct frame_names *fn, const char *s, size_t len);
/* String id's text: NULL for 0 or an id not known. */
const char *frame_names_text(const struct frame_names *fn, uint32_t id);
/* The file of that path id and build-id (NULL when its length is 0), added if new. */
struct frame_names_file *frame_names_file(struct frame_names *fn, uint32_t path,
					  const uint8_t *build_id, uint8_t build_id_len);
/*
 * Adds the frame at offset of file, with its n functions.  Returns false,
 * adding nothing, when the file names that offset already.
 */
bool frame_names_add(struct frame_names *fn, struct frame_names_file *file,
		     uint64_t offset, uint64_t function_offset,
		     const struct frame_names_function *functions, size_t n);
/* The names of module m's file, if the capture holds them. */
const struct frame_names_file *frame_names_find(const struct frame_names *fn,
						const struct space_module *m);
/* The frame at offset of file, or NULL when it is not named. */
const struct frame_names_frame *frame_names_at(const struct frame_names_file *file,
					       uint64_t offset);

#endif
