/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the supervisor learns about each file a process maps, once per
 * session: a shell tree maps and execs the same few files again and again.
 * Files are told apart by device and inode, not by path, which another
 * root or mount namespace names differently.
 */
#ifndef MEMSUP_FILE_CACHE_H
#define MEMSUP_FILE_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "record.h"
#include "u64map.h"

struct probe_target;

struct cached_file {
	dev_t dev;
	ino_t ino;
	struct cached_file *next;	/* another file of the same key */
	bool build_id_read;		/* a file without one has length 0 */
	uint8_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
	struct probe_target *target;	/* NULL until it was read */
	/* As a dynamic linker: its hook's symbols, in the file's addresses. */
	bool linker_read;
	bool linker_relative;		/* ET_DYN: add where it is loaded */
	uint64_t debug_state;		/* _dl_debug_state; 0: none */
	uint64_t r_debug;		/* _r_debug; 0: none */
};

struct file_cache {
	/* A key made of (dev, ino) -> the first struct cached_file * of it */
	struct u64map by_key;
};

void file_cache_init(struct file_cache *fc);
/* Frees every entry, and closes the descriptors their targets hold. */
void file_cache_free(struct file_cache *fc);
/*
 * The entry of the file (dev, ino), added empty if new.  Entries stay
 * where they are until file_cache_free.
 */
struct cached_file *file_cache_get(struct file_cache *fc, dev_t dev, ino_t ino);

#endif
