/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Suppressions: the leaks a report leaves out of its leak ranking,
 * counted apart.  A built-in list names what the C and C++ runtimes
 * allocate once and free never by design; a user's file adds patterns.
 */
#ifndef MEMSUP_SUPPRESSIONS_H
#define MEMSUP_SUPPRESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct heap_model;
struct sites;
struct symbolizer;

struct suppressions {
	char **patterns;	/* the user's fnmatch(3) patterns */
	size_t npatterns, patterns_cap;
	bool defaults;		/* the built-in list applies */
};

void suppressions_init(struct suppressions *sp);
void suppressions_free(struct suppressions *sp);
/* The largest file of patterns read, in bytes. */
#define SUPPRESSIONS_FILE_MAX (1 << 20)

/*
 * Adds the patterns of the file at path, one a line; blank lines and
 * lines starting with '#' are none.  Returns 0 or a negative errno:
 * -EFBIG for a file larger than SUPPRESSIONS_FILE_MAX.
 */
int suppressions_load(struct suppressions *sp, const char *path);
/*
 * Whether site is suppressed: a user's pattern matches a function of
 * its chain (inlined ones included), the file it is in, or the source
 * file of its call, by full path or base name; or a built-in rule
 * matches.
 */
bool suppressed(const struct suppressions *sp, struct symbolizer *z, const struct sites *s,
		uint32_t site);
/*
 * Whether path is a file of the C and C++ runtimes (the dynamic loader,
 * libc, libstdc++, libgcc_s, libm), by its path or base name.
 */
bool runtime_file(const char *path);
/* Marks suppressed each site of h that leaked and sp suppresses. */
void suppressions_apply(const struct suppressions *sp, struct symbolizer *z,
			const struct sites *s, struct heap_model *h);

#endif
