/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Closing uprobe links off the supervisor's thread.  Detaching a link
 * waits for an RCU grace period, 25 to 80 ms here: the supervisor hands
 * the links of a process that is gone to a short-lived thread and goes on,
 * and closes that run at once share their grace periods.
 */
#ifndef MEMSUP_LINK_REAPER_H
#define MEMSUP_LINK_REAPER_H

#include <pthread.h>
#include <stddef.h>

struct bpf_link;

/*
 * The reapers not joined yet; all zeros is none.  Only the supervisor's
 * thread starts and joins them.
 */
struct link_reaper {
	pthread_t *threads;
	size_t nthreads, threads_cap;
};

/*
 * Takes ownership of the links and of the arrays that hold them (either
 * may be NULL) and closes them.  Falls back to closing them here if no
 * thread can be started.
 */
void link_reaper_close(struct link_reaper *r, int *fds, size_t nfds,
		       struct bpf_link **links, size_t nlinks);
/* Returns when every link handed over is closed, and frees r's own. */
void link_reaper_wait(struct link_reaper *r);

#endif
