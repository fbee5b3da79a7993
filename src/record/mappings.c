// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "mappings.h"
#include "elf-functions.h"
#include "file-cache.h"
#include "procfs.h"
#include "record.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file's build-id, read once per session. */
static const struct cached_file *
build_id_of(struct file_cache *files, const char *path)
{
	struct cached_file *f;
	struct stat st;
	Elf *elf;
	int fd;

	if (stat(path, &st))
		return NULL;
	f = file_cache_get(files, st.st_dev, st.st_ino);
	if (f->build_id_read)
		return f;
	f->build_id_read = true;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		elf = elf_open_fd(fd);
		if (elf)
			f->build_id_len = (uint8_t)elf_build_id(elf, f->build_id,
								BUILD_ID_MAX);
		elf_end(elf);
		close(fd);
	}
	return f;
}

struct scan {
	struct file_cache *files;
	struct u64map *seen;
	void (*emit)(void *ctx, struct record *r);
	void *ctx;
	pid_t pid;
};

static int
record_mapping(void *ctx, const struct proc_mapping *m)
{
	struct scan *sc = ctx;
	struct u64map_slot *s = u64map_find(sc->seen, m->start);
	struct record r = { .type = REC_MAPPING, .pid = (uint32_t)sc->pid,
			    .tid = (uint32_t)sc->pid };
	const struct cached_file *f;

	if (!m->exec || (s && s->value == (uint64_t)m->ino))
		return 0;
	u64map_put(sc->seen, m->start, (uint64_t)m->ino);
	r.mapping.start = m->start;
	r.mapping.end = m->end;
	r.mapping.offset = m->offset;
	r.mapping.path = m->path;
	r.mapping.open_path = m->open_path != m->path ? m->open_path : NULL;
	f = build_id_of(sc->files, m->open_path);
	if (f) {
		r.mapping.build_id_len = f->build_id_len;
		memcpy(r.mapping.build_id, f->build_id, f->build_id_len);
	}
	sc->emit(sc->ctx, &r);
	return 0;
}

void
mappings_record_new(struct file_cache *files, const struct proc_maps *maps, pid_t pid,
		    struct u64map *seen, void (*emit)(void *ctx, struct record *r),
		    void *ctx)
{
	struct scan sc = { files, seen, emit, ctx, pid };

	proc_maps_each(maps, record_mapping, &sc);
}
