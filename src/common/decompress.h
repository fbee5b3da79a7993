/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file decompressed to its very end, whichever container it is in: a
 * zstd stream of one or more frames, a gzip stream of one or more
 * members, or, if the file starts as neither, its bytes as they are.
 * zlib's gzread ignores whatever follows the last member that is not
 * gzip; here those bytes, and those after the last zstd frame, are an
 * error, so that a capture file with junk appended is never read as
 * whole.
 */
#ifndef MEMSUP_DECOMPRESS_H
#define MEMSUP_DECOMPRESS_H

#include <stdbool.h>
#include <stddef.h>

enum decompress_status {
	DECOMPRESS_OK,
	DECOMPRESS_CUT,		/* the file ends inside a member or frame */
	DECOMPRESS_DAMAGED,	/* bad compressed data or check, or a read
				 * error */
	DECOMPRESS_TRAILING,	/* bytes after the last member or frame that
				 * do not start another */
};

struct decompress;

/*
 * Takes fd, which decompress_close closes; NULL (errno set, fd left
 * open) on failure.
 */
struct decompress *decompress_open(int fd);
/*
 * Reads up to len bytes; fewer only at the end of the content or on an
 * error, which decompress_status then tells.
 */
size_t decompress_read(struct decompress *d, void *buf, size_t len);
/*
 * The bytes decoded and not read yet, in place: *len of them (0 when
 * none is at hand: decompress_read decodes more), valid until the next
 * call on d.  decompress_skip(d, n) reads n <= *len of them, without
 * the copy decompress_read makes.
 */
const unsigned char *decompress_peek(const struct decompress *d, size_t *len);
void decompress_skip(struct decompress *d, size_t n);
/*
 * Whether the file, once read from, is in no container: its bytes
 * unchecked.
 */
bool decompress_raw(const struct decompress *d);
/* DECOMPRESS_OK until an error; *why describes it. */
enum decompress_status decompress_status(const struct decompress *d, const char **why);
void decompress_close(struct decompress *d);

#endif
