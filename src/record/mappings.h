/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a process maps for execution, as MAPPING records: the files, where,
 * and their build-ids, so that a report can symbolize the stacks after
 * the process is gone, on this machine or another.
 */
#ifndef MEMSUP_MAPPINGS_H
#define MEMSUP_MAPPINGS_H

#include <sys/types.h>
#include "u64map.h"

struct file_cache;
struct proc_maps;
struct record;

/*
 * Calls emit with a MAPPING record for each executable file mapping of
 * pid in maps that *seen (start address -> inode) does not hold yet, and
 * adds it.
 * The build-ids are read once per file in files.
 */
void mappings_record_new(struct file_cache *files, const struct proc_maps *maps,
			 pid_t pid, struct u64map *seen,
			 void (*emit)(void *ctx, struct record *r), void *ctx);

#endif
