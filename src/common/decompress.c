// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "decompress.h"
#include "error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* Output of a whole zstd block at a time; input half of that. */
enum { OUT_SIZE = 128 * 1024, IN_SIZE = OUT_SIZE / 2 };

enum container {
	CONTAINER_UNKNOWN,	/* nothing read yet */
	CONTAINER_RAW,
	CONTAINER_GZIP,
	CONTAINER_ZSTD,
};

static const unsigned char gzip_magic[] = { 0x1f, 0x8b };
static const unsigned char zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };

struct decompress {
	int fd;
	enum container container;
	z_stream zs;
	ZSTD_DCtx *zd;
	bool in_unit;		/* inside a gzip member or a zstd frame */
	bool input_end;		/* read() said end of file */
	enum decompress_status status;
	const char *why;
	unsigned char *in_next;
	size_t in_have;
	unsigned char *out_next;
	size_t out_have;
	unsigned char in[IN_SIZE];
	unsigned char out[OUT_SIZE];
};

static void
set_error(struct decompress *d, enum decompress_status status, const char *why)
{
	d->status = status;
	d->why = why;
}

/* Reads more of the file after the input not yet used. */
static void
more_input(struct decompress *d)
{
	ssize_t n;

	if (d->input_end)
		return;
	if (d->in_have && d->in_next != d->in)
		memmove(d->in, d->in_next, d->in_have);
	d->in_next = d->in;
	do
		n = read(d->fd, d->in + d->in_have, IN_SIZE - d->in_have);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		set_error(d, DECOMPRESS_DAMAGED, strerror(errno));
	else if (n == 0)
		d->input_end = true;
	else
		d->in_have += (size_t)n;
}

/*
 * Enough input to see whether the len bytes of magic start it: false at
 * the end, or when they do not.
 */
static bool
starts_with(struct decompress *d, const unsigned char *magic, size_t len)
{
	while (d->in_have < len && !d->input_end && d->status == DECOMPRESS_OK)
		more_input(d);
	return d->in_have >= len && !memcmp(d->in_next, magic, len);
}

/* Whether the next member or frame starts here, in the file's container. */
static bool
unit_starts(struct decompress *d)
{
	if (d->container == CONTAINER_GZIP)
		return starts_with(d, gzip_magic, sizeof(gzip_magic));
	return starts_with(d, zstd_magic, sizeof(zstd_magic));
}

/*
 * Whether the file ends inside the magic of a zstd frame: a stream cut
 * between two frames, as a writer that ends frames as it goes leaves it.
 */
static bool
magic_cut(const struct decompress *d)
{
	return d->input_end && d->in_have && d->in_have < sizeof(zstd_magic) &&
	       !memcmp(d->in_next, zstd_magic, d->in_have);
}

/*
 * Starts the next gzip member or zstd frame, if one starts here; else
 * tells a stream cut between two frames, or bytes after the stream.
 */
static bool
unit_begins(struct decompress *d)
{
	if (unit_starts(d)) {
		if (d->container == CONTAINER_GZIP)
			inflateReset(&d->zs);
		d->in_unit = true;
	} else if (d->container == CONTAINER_ZSTD && magic_cut(d)) {
		set_error(d, DECOMPRESS_CUT, "unexpected end of file");
	} else if (d->in_have) {
		set_error(d, DECOMPRESS_TRAILING, d->container == CONTAINER_GZIP ?
			  "bytes after the gzip stream" : "bytes after the zstd stream");
	}
	return d->in_unit;
}

/*
 * One call of inflate on the input at hand.  Even with no input left:
 * when the last call filled the output, inflate may hold decoded bytes
 * still to give.
 */
static void
inflate_step(struct decompress *d)
{
	int zerr;

	d->zs.next_in = d->in_next;
	d->zs.avail_in = (uInt)d->in_have;
	d->zs.next_out = d->out;
	d->zs.avail_out = OUT_SIZE;
	zerr = inflate(&d->zs, Z_NO_FLUSH);
	d->in_next = d->zs.next_in;
	d->in_have = d->zs.avail_in;
	d->out_next = d->out;
	d->out_have = OUT_SIZE - d->zs.avail_out;
	if (zerr == Z_STREAM_END)
		d->in_unit = false;
	else if (zerr != Z_OK && zerr != Z_BUF_ERROR)
		set_error(d, DECOMPRESS_DAMAGED, d->zs.msg ? d->zs.msg : "inflate failed");
}

