/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes that escape tracing: a traced process may make a child with
 * CLONE_UNTRACED, which ptrace does not follow, so memsup never hears of
 * it.  With perf links its calls reach the ring (the probes filter by
 * address space); with session links, which filter by process, nothing
 * of it would.  The fork tracepoint names every such child, for the
 * supervisor to count as untraced at the end.  A thread made so needs no
 * name: its calls are its traced process's.
 */
#ifndef MEMSUP_ESCAPE_WATCH_BPF_H
#define MEMSUP_ESCAPE_WATCH_BPF_H

#include <bpf/bpf_core_read.h>

/* Set by the supervisor before load: its process id, in its namespace. */
const volatile __u32 supervisor_tgid = 0;

/* The children that escaped, each with the process that made it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MS_ESCAPED_MAX);
	__type(key, __u32);
	__type(value, __u32);
} escaped SEC(".maps");

/* Children that escaped when the map was full. */
__u64 escaped_unnamed;

static __always_inline bool
traced_by_supervisor(struct task_struct *task)
{
	return BPF_CORE_READ(task, ptrace) &&
	       pid_in_memsup_ns(BPF_CORE_READ(task, parent, group_leader, thread_pid)) ==
	       supervisor_tgid;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(escape_watch, struct task_struct *parent, struct task_struct *child)
{
	__u32 pid, made_by;

	if (BPF_CORE_READ(child, pid) != BPF_CORE_READ(child, tgid) ||
	    BPF_CORE_READ(child, ptrace) || !traced_by_supervisor(parent))
		return 0;
	pid = pid_in_memsup_ns(BPF_CORE_READ(child, thread_pid));
	made_by = pid_in_memsup_ns(BPF_CORE_READ(parent, group_leader, thread_pid));
	if (bpf_map_update_elem(&escaped, &pid, &made_by, BPF_ANY))
		__sync_fetch_and_add(&escaped_unnamed, 1);
	return 0;
}

#endif
