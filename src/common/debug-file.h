/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a file's separate debug file may be, looked for as gdb does: by
 * build-id under the debug directory, else by the .gnu_debuglink name
 * beside the file, in its .debug directory, or under the debug
 * directory.  The symbolizer reads symbols and lines from it; the
 * unwind table builder, .debug_frame.
 */
#ifndef MEMSUP_DEBUG_FILE_H
#define MEMSUP_DEBUG_FILE_H

#include "address-spaces.h"

#include <stdbool.h>
#include <stddef.h>

#define DEBUG_DIR_DEFAULT "/usr/lib/debug"

/* DIR/.build-id/ab/cdef....debug: where m's debug file goes. */
void debug_file_build_id_path(char *path, size_t size, const char *debug_dir,
			      const struct space_module *m);
/*
 * Offers each place m's debug file may be to take, until take returns
 * true; path is where m's file opens.  Returns whether one was taken.
 */
bool debug_file_find(const struct space_module *m, const char *path, const char *debug_dir,
		     bool (*take)(const char *debug_path, void *ctx), void *ctx);

#endif
