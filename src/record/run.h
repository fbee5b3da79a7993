/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A capture session: memsup -- CMD ARGS. */
#ifndef MEMSUP_RUN_H
#define MEMSUP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "consumer.h"
#include "probe-targets.h"

/* Where the frames of a capture get their names (--symbolize). */
enum symbolize_mode {
	SYMBOLIZE_CAPTURE,	/* at the end of the run, into the capture */
	SYMBOLIZE_REPORT,	/* by each report, from the files then */
	SYMBOLIZE_NONE,		/* as REPORT, and the summary names none */
};

struct run_options {
	const char *output;	/* capture file; NULL for the default name */
	bool quiet;		/* no summary on stderr */
	bool status;		/* --status: the live line even on the workload's terminal */
	const char *user;	/* --user, or NULL */
	bool keep_root;
	bool allow_partial;	/* a stripped static program: a warning only */
	bool print_traps;	/* --traps: the traps each probed function took */
	uint64_t pressure_timeout_ns;	/* 0: off; PRESSURE_WAIT_FOREVER */
	bool watermark_follows;	/* no --watermark: it follows the stops */
	struct consumer_config bpf;
	struct probe_plan probe_plan;	/* --probe-sites, --probe-forwarders */
	enum symbolize_mode symbolize;	/* --symbolize */
	int compress_level;	/* --compress-level: zstd's */
	int argc;
	char **argv;		/* the workload, or NULL with attach_pid */
	pid_t attach_pid;	/* memsup -p */
	uint64_t duration_ns;	/* with -p: detach after this; 0: at a signal */
};

/*
 * Runs the workload to completion, or traces the process attach_pid
 * until it exits or memsup detaches; returns memsup's exit status.
 */
int run_capture(const struct run_options *o);

#endif
