// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"
#include "link-reaper.h"
#include "error.h"

#include <bpf/libbpf.h>
#include <stdlib.h>
#include <unistd.h>

struct doomed {
	int *fds;
	size_t nfds;
	struct bpf_link **links;
	size_t nlinks;
};

/* A reaper only closes descriptors. */
enum { REAPER_STACK_SIZE = 64 * 1024 };

static void
close_all(struct doomed *d)
{
	size_t i;

	for (i = 0; i < d->nfds; i++)
		close(d->fds[i]);
	for (i = 0; i < d->nlinks; i++)
		bpf_link__destroy(d->links[i]);
	free(d->fds);
	free(d->links);
	free(d);
}

static void *
reap(void *arg)
{
	close_all(arg);
	return NULL;
}

/* Joins the reapers that are done, so that a long run keeps few. */
static void
join_finished(struct link_reaper *r)
{
	size_t i, kept = 0;

	for (i = 0; i < r->nthreads; i++)
		if (pthread_tryjoin_np(r->threads[i], NULL))
			r->threads[kept++] = r->threads[i];
	r->nthreads = kept;
}

void
link_reaper_close(struct link_reaper *r, int *fds, size_t nfds,
		  struct bpf_link **links, size_t nlinks)
{
	struct doomed *d = xmalloc(sizeof(*d));
	pthread_attr_t attr;
	pthread_t thread;
	int err;

	d->fds = fds;
	d->nfds = nfds;
	d->links = links;
	d->nlinks = nlinks;
	if (!nfds && !nlinks) {
		close_all(d);
		return;
	}
	join_finished(r);
	/* Threads inherit the supervisor's blocked signals, as they must. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, REAPER_STACK_SIZE);
	err = pthread_create(&thread, &attr, reap, d);
	pthread_attr_destroy(&attr);
	if (err) {
		close_all(d);
		return;
	}
	r->threads = xgrow(r->threads, &r->threads_cap, r->nthreads + 1,
			   sizeof(*r->threads));
	r->threads[r->nthreads++] = thread;
}

void
link_reaper_wait(struct link_reaper *r)
{
	size_t i;

	for (i = 0; i < r->nthreads; i++)
		pthread_join(r->threads[i], NULL);
	free(r->threads);
	r->threads = NULL;
	r->nthreads = 0;
	r->threads_cap = 0;
}
