// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "debug-file.h"
#include "elf-functions.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The file's .gnu_debuglink name, or "". */
static void
debuglink_of(const char *path, char *name, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_open_fd(fd) : NULL;
	Elf_Data *data = NULL;
	Elf_Scn *scn;
	GElf_Shdr sh;

	name[0] = '\0';
	if (elf && (scn = elf_section_named(elf, ".gnu_debuglink", &sh)))
		data = elf_getdata(scn, NULL);
	if (data && data->d_size)
		snprintf(name, size, "%.*s", (int)strnlen(data->d_buf, data->d_size),
			 (const char *)data->d_buf);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* a b c d into buf; false if it does not fit. */
static bool
joined(char *buf, size_t size, const char *a, const char *b, const char *c, const char *d)
{
	return (size_t)snprintf(buf, size, "%s%s%s%s", a, b, c, d) < size;
}

void
debug_file_build_id_path(char *path, size_t size, const char *debug_dir,
			 const struct space_module *m)
{
	int n, i;

	n = snprintf(path, size, "%s/.build-id/%02x/", debug_dir, m->build_id[0]);
	for (i = 1; i < m->build_id_len && n < (int)size - 3; i++)
		n += snprintf(path + n, size - (size_t)n, "%02x", m->build_id[i]);
	snprintf(path + n, size - (size_t)n, ".debug");
}

bool
debug_file_find(const struct space_module *m, const char *path, const char *debug_dir,
		bool (*take)(const char *debug_path, void *ctx), void *ctx)
{
	char candidate[4096], link[256], dir[4096];
	const char *slash = strrchr(path, '/');

	if (m->build_id_len) {
		debug_file_build_id_path(candidate, sizeof(candidate), debug_dir, m);
		if (take(candidate, ctx))
			return true;
	}
	debuglink_of(path, link, sizeof(link));
	if (!link[0] || !slash)
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return (joined(candidate, sizeof(candidate), "", dir, "/", link) && take(candidate, ctx)) ||
	       (joined(candidate, sizeof(candidate), "", dir, "/.debug/", link) &&
		take(candidate, ctx)) ||
	       (joined(candidate, sizeof(candidate), debug_dir, dir, "/", link) &&
		take(candidate, ctx));
}
