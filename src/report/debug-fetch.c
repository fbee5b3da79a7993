// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "debug-fetch.h"
#include "error.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * How long a server may take to answer, and how many times to ask again,
 * unless DEBUGINFOD_TIMEOUT and DEBUGINFOD_RETRY_LIMIT say: with
 * libdebuginfod's own (90 s, 2 more times), a server that never answers
 * held memsup's end for minutes.
 */
#define FETCH_TIMEOUT "5"
#define FETCH_RETRIES "0"

struct debug_fetch {
	debuginfod_client *client;
	int failed;		/* the first error not "no server has it" */
	bool (*give_up)(void);
};

/* Called while a transfer runs, data or none: nonzero ends it. */
static int
progress(debuginfod_client *client, long done, long total)
{
	struct debug_fetch *d = debuginfod_get_user_data(client);

	(void)done;
	(void)total;
	return d->give_up();
}

struct debug_fetch *
debug_fetch_begin(bool (*give_up)(void))
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct debug_fetch *d;
	debuginfod_client *client;

	/* Without servers the library would only fail each request. */
	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	setenv("DEBUGINFOD_TIMEOUT", FETCH_TIMEOUT, 0);
	setenv("DEBUGINFOD_RETRY_LIMIT", FETCH_RETRIES, 0);
	client = debuginfod_begin();
	if (!client)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->client = client;
	d->give_up = give_up;
	if (give_up) {
		debuginfod_set_user_data(client, d);
		debuginfod_set_progressfn(client, progress);
	}
	return d;
}

char *
debug_fetch(struct debug_fetch *d, const uint8_t *build_id, size_t len,
	    const char **why)
{
	char *path = NULL;
	int fd;

	/* Servers that timed out or cannot be reached are not asked again. */
	if (d->failed) {
		*why = strerror(-d->failed);
		return NULL;
	}
	fd = debuginfod_find_debuginfo(d->client, build_id, (int)len, &path);
	if (fd == -ENOENT) {
		*why = "no server has it";
		return NULL;
	}
	if (fd < 0) {
		d->failed = fd;
		*why = strerror(-fd);
		return NULL;
	}
	/* The symbolizer opens it by path, as it does a local one. */
	close(fd);
	return path;
}

void
debug_fetch_end(struct debug_fetch *d)
{
	if (!d)
		return;
	debuginfod_end(d->client);
	free(d);
}
