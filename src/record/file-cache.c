// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "file-cache.h"
#include "error.h"
#include "probe-targets.h"

#include <stdlib.h>
#include <unistd.h>

/*
 * Device numbers keep their bits low, and so do most inode numbers: dev
 * goes to the high half.  Files whose keys meet anyway share a chain.
 */
static uint64_t
key_of(dev_t dev, ino_t ino)
{
	uint64_t d = (uint64_t)dev;
	uint64_t key = (uint64_t)ino ^ (d << 32 | d >> 32);

	/* 0 is u64map's empty slot. */
	return key ? key : 1;
}

void
file_cache_init(struct file_cache *fc)
{
	u64map_init(&fc->by_key);
}

static void
free_entry(struct cached_file *f)
{
	if (f->target) {
		if (f->target->fd >= 0)
			close(f->target->fd);
		probe_target_free(f->target);
		free(f->target);
	}
	free(f);
}

void
file_cache_free(struct file_cache *fc)
{
	struct u64map_slot *s;

	u64map_foreach(&fc->by_key, s) {
		struct cached_file *f = (struct cached_file *)(uintptr_t)s->value;

		while (f) {
			struct cached_file *next = f->next;

			free_entry(f);
			f = next;
		}
	}
	u64map_free(&fc->by_key);
}

struct cached_file *
file_cache_get(struct file_cache *fc, dev_t dev, ino_t ino)
{
	uint64_t key = key_of(dev, ino);
	struct u64map_slot *s = u64map_find(&fc->by_key, key);
	struct cached_file *first = s ? (struct cached_file *)(uintptr_t)s->value : NULL;
	struct cached_file *f;

	for (f = first; f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	f = xcalloc(1, sizeof(*f));
	f->dev = dev;
	f->ino = ino;
	f->next = first;
	u64map_put(&fc->by_key, key, (uint64_t)(uintptr_t)f);
	return f;
}
