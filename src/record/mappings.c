// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "mappings.h"
#include "elf-functions.h"
#include "error.h"
#include "procfs.h"
#include "record.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Build-ids by file, for the run: a shell tree maps the same few files. */
struct build_id {
	dev_t dev;
	ino_t ino;
	uint8_t len;
	uint8_t bytes[BUILD_ID_MAX];
};

static struct build_id *cache;
static size_t ncache, cache_cap;

static const struct build_id *
build_id_of(const char *path)
{
	struct build_id *b;
	struct stat st;
	Elf *elf;
	size_t i;
	int fd;

	if (stat(path, &st))
		return NULL;
	for (i = 0; i < ncache; i++)
		if (cache[i].dev == st.st_dev && cache[i].ino == st.st_ino)
			return &cache[i];
	cache = xgrow(cache, &cache_cap, ncache + 1, sizeof(*cache));
	b = &cache[ncache++];
	memset(b, 0, sizeof(*b));
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		elf = elf_open_fd(fd);
		if (elf)
			b->len = (uint8_t)elf_build_id(elf, b->bytes, BUILD_ID_MAX);
		elf_end(elf);
		close(fd);
	}
	return b;
}

struct scan {
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
	const struct build_id *b;

	if (!m->exec || (s && s->value == (uint64_t)m->ino))
		return 0;
	u64map_put(sc->seen, m->start, (uint64_t)m->ino);
	r.mapping.start = m->start;
	r.mapping.end = m->end;
	r.mapping.offset = m->offset;
	r.mapping.path = m->path;
	r.mapping.open_path = m->open_path != m->path ? m->open_path : NULL;
	b = build_id_of(m->open_path);
	if (b) {
		r.mapping.build_id_len = b->len;
		memcpy(r.mapping.build_id, b->bytes, b->len);
	}
	sc->emit(sc->ctx, &r);
	return 0;
}

void
mappings_record_new(pid_t pid, struct u64map *seen,
		    void (*emit)(void *ctx, struct record *r), void *ctx)
{
	struct scan sc = { seen, emit, ctx, pid };

	proc_maps_foreach(pid, record_mapping, &sc);
}

void
mappings_release(void)
{
	free(cache);
	cache = NULL;
	ncache = 0;
	cache_cap = 0;
}
