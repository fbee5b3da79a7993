/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A capture session: memsup -- CMD ARGS. */
#ifndef MEMSUP_RUN_H
#define MEMSUP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include "consumer.h"

struct run_options {
	const char *output;	/* capture file; NULL for the default name */
	bool quiet;		/* no summary on stderr */
	enum probe_links links;
	size_t ring_bytes;
	size_t max_threads;	/* threads inside an allocator call at once */
	int argc;
	char **argv;		/* the workload */
};

/* Runs the workload to completion; returns memsup's exit status. */
int run_capture(const struct run_options *o);

#endif
