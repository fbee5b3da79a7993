// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "suppressions.h"
#include "error.h"
#include "heap.h"
#include "report-sites.h"
#include "sites.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The files of the C and C++ runtimes.  A chain that never leaves them
 * was allocated by the runtime on its own, for the whole run: ld.so's
 * link maps and TLS, libstdc++'s emergency exception pool (72,704
 * bytes in GCC 12), allocated by its constructor, called by ld.so.
 */
static const char *const runtime_files[] = {
	"ld-linux*.so*", "libc.so*", "libstdc++.so*", "libgcc_s.so*", "libm.so*",
};

/*
 * Functions whose blocks live until exit by design, whoever called
 * them: glibc's stdio buffers, which it frees only under valgrind.
 */
static const char *const runtime_functions[] = {
	"_IO_file_doallocate",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void
suppressions_init(struct suppressions *sp)
{
	*sp = (struct suppressions){ .defaults = true };
}

void
suppressions_free(struct suppressions *sp)
{
	size_t i;

	for (i = 0; i < sp->npatterns; i++)
		free(sp->patterns[i]);
	free(sp->patterns);
	*sp = (struct suppressions){ 0 };
}

int
suppressions_load(struct suppressions *sp, const char *path)
{
	FILE *f = fopen(path, "re");
	char *text, *line, *next, *p, *end;
	size_t len;
	int err = 0;

	if (!f)
		return -errno;
	text = xmalloc(SUPPRESSIONS_FILE_MAX + 1);
	len = fread(text, 1, SUPPRESSIONS_FILE_MAX + 1, f);
	if (ferror(f))
		err = errno ? -errno : -EIO;
	else if (len > SUPPRESSIONS_FILE_MAX)
		err = -EFBIG;
	fclose(f);
	text[err ? 0 : len] = '\0';
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		end = p + strlen(p);
		while (end > p && strchr(" \t\r", end[-1]))
			*--end = '\0';
		if (!*p || *p == '#')
			continue;
		sp->patterns = xgrow(sp->patterns, &sp->patterns_cap, sp->npatterns + 1,
				     sizeof(*sp->patterns));
		sp->patterns[sp->npatterns++] = xstrdup(p);
	}
	free(text);
	return err;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool
path_matches(const char *pattern, const char *path)
{
	return !fnmatch(pattern, path, 0) || !fnmatch(pattern, base_name(path), 0);
}

static bool
any_matches(const char *const *patterns, size_t n, const char *s, bool path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (path ? path_matches(patterns[i], s) : !fnmatch(patterns[i], s, 0))
			return true;
	return false;
}

bool
runtime_file(const char *path)
{
	return any_matches(runtime_files, COUNT(runtime_files), path, true);
}

/* The file of "file:line". */
static void
source_file(char *buf, size_t size, const char *where)
{
	const char *colon = strrchr(where, ':');
	size_t len = colon ? (size_t)(colon - where) : strlen(where);

	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), where);
}

static bool
frame_matches(const char *const *patterns, size_t n, const struct frame_name *f)
{
	char source[4096];

	if (f->function && any_matches(patterns, n, f->function, false))
		return true;
	if (any_matches(patterns, n, f->path, true))
		return true;
	source_file(source, sizeof(source), f->where);
	return source[0] && any_matches(patterns, n, source, true);
}

bool
suppressed(const struct suppressions *sp, struct symbolizer *z, const struct sites *s,
	   uint32_t site)
{
	const char *const *user = (const char *const *)sp->patterns;
	bool runtime_only = sp->defaults;
	struct frame_name f;
	const uint64_t *frames;
	uint32_t n, i;
	size_t k, nk;

	frames = sites_frames(s, site, &n);
	if (!frames || !n)
		return false;
	for (i = 0; i < n; i++) {
		for (k = 0, nk = 1; k < nk; k++) {
			nk = frame_describe(z, s, frames[i], k, &f);
			if (frame_matches(user, sp->npatterns, &f))
				return true;
			if (!sp->defaults)
				continue;
			if (f.function && any_matches(runtime_functions,
						      COUNT(runtime_functions),
						      f.function, false))
				return true;
			if (!runtime_file(f.path))
				runtime_only = false;
		}
	}
	return runtime_only;
}

void
suppressions_apply(const struct suppressions *sp, struct symbolizer *z,
		   const struct sites *s, struct heap_model *h)
{
	size_t i;

	/* Only a leak is ever suppressed: the others need no symbols. */
	for (i = 0; i < h->nsites; i++)
		h->sites[i].suppressed = h->sites[i].leaked_bytes &&
					 suppressed(sp, z, s, (uint32_t)i);
}
