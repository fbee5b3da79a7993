/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Starting the workload under ptrace, stopped at its first exec. */
#ifndef MEMSUP_LAUNCH_H
#define MEMSUP_LAUNCH_H

#include <sys/types.h>

/*
 * Forks, seizes the child from this thread, then lets it execvp(argv[0]).
 * The child runs nothing of the workload before the tracer sees its exec
 * stop.  Returns the child's pid, or -1 with errno when memsup could not
 * start it.  *exec_errno is 0 if execvp succeeded; otherwise the errno it
 * failed with, and the child exits with 127 (not found) or 126.
 */
pid_t launch_traced(char *const argv[], int *exec_errno);

#endif
