/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memsup -p: taking a running process as the workload. */
#ifndef MEMSUP_ATTACH_H
#define MEMSUP_ATTACH_H

#include <sys/types.h>

struct tracer;

/*
 * Seizes every thread of process pid, threads it starts meanwhile
 * included, and hands them to the tracer.  Returns 0, or a negative
 * errno with *why saying why not, complete (the caller adds nothing):
 * no such process, a thread's ID, a kernel thread, a process traced
 * already (naming its tracer), a process that exited meanwhile, or no
 * permission.
 */
int attach_process(pid_t pid, struct tracer *t, const char **why);

#endif
