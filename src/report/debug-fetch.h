/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Debug files fetched by build-id from the debuginfod servers that
 * DEBUGINFOD_URLS names, through elfutils' libdebuginfod, which keeps
 * them in its cache (DEBUGINFOD_CACHE_PATH, by default
 * ~/.cache/debuginfod_client).  For files that no local debug directory
 * has: a distribution's stripped binaries.
 */
#ifndef MEMSUP_DEBUG_FETCH_H
#define MEMSUP_DEBUG_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct debug_fetch;

/*
 * A client, or NULL when DEBUGINFOD_URLS names no server.  give_up, when
 * not NULL, is asked while a server is waited for: true ends the wait.
 */
struct debug_fetch *debug_fetch_begin(bool (*give_up)(void));
/*
 * The path of build_id's debug file, in the cache, to free; NULL when no
 * server has it, *why saying why.
 */
char *debug_fetch(struct debug_fetch *d, const uint8_t *build_id, size_t len,
		  const char **why);
void debug_fetch_end(struct debug_fetch *d);

#endif
