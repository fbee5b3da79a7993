/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file decompressed to its very end: a gzip stream of one or more
 * members, or, if the file does not start as gzip, its bytes as they are.
 * zlib's gzread ignores whatever follows the last member that is not
 * gzip; here those bytes are an error, so that a capture file with junk
 * appended is never read as whole.
 */
#ifndef MEMSUP_GUNZIP_H
#define MEMSUP_GUNZIP_H

#include <stdbool.h>
#include <stddef.h>

enum gunzip_status {
	GUNZIP_OK,
	GUNZIP_CUT,		/* the file ends inside a gzip member */
	GUNZIP_DAMAGED,		/* bad deflate data or check, or a read error */
	GUNZIP_TRAILING,	/* bytes after the last member that are not gzip */
};

struct gunzip;

/*
 * Takes fd, which gunzip_close closes; NULL (errno set, fd left open) on
 * failure.
 */
struct gunzip *gunzip_open(int fd);
/*
 * Reads up to len bytes; fewer only at the end of the content or on an
 * error, which gunzip_status then tells.
 */
size_t gunzip_read(struct gunzip *g, void *buf, size_t len);
/* Whether the file, once read from, is not gzip: its bytes unchecked. */
bool gunzip_raw(const struct gunzip *g);
/* GUNZIP_OK until an error; *why describes it. */
enum gunzip_status gunzip_status(const struct gunzip *g, const char **why);
void gunzip_close(struct gunzip *g);

#endif