/*
 * The same for zstd.  A frame gives its blocks as each one decodes, and
 * checks its checksum at its end; a frame cut short gives every block
 * whole before the cut.
 */
static void
unzstd_step(struct decompress *d)
{
	ZSTD_inBuffer in = { d->in_next, d->in_have, 0 };
	ZSTD_outBuffer out = { d->out, OUT_SIZE, 0 };
	size_t ret = ZSTD_decompressStream(d->zd, &out, &in);

	d->in_next += in.pos;
	d->in_have -= in.pos;
	d->out_next = d->out;
	d->out_have = out.pos;
	if (ZSTD_isError(ret))
		set_error(d, DECOMPRESS_DAMAGED, ZSTD_getErrorName(ret));
	else if (ret == 0)
		d->in_unit = false;	/* the frame ended, its checksum right */
}

/* Decodes into the output buffer until it holds something or ends. */
static void
decode_some(struct decompress *d)
{
	while (!d->out_have && d->status == DECOMPRESS_OK) {
		if (!d->in_unit && !unit_begins(d))
			return;
		if (!d->in_have && !d->input_end) {
			more_input(d);
			continue;
		}
		if (d->container == CONTAINER_GZIP)
			inflate_step(d);
		else
			unzstd_step(d);
		/* Inside a member or frame, with nothing to give and nothing left. */
		if (d->status == DECOMPRESS_OK && d->in_unit && !d->out_have &&
		    !d->in_have && d->input_end)
			set_error(d, DECOMPRESS_CUT, "unexpected end of file");
	}
}

/* A file in no container: what is left of the input, then the file. */
static void
copy_some(struct decompress *d)
{
	if (!d->in_have)
		more_input(d);
	d->out_next = d->in_next;
	d->out_have = d->in_have;
	d->in_have = 0;
}

struct decompress *
decompress_open(int fd)
{
	struct decompress *d = xcalloc(1, sizeof(*d));

	/* 16: a gzip header and trailer around the deflate data. */
	if (inflateInit2(&d->zs, 15 + 16) != Z_OK) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->zd = ZSTD_createDCtx();
	if (!d->zd) {
		inflateEnd(&d->zs);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->fd = fd;
	d->in_next = d->in;
	d->status = DECOMPRESS_OK;
	return d;
}

/* The first bytes decide the container. */
static void
look(struct decompress *d)
{
	if (starts_with(d, gzip_magic, sizeof(gzip_magic)))
		d->container = CONTAINER_GZIP;
	else if (starts_with(d, zstd_magic, sizeof(zstd_magic)))
		d->container = CONTAINER_ZSTD;
	else
		d->container = CONTAINER_RAW;
}

size_t
decompress_read(struct decompress *d, void *buf, size_t len)
{
	size_t done = 0, n;

	if (d->container == CONTAINER_UNKNOWN)
		look(d);
	while (done < len) {
		if (!d->out_have) {
			if (d->container == CONTAINER_RAW)
				copy_some(d);
			else
				decode_some(d);
			if (!d->out_have)
				break;
		}
		n = len - done < d->out_have ? len - done : d->out_have;
		memcpy((unsigned char *)buf + done, d->out_next, n);
		d->out_next += n;
		d->out_have -= n;
		done += n;
	}
	return done;
}

const unsigned char *
decompress_peek(const struct decompress *d, size_t *len)
{
	*len = d->out_have;
	return d->out_next;
}

void
decompress_skip(struct decompress *d, size_t n)
{
	d->out_next += n;
	d->out_have -= n;
}

bool
decompress_raw(const struct decompress *d)
{
	return d->container == CONTAINER_RAW;
}

enum decompress_status
decompress_status(const struct decompress *d, const char **why)
{
	*why = d->why;
	return d->status;
}

void
decompress_close(struct decompress *d)
{
	if (!d)
		return;
	inflateEnd(&d->zs);
	ZSTD_freeDCtx(d->zd);
	close(d->fd);
	free(d);
}
