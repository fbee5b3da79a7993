/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Keeps the workload from tracing memsup: a process memsup traces that
 * stopped memsup with ptrace would wait for memsup, and memsup for it,
 * forever.
 */
#ifndef MEMSUP_TRACE_GUARD_H
#define MEMSUP_TRACE_GUARD_H

#include <linux/filter.h>
#include <sys/types.h>

enum { TRACE_GUARD_LEN = 16 };

struct trace_guard {
	struct sock_filter code[TRACE_GUARD_LEN];
	struct sock_fprog prog;
};

/* A seccomp filter that fails PTRACE_ATTACH and PTRACE_SEIZE of supervisor. */
void trace_guard_build(struct trace_guard *g, pid_t supervisor);

/*
 * In the child, before it takes the workload's identity (async-signal
 * safe).  Without no_new_privs, which a root workload must not get, the
 * filter needs CAP_SYS_ADMIN; a memsup without it runs the workload
 * unguarded.  Returns 0 or -errno.
 */
int trace_guard_install(const struct trace_guard *g);

#endif
