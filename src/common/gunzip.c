// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "gunzip.h"
#include "error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* zlib's own defaults for gzread: reads of 8 KiB, output twice that. */
enum { IN_SIZE = 8192, OUT_SIZE = 2 * IN_SIZE };

struct gunzip {
	int fd;
	z_stream zs;
	bool looked;		/* the first bytes decided gzip or not */
	bool raw;		/* not gzip: the bytes as they are */
	bool in_member;		/* inside a gzip member */
	bool input_end;		/* read() said end of file */
	enum gunzip_status status;
	const char *why;
	unsigned char *out_next;
	size_t out_have;
	unsigned char in[IN_SIZE];
	unsigned char out[OUT_SIZE];
};

static void
set_error(struct gunzip *g, enum gunzip_status status, const char *why)
{
	g->status = status;
	g->why = why;
}

/* Reads more of the file after the input not yet used. */
static void
more_input(struct gunzip *g)
{
	ssize_t n;

	if (g->input_end)
		return;
	if (g->zs.avail_in && g->zs.next_in != g->in)
		memmove(g->in, g->zs.next_in, g->zs.avail_in);
	g->zs.next_in = g->in;
	do
		n = read(g->fd, g->in + g->zs.avail_in, IN_SIZE - g->zs.avail_in);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		set_error(g, GUNZIP_DAMAGED, strerror(errno));
	else if (n == 0)
		g->input_end = true;
	else
		g->zs.avail_in += (uInt)n;
}

/* Enough input to see whether a gzip member starts: false at the end. */
static bool
member_starts(struct gunzip *g)
{
	while (g->zs.avail_in < 2 && !g->input_end && g->status == GUNZIP_OK)
		more_input(g);
	return g->zs.avail_in >= 2 && g->zs.next_in[0] == 0x1f &&
	       g->zs.next_in[1] == 0x8b;
}

/* Decompresses into the output buffer until it holds something or ends. */
static void
inflate_some(struct gunzip *g)
{
	int zerr;

	while (!g->out_have && g->status == GUNZIP_OK) {
		if (!g->in_member) {
			if (member_starts(g)) {
				inflateReset(&g->zs);
				g->in_member = true;
			} else if (g->zs.avail_in) {
				set_error(g, GUNZIP_TRAILING, "bytes after the gzip stream");
			}
			if (!g->in_member)
				return;
		}
		if (!g->zs.avail_in && !g->input_end) {
			more_input(g);
			continue;
		}
		/*
		 * Even with no input left: when the last call filled the
		 * output, inflate may hold decoded bytes still to give.
		 */
		g->zs.next_out = g->out;
		g->zs.avail_out = OUT_SIZE;
		zerr = inflate(&g->zs, Z_NO_FLUSH);
		g->out_next = g->out;
		g->out_have = OUT_SIZE - g->zs.avail_out;
		if (zerr == Z_STREAM_END)
			g->in_member = false;
		else if (zerr != Z_OK && zerr != Z_BUF_ERROR)
			set_error(g, GUNZIP_DAMAGED, g->zs.msg ? g->zs.msg : "inflate failed");
		else if (!g->out_have && !g->zs.avail_in && g->input_end)
			set_error(g, GUNZIP_CUT, "unexpected end of file");
	}
}

/* A file that is not gzip: what is left of the input, then the file. */
static void
copy_some(struct gunzip *g)
{
	if (!g->zs.avail_in)
		more_input(g);
	g->out_next = g->zs.next_in;
	g->out_have = g->zs.avail_in;
	g->zs.avail_in = 0;
}

struct gunzip *
gunzip_open(int fd)
{
	struct gunzip *g = xcalloc(1, sizeof(*g));

	/* 16: a gzip header and trailer around the deflate data. */
	if (inflateInit2(&g->zs, 15 + 16) != Z_OK) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	g->fd = fd;
	g->zs.next_in = g->in;
	g->status = GUNZIP_OK;
	return g;
}

size_t
gunzip_read(struct gunzip *g, void *buf, size_t len)
{
	size_t done = 0, n;

	if (!g->looked) {
		g->raw = !member_starts(g);
		g->looked = true;
	}
	while (done < len) {
		if (!g->out_have) {
			if (g->raw)
				copy_some(g);
			else
				inflate_some(g);
			if (!g->out_have)
				break;
		}
		n = len - done < g->out_have ? len - done : g->out_have;
		memcpy((unsigned char *)buf + done, g->out_next, n);
		g->out_next += n;
		g->out_have -= n;
		done += n;
	}
	return done;
}

bool
gunzip_raw(const struct gunzip *g)
{
	return g->raw;
}

enum gunzip_status
gunzip_status(const struct gunzip *g, const char **why)
{
	*why = g->why;
	return g->status;
}

void
gunzip_close(struct gunzip *g)
{
	if (!g)
		return;
	inflateEnd(&g->zs);
	close(g->fd);
	free(g);
}
