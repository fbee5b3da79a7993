// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "debug-fetch.h"
#include "error.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct debug_fetch {
	debuginfod_client *client;
};

struct debug_fetch *
debug_fetch_begin(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct debug_fetch *d;
	debuginfod_client *client;

	/* Without servers the library would only fail each request. */
	if (!urls || !urls[strspn(urls, " \t")] || !(client = debuginfod_begin()))
		return NULL;
	d = xmalloc(sizeof(*d));
	d->client = client;
	return d;
}

char *
debug_fetch(struct debug_fetch *d, const uint8_t *build_id, size_t len,
	    const char **why)
{
	char *path = NULL;
	int fd;

	fd = debuginfod_find_debuginfo(d->client, build_id, (int)len, &path);
	if (fd < 0) {
		*why = fd == -ENOENT ? "no server has it" : strerror(-fd);
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
