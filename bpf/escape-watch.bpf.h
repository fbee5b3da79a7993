/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes that escape tracing: a traced process may make a child with
 * CLONE_UNTRACED, which ptrace does not follow, so memsup never hears of
 * it.  With perf links its calls reach the ring (the probes filter by
 * address space); with session links, which filter by process, nothing
 * of it would.  The fork tracepoint names every such child, for the
 * supervisor to count as untraced at the end.  A thread made so needs no
 * name: its calls are its traced process's.  The program, the map of
 * names and the count live in memsup.bpf.c.
 */
#ifndef MEMSUP_ESCAPE_WATCH_BPF_H
#define MEMSUP_ESCAPE_WATCH_BPF_H

#include <bpf/bpf_core_read.h>
#include "pid-namespace.bpf.h"

/* supervisor_tgid: the supervisor's process id, in its namespace. */
static __always_inline bool
traced_by_supervisor(struct task_struct *task, __u32 supervisor_tgid, __u32 pidns_inum)
{
	return BPF_CORE_READ(task, ptrace) &&
	       pid_in_memsup_ns(BPF_CORE_READ(task, parent, group_leader, thread_pid),
				pidns_inum) == supervisor_tgid;
}

/*
 * Whether the fork of child by parent made a process that escaped: then
 * its id and its maker's, both in memsup's namespace.
 */
static __always_inline bool
escaped_child(struct task_struct *parent, struct task_struct *child,
	      __u32 supervisor_tgid, __u32 pidns_inum, __u32 *pid, __u32 *made_by)
{
	if (BPF_CORE_READ(child, pid) != BPF_CORE_READ(child, tgid) ||
	    BPF_CORE_READ(child, ptrace) ||
	    !traced_by_supervisor(parent, supervisor_tgid, pidns_inum))
		return false;
	*pid = pid_in_memsup_ns(BPF_CORE_READ(child, thread_pid), pidns_inum);
	*made_by = pid_in_memsup_ns(BPF_CORE_READ(parent, group_leader, thread_pid),
				    pidns_inum);
	return true;
}

#endif
