/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Starting the workload under ptrace, stopped at its first exec. */
#ifndef MEMSUP_LAUNCH_H
#define MEMSUP_LAUNCH_H

#include <sys/types.h>

struct workload_user;

/* What went wrong in the child, before anything of the workload ran. */
struct launch_failure {
	enum {
		LAUNCH_OK,
		LAUNCH_CREDENTIALS,	/* it exits with 125 */
		LAUNCH_EXEC,		/* it exits with 127 (not found) or 126 */
	} step;
	int err;
};

/*
 * Forks, seizes the child from this thread, then lets it take the
 * workload's identity and execvp(argv[0]).  The child runs nothing of the
 * workload before the tracer sees its exec stop.  Returns the child's
 * pid, or a negative errno when memsup could not start it; *failure says
 * whether the child failed on its own (its err a positive errno).
 */
pid_t launch_traced(char *const argv[], const struct workload_user *wu,
		    struct launch_failure *failure);
/*
 * Raises memsup's soft limit on open files to its hard one: every traced
 * process holds descriptors (its probes' links).  A workload launched
 * after still starts with the limit memsup was given.
 */
void launch_raise_file_limit(void);

#endif
