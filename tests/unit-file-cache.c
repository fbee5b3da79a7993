// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session's file cache: a file found under another file's entry
 * would give a mapping the wrong build-id, or a process the wrong probes.
 */
#include "config.h"
#include "error.h"
#include "file-cache.h"
#include "probe-targets.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

static void
test_lookup(void)
{
	struct file_cache fc;
	struct cached_file *a, *b, *c;

	file_cache_init(&fc);
	a = file_cache_get(&fc, 0x803, 1234);
	tap_ok(a && a->dev == 0x803 && a->ino == 1234,
	       "a new file gets an entry of its own");
	tap_ok(!a->build_id_read && !a->build_id_len && !a->target,
	       "which holds nothing yet");
	a->build_id_read = true;
	a->build_id_len = 1;
	a->build_id[0] = 0xab;
	tap_ok(file_cache_get(&fc, 0x803, 1234) == a, "the same file finds the same entry");
	tap_ok(a->build_id_read && a->build_id_len == 1 && a->build_id[0] == 0xab,
	       "with what was put there");
	b = file_cache_get(&fc, 0x803, 1235);
	c = file_cache_get(&fc, 0x804, 1234);
	tap_ok(b != a && c != a && b != c,
	       "another inode, or another device: another entry");
	tap_ok(!b->build_id_read && !c->build_id_read, "which does not share the first's");
	tap_ok(file_cache_get(&fc, 0x803, 1234) == a &&
	       file_cache_get(&fc, 0x803, 1235) == b &&
	       file_cache_get(&fc, 0x804, 1234) == c, "each file still finds its own");
	file_cache_free(&fc);
}

/*
 * Pairs of files whose keys are equal: the map holds one key for each
 * pair, which the test checks so as not to pass without a collision.
 */
static void
test_collisions(void)
{
	static const struct {
		dev_t dev[2];
		ino_t ino[2];
		const char *why;
	} pairs[] = {
		{ { 1, 0 }, { 0, 1ULL << 32 }, "device bits meet inode bits" },
		{ { 0, 0 }, { 0, 1 }, "the key 0, which marks an empty slot" },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct file_cache fc;
		struct cached_file *first, *second;

		file_cache_init(&fc);
		first = file_cache_get(&fc, pairs[i].dev[0], pairs[i].ino[0]);
		second = file_cache_get(&fc, pairs[i].dev[1], pairs[i].ino[1]);
		tap_eq_u64(fc.by_key.count, 1, "%s: one key for two files", pairs[i].why);
		tap_ok(first != second && second->dev == pairs[i].dev[1] &&
		       second->ino == pairs[i].ino[1], "%s: two entries", pairs[i].why);
		tap_ok(file_cache_get(&fc, pairs[i].dev[0], pairs[i].ino[0]) == first &&
		       file_cache_get(&fc, pairs[i].dev[1], pairs[i].ino[1]) == second,
		       "%s: each file finds its own", pairs[i].why);
		file_cache_free(&fc);
	}
}

/* The image_targets point into entries: the map's growth must not move them. */
static void
test_growth(void)
{
	enum { NFILES = 5000 };
	static struct cached_file *entries[NFILES];
	struct file_cache fc;
	bool same = true;
	size_t i;

	file_cache_init(&fc);
	for (i = 0; i < NFILES; i++)
		entries[i] = file_cache_get(&fc, (dev_t)(i % 7), (ino_t)(i / 7 + 2));
	for (i = 0; i < NFILES; i++)
		same &= file_cache_get(&fc, (dev_t)(i % 7), (ino_t)(i / 7 + 2)) ==
			entries[i];
	tap_ok(same, "%d files, each found where it was put", NFILES);
	file_cache_free(&fc);
}

static struct probe_target *
new_target(int fd)
{
	struct probe_target *t = xcalloc(1, sizeof(*t));

	t->fd = fd;
	t->path = xstrdup("/usr/lib/libc.so.6");
	t->calls = xcalloc(1, sizeof(*t->calls));
	t->calls[0].name = xstrdup("malloc");
	t->ncalls = 1;
	return t;
}

/* Leaks show under valgrind or a sanitizer build; descriptors show here. */
static void
test_free(void)
{
	struct file_cache fc;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		tap_bail("cannot open /dev/null");
	file_cache_init(&fc);
	file_cache_get(&fc, 1, 0)->target = new_target(fd);
	file_cache_get(&fc, 0, 1ULL << 32)->target = new_target(-1);
	file_cache_get(&fc, 2, 10)->build_id_read = true;
	file_cache_free(&fc);
	tap_ok(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
	       "the descriptor a target holds is closed");
	tap_ok(!fc.by_key.slots && !fc.by_key.count, "and the cache is empty");
	file_cache_init(&fc);
	file_cache_free(&fc);
	tap_ok(!fc.by_key.slots && !fc.by_key.count, "a cache never used frees too");
}

int
main(void)
{
	tap_plan(17);
	test_lookup();
	test_collisions();
	test_growth();
	test_free();
	return tap_done();
}
